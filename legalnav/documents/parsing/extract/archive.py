"""Zip uploads: every file of a data room, with the folder it sat in.

:func:`walk_archive` yields, in the archive's order, each file legalnav can read
(:class:`ArchiveFile`: its folder as text, its name, its bytes) and each file it cannot
(:class:`ArchiveSkip`: its path and why). Zips inside the zip are opened in turn (to
``ArchiveLimits.depth``), their files under a folder named after them.

Bounded like a .docx, from the central directory before a byte is inflated: the number of
files, the bytes they expand to in all (nested zips counted into the same totals), and the ratio
of each large member's expanded to compressed size; ``zipfile`` never yields more than a member's
declared size, so a lying directory cannot inflate past it either. A zip past the bounds is
refused as a whole; a nested one past them is skipped with the reason.

Paths are text only: a member named ``../../etc/passwd`` or ``C:\\x`` or holding control
characters is shown as its cleaned words ("etc / passwd" under a folder named "..") and never
used as a path on disk; files are stored under a name the storage makes safe. macOS metadata
(``__MACOSX/``, ``._*``, ``.DS_Store``) and Windows ``Thumbs.db`` / ``desktop.ini`` are dropped
without a word, as the person who made the zip never saw them.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Final

from .errors import ExtractionError, _human_size

FOLDER_SEPARATOR: Final = " / "
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]+")
_SYSTEM_NAMES: Final = frozenset({".ds_store", "thumbs.db", "desktop.ini"})
#: Members smaller than this are not held to the ratio (tiny files compress arbitrarily well).
_RATIO_FLOOR: Final = 1024 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    files: int = 5000
    expanded_bytes: int = 4 * 1024**3
    ratio: int = 200
    depth: int = 3
    #: One file's bytes (the upload limit of a single file).
    file_bytes: int = 50 * 1024**2


@dataclass(frozen=True)
class ArchiveFile:
    folder: str
    name: str
    data: bytes = field(repr=False)

    @property
    def path(self) -> str:
        return f"{self.folder}{FOLDER_SEPARATOR}{self.name}" if self.folder else self.name


@dataclass(frozen=True)
class ArchiveSkip:
    path: str
    reason: str


@dataclass
class _Budget:
    files: int = 0
    expanded: int = 0


def is_archive(filename: str) -> bool:
    return filename.lower().rstrip(". ").endswith(".zip")


#: A path segment longer than this is shortened, its extension kept (a file's type is read
#: from it).
PART_CHARS: Final = 200


def clean_part(part: str) -> str:
    """One path segment as text: control characters out, spaces trimmed, at most
    ``PART_CHARS`` long with its extension kept."""
    part = _CONTROL.sub("", part).strip()
    if len(part) <= PART_CHARS:
        return part
    stem, ext = os.path.splitext(part)
    ext = ext if 1 < len(ext) <= 10 else ""
    return stem[: PART_CHARS - len(ext)].rstrip() + ext


def split_path(member: str) -> list[str]:
    """A member's path as cleaned segments: both slash styles, drive letters and empty or "."
    segments dropped; ".." kept as the text it is."""
    parts = [clean_part(p) for p in re.split(r"[\\/]+", member)]
    parts = [p for p in parts if p and p != "."]
    if parts and re.fullmatch(r"[A-Za-z]:", parts[0]):
        parts = parts[1:]
    return parts


def _is_system(parts: list[str]) -> bool:
    name = parts[-1].lower()
    return (
        any(p.lower() == "__macosx" for p in parts)
        or name.startswith("._")
        or name in _SYSTEM_NAMES
    )


def _check(zf: zipfile.ZipFile, name: str, limits: ArchiveLimits, budget: _Budget) -> None:
    """Refuse the archive from its directory: too many files, too many bytes, a bomb."""
    infos = [i for i in zf.infolist() if not i.is_dir()]
    files = budget.files + len(infos)
    if files > limits.files:
        raise ExtractionError(
            "too_large",
            f"“{name}” holds {len(infos):,} files, over the limit of {limits.files:,} per upload; "
            "split it into several zips.",
        )
    expanded = budget.expanded + sum(i.file_size for i in infos)
    if expanded > limits.expanded_bytes:
        raise ExtractionError(
            "too_large",
            f"“{name}” expands to {_human_size(expanded)}, over the "
            f"{_human_size(limits.expanded_bytes)} limit; split it into several zips.",
        )
    for info in infos:
        if info.file_size > _RATIO_FLOOR and info.file_size > limits.ratio * max(
            1, info.compress_size
        ):
            raise ExtractionError(
                "too_large",
                f"“{name}” holds a file that expands {info.file_size // max(1, info.compress_size):,}"
                f" times its size ({'/'.join(split_path(info.filename)) or 'unnamed'}), as a zip"
                " bomb does; it was not opened.",
            )
    budget.files, budget.expanded = files, expanded


def _open(source: IO[bytes] | bytes, name: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        raise ExtractionError("corrupt", f"“{name}” is not a readable zip file.") from None


def walk_archive(
    source: IO[bytes] | bytes,
    name: str,
    *,
    limits: ArchiveLimits,
    supported: frozenset[str],
) -> Iterator[ArchiveFile | ArchiveSkip]:
    """Each readable file of the zip ``name`` (and of the zips inside it), and each file left
    out with its reason. Raises ``ExtractionError`` when the zip itself cannot be opened or is
    past the bounds (nothing of it is yielded then)."""
    zf = _open(source, name)
    budget = _Budget()
    with zf:
        _check(zf, name, limits, budget)
        yield from _walk(zf, [], limits, supported, budget, depth=1)


def _walk(
    zf: zipfile.ZipFile,
    prefix: list[str],
    limits: ArchiveLimits,
    supported: frozenset[str],
    budget: _Budget,
    *,
    depth: int,
) -> Iterator[ArchiveFile | ArchiveSkip]:
    for info in zf.infolist():
        if info.is_dir():
            continue
        parts = split_path(info.filename)
        if not parts or _is_system(parts):
            continue
        path = FOLDER_SEPARATOR.join(prefix + parts)
        file_name = parts[-1]
        ext = os.path.splitext(file_name)[1].lower()
        if info.flag_bits & 0x1:
            yield ArchiveSkip(path, "password-protected inside the zip")
            continue
        if info.file_size == 0:
            yield ArchiveSkip(path, "empty")
            continue
        if ext == ".zip":
            yield from _nested(zf, info, prefix + parts, limits, supported, budget, depth=depth)
            continue
        if ext not in supported:
            kind = f"“{ext}” files" if ext else "files without an extension"
            yield ArchiveSkip(path, f"not a document legalnav reads ({kind})")
            continue
        if info.file_size > limits.file_bytes:
            yield ArchiveSkip(
                path,
                f"{_human_size(info.file_size)}, over the {_human_size(limits.file_bytes)} "
                "limit for one file",
            )
            continue
        try:
            data = zf.read(info)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            yield ArchiveSkip(path, f"could not be read from the zip ({exc.__class__.__name__})")
            continue
        yield ArchiveFile(FOLDER_SEPARATOR.join(prefix + parts[:-1]), file_name, data)


def _nested(
    zf: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    parts: list[str],
    limits: ArchiveLimits,
    supported: frozenset[str],
    budget: _Budget,
    *,
    depth: int,
) -> Iterator[ArchiveFile | ArchiveSkip]:
    path = FOLDER_SEPARATOR.join(parts)
    if depth >= limits.depth:
        yield ArchiveSkip(path, f"a zip nested more than {limits.depth} deep; unzip it first")
        return
    if info.file_size > limits.file_bytes:
        # A nested zip is read into memory to be opened: held to one file's limit.
        yield ArchiveSkip(path, f"a nested zip of {_human_size(info.file_size)}; upload it alone")
        return
    try:
        inner = zipfile.ZipFile(io.BytesIO(zf.read(info)))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        yield ArchiveSkip(path, "a zip that could not be opened")
        return
    with inner:
        try:
            _check(inner, parts[-1], limits, budget)
        except ExtractionError as exc:
            yield ArchiveSkip(path, exc.message)
            return
        stem = parts[:-1] + [os.path.splitext(parts[-1])[0]]
        yield from _walk(inner, stem, limits, supported, budget, depth=depth + 1)
