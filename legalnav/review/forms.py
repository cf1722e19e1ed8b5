"""The new-grid form, parsed from a POST: the preset columns ticked (or all 41), the user's saved
columns ticked, up to ``OWN_ROWS`` columns of their own (name, question, type; optionally saved
for next time), the documents ticked (none: every indexed document) and the mode.

The estimate posts the same form and renders it again from what was parsed (``GridForm.own_rows``
and the ticks), so that "Make the grid" after it makes exactly the grid that was estimated.

Plain parsing rather than a Django Form: the columns are a variable list of three fields each,
and the checks that matter (types, duplicates, limits, documents of this matter) are the
service's, which every door shares (``services.columns_check``, ``grid_documents_check``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import QueryDict

from legalnav.review.columns import CUAD_COLUMNS
from legalnav.review.models import Grid, SavedColumn
from legalnav.review.services import ColumnSpec

OWN_ROWS = 3


@dataclass
class GridForm:
    title: str = ""
    mode: str = Grid.Mode.OFFLINE
    preset: list[str] = field(default_factory=list)
    saved: list[int] = field(default_factory=list)
    own: list[ColumnSpec] = field(default_factory=list)
    save_own: bool = False
    documents: list[int] = field(default_factory=list)

    def columns(self, saved_columns: list[SavedColumn]) -> list[ColumnSpec]:
        """The grid's columns in the form's order: presets (CUAD's order), saved, then own."""
        chosen = set(self.preset)
        out = [ColumnSpec(c.key, c.question, c.type) for c in CUAD_COLUMNS if c.key in chosen]
        wanted = set(self.saved)
        out += [ColumnSpec(s.key, s.question, s.type) for s in saved_columns if s.pk in wanted]
        return out + self.own

    @property
    def document_ids(self) -> list[int] | None:
        return self.documents or None

    @property
    def all_presets(self) -> bool:
        return len(set(self.preset)) == len(CUAD_COLUMNS)

    def own_rows(self) -> list[ColumnSpec | None]:
        """The own-column rows the form shows: those given, then blank ones up to ``OWN_ROWS``."""
        blank: list[ColumnSpec | None] = [None] * max(0, OWN_ROWS - len(self.own))
        return [*self.own, *blank]


def _ints(values: list[str]) -> list[int]:
    out = []
    for v in values:
        if v.isascii() and v.isdigit() and len(v) < 19:
            out.append(int(v))
    return out


def grid_form_parse(data: QueryDict) -> GridForm:
    form = GridForm(
        title=data.get("title", "")[:200],
        mode=data.get("mode", Grid.Mode.OFFLINE),
        saved=_ints(data.getlist("saved")),
        save_own=data.get("save_own") == "on",
        documents=_ints(data.getlist("documents")),
    )
    known = {c.key for c in CUAD_COLUMNS}
    form.preset = [k for k in dict.fromkeys(data.getlist("preset")) if k in known]
    # "All" counts only when no single preset is ticked (a page without its script, where the
    # box does not tick the others): the ticks the user left are what they chose.
    if data.get("preset_all") == "on" and not form.preset:
        form.preset = [c.key for c in CUAD_COLUMNS]
    keys, questions, types = (
        data.getlist("own_key"),
        data.getlist("own_question"),
        data.getlist("own_type"),
    )
    for key, question, type_ in zip(keys, questions, types, strict=False):
        if key.strip() or question.strip():
            form.own.append(ColumnSpec(key.strip() or question.strip()[:120], question, type_))
    return form
