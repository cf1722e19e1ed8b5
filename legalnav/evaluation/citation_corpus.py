"""The adversarial citation corpus: answers built from real provisions, half genuine and half
tampered, each with the verdicts the checker must give. It measures ``answers.citations``
independently of any model: every tampered citation must be caught and no genuine one flagged.

The corpus (``gold/citation_corpus.jsonl``) names its sources instead of copying them: each case
maps document keys to a file (``demo:<name>`` in ``demo/documents``, ``cuad:<name>`` in the public
data's ``cuad/contracts``), and the provisions are parsed from those files when the corpus runs,
exactly as indexing parses them. ``scripts/build_citation_corpus.py`` writes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings

CORPUS = Path(__file__).resolve().parent / "gold" / "citation_corpus.jsonl"
DEMO = Path(settings.BASE_DIR) / "demo" / "documents"
FAILING = {"quote_not_found", "no_such_provision"}


def source_path(ref: str) -> Path:
    kind, _, name = ref.partition(":")
    if kind == "demo":
        return DEMO / name
    if kind == "cuad":
        from legalnav.evaluation.gold import data_dir

        return data_dir() / "cuad" / "contracts" / name
    raise ValueError(f"unknown source {ref!r}")


@lru_cache(maxsize=64)
def provisions(ref: str) -> dict[str, str]:
    """node id -> the provision's text with its sub-clauses, as citation validation sees it."""
    from legalnav.documents.parsing import parse_document
    from legalnav.documents.parsing.extract import extract_text
    from legalnav.documents.parsing.layout import tidy

    path = source_path(ref)
    text = extract_text(path.read_bytes(), path.name, max_bytes=200 * 1024 * 1024).text
    parsed = parse_document(text)
    from legalnav.answers.citations import checkable_text

    out = {}
    for n in parsed.nodes:
        if not n.node_id:
            continue
        end = max(n.subtree_end, n.end)
        parts = [m.text for m in parsed.nodes if n.start <= m.start < end]
        out[n.node_id] = checkable_text(tidy(text[n.start : end]), parts)
    return out


def lookup_for(sources: dict[str, str]) -> Callable[[str, str], str | None]:
    def lookup(doc_key: str, node_id: str) -> str | None:
        ref = sources.get(doc_key)
        if ref is None:
            return None
        return provisions(ref).get(node_id)

    return lookup


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@dataclass
class Outcome:
    case: dict[str, Any]
    got: list[list[str]]  # [doc_key, node_id, verdict] per check, in order
    uncited: int
    unbound: int

    @property
    def expected(self) -> list[list[str]]:
        return [list(x) for x in self.case["expected"]]

    @property
    def as_expected(self) -> bool:
        return (
            self.got == self.expected
            and self.uncited == self.case.get("uncited", 0)
            and self.unbound == self.case.get("unbound", 0)
        )

    @property
    def flagged(self) -> bool:
        """The checker reported a problem with this answer."""
        return any(v in FAILING for _, _, v in self.got) or bool(self.uncited or self.unbound)


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def tampered(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.case["kind"] != "genuine"]

    @property
    def genuine(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.case["kind"] == "genuine"]

    def summary(self) -> dict[str, Any]:
        tampered, genuine = self.tampered, self.genuine
        by_kind: dict[str, list[int]] = {}
        for o in self.outcomes:
            entry = by_kind.setdefault(o.case["tamper"] or "genuine", [0, 0])
            entry[0] += o.as_expected
            entry[1] += 1
        return {
            "cases": len(self.outcomes),
            "tampered_caught": sum(o.flagged for o in tampered),
            "tampered": len(tampered),
            "genuine_flagged": sum(o.flagged for o in genuine),
            "genuine": len(genuine),
            "verdicts_as_expected": sum(o.as_expected for o in self.outcomes),
            "by_kind": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_kind.items())},
            "styles": sorted({o.case.get("style", "") for o in self.outcomes}),
        }


def run(cases: Iterable[dict[str, Any]]) -> Report:
    from legalnav.answers.citations import validate

    report = Report()
    for case in cases:
        result = validate(case["answer"], lookup_for(case["sources"]))
        got = [[c.doc_key, c.node_id, c.verdict] for c in result.checks]
        report.outcomes.append(Outcome(case, got, len(result.uncited), len(result.unbound)))
    return report
