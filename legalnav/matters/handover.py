"""A matter handed over as one zip: what each app holds of it, streamed as it is written.

``matters`` cannot import the apps above it, so each app registers the part it owns in its
``AppConfig.ready()`` (``register``): documents their files and an index, answers their answers
with citations and PDF memos, review its grids as XLSX. This module adds the matter's own part
(the audit trail and the members as CSV, and a README listing what is inside) and streams the
zip: each entry is compressed and sent as soon as it is written, so a large matter is never
held in memory or in a temporary file.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.utils import timezone

from legalnav.core.users import actor_name
from legalnav.matters.models import AuditEvent, Matter, Membership

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# (path inside the zip, its bytes): bytes, or a callable that yields the bytes in pieces (a
# large source file is read from storage a piece at a time).
Entry = tuple[str, bytes | Callable[[], Iterable[bytes]]]
Part = Callable[[Matter, object], Iterator[Entry]]


@dataclass(frozen=True)
class _Registered:
    name: str
    order: int
    entries: Part
    describes: str


_PARTS: dict[str, _Registered] = {}


def register(name: str, *, order: int, describes: str) -> Callable[[Part], Part]:
    """Register a part of the handover (``describes``: one line for the README)."""

    def add(entries: Part) -> Part:
        _PARTS[name] = _Registered(name, order, entries, describes)
        return entries

    return add


def parts() -> list[str]:
    return [p.name for p in sorted(_PARTS.values(), key=lambda p: p.order)]


# --- helpers the parts share ----------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_UNSAFE = re.compile(r'[\x00-\x1f<>:"|?*\\]+')


def csv_bytes(header: list[str], rows: Iterable[Iterable[object]]) -> bytes:
    """A CSV that Excel opens as UTF-8 and in which no cell runs as a formula."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(value) for value in row])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def _cell(value: object) -> str:
    text = "" if value is None else value.isoformat() if isinstance(value, datetime) else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def safe_name(name: str, limit: int = 120) -> str:
    """A file or folder name that every unzip tool accepts (no path separators, no control
    characters, no names that climb out of the folder)."""
    cleaned = _UNSAFE.sub("_", name.replace("/", "_")).strip(" .")
    return cleaned[:limit] or "_"


# --- the matter's own part ------------------------------------------------------------------


@register("matter", order=90, describes="audit.csv: the matter's audit trail; members.csv")
def _matter_part(matter: Matter, user: User) -> Iterator[Entry]:
    events = (
        AuditEvent.objects.filter(matter=matter)
        .select_related("user")
        .order_by("at", "pk")
        .iterator(chunk_size=2000)
    )
    yield (
        "audit.csv",
        csv_bytes(
            ["when", "who", "action", "target", "detail"],
            (
                (
                    e.at,
                    e.user.get_username() if e.user else "",
                    e.action_label,
                    e.target,
                    _detail(e.detail),
                )
                for e in events
            ),
        ),
    )
    members = Membership.objects.filter(matter=matter).select_related("user").order_by("pk")
    yield (
        "members.csv",
        csv_bytes(
            ["username", "role", "since"],
            ((m.user.get_username(), m.role, m.created_at) for m in members),
        ),
    )


def _detail(detail: object) -> str:
    if not isinstance(detail, dict):
        return ""
    return "; ".join(f"{k}={v}" for k, v in sorted(detail.items()))


# --- the zip --------------------------------------------------------------------------------


class _Pipe(io.RawIOBase):
    """A write-only, unseekable file whose bytes are taken away as they come: zipfile then
    writes each entry's sizes after its data (a data descriptor) instead of seeking back."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []
        self._written = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # type: ignore[no-untyped-def,override]
        chunk = bytes(data)
        self._chunks.append(chunk)
        self._written += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self._written

    def pending(self) -> int:
        return sum(len(c) for c in self._chunks)

    def take(self) -> bytes:
        out = b"".join(self._chunks)
        self._chunks.clear()
        return out


@dataclass
class HandoverCounts:
    files: int = 0
    bytes: int = 0


def handover_chunks(
    matter: Matter, user: User, counts: HandoverCounts | None = None
) -> Iterator[bytes]:
    """The zip, in pieces: every registered part's entries under ``<matter name>/``, then a
    README. ``counts`` (when given) is filled in as the entries are written."""
    counts = counts if counts is not None else HandoverCounts()
    root = safe_name(matter.name, 80)
    pipe = _Pipe()
    seen: set[str] = set()
    listed: list[str] = []
    problems: list[str] = []
    with zipfile.ZipFile(pipe, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for part in sorted(_PARTS.values(), key=lambda p: p.order):
            listed.append(f"- {part.describes}")
            entries = part.entries(matter, user)
            while True:
                # A part that fails (a file gone from storage, a memo that will not render)
                # stops there; the zip goes on with the other parts and its README says what
                # is missing, rather than breaking off half sent.
                try:
                    path, content = next(entries)
                    name = _unique(f"{root}/{path}", seen)
                    pieces = [content] if isinstance(content, bytes) else content()
                    with archive.open(name, "w", force_zip64=True) as out:
                        for piece in pieces:
                            out.write(piece)
                            counts.bytes += len(piece)
                            if pipe.pending() > 1 << 18:  # a large file: send as it goes
                                yield pipe.take()
                except StopIteration:
                    break
                except Exception as exc:  # noqa: BLE001 - reported in the zip, and logged
                    logger.exception("handover of matter %s: part %s failed", matter.pk, part.name)
                    problems.append(f"- {part.name}: stopped with an error ({type(exc).__name__})")
                    break
                counts.files += 1
                yield pipe.take()
        readme = _readme(matter, user, listed, counts, problems)
        archive.writestr(f"{root}/README.txt", readme)
    yield pipe.take()


def _unique(path: str, seen: set[str]) -> str:
    if path not in seen:
        seen.add(path)
        return path
    stem, dot, ext = path.rpartition(".")
    if not dot or "/" in ext:
        stem, ext = path, ""
    n = 2
    while (candidate := f"{stem} ({n}){'.' + ext if ext else ''}") in seen:
        n += 1
    seen.add(candidate)
    return candidate


def _readme(
    matter: Matter,
    user: User,
    listed: list[str],
    counts: HandoverCounts,
    problems: list[str] | None = None,
) -> str:
    who = actor_name(user) or "a command"
    lines = [
        f"Matter: {matter.name} (id {matter.pk}, {matter.get_status_display().lower()})",
        f"Exported from legalnav on {timezone.now():%Y-%m-%d %H:%M} UTC by {who}.",
        f"{counts.files} files, {counts.bytes:,} bytes before compression.",
        "",
        "What is inside:",
        *listed,
        "",
        "Documents keep the folders they were uploaded in. Answers quote every cited provision",
        "as it read when the answer was given. Grids open in Excel; each cell's citations and",
        "review state are in its own columns.",
    ]
    if problems:
        lines += ["", "NOT COMPLETE: these parts stopped with an error (export again):", *problems]
    return "\n".join(lines) + "\n"
