"""Word (``.docx``): body paragraphs and tables in document order.

Headers, footers, footnotes and comments are excluded.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any, Final

import docx

from .errors import MEDIA_TYPE_DOCX, ExtractedText, ExtractionError, ExtractLimits, _human_size
from .lines import _PB, _WS_RE, _assemble

_W_NS: Final = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_MC_NS: Final = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def _w(local: str) -> str:
    return f"{{{_W_NS}}}{local}"


_W_P, _W_TBL, _W_TR, _W_TC = _w("p"), _w("tbl"), _w("tr"), _w("tc")
_W_R, _W_T, _W_TAB, _W_BR, _W_CR = _w("r"), _w("t"), _w("tab"), _w("br"), _w("cr")
_W_PPR, _W_RPR = _w("pPr"), _w("rPr")
_W_SDT, _W_SDTCONTENT, _W_CUSTOMXML = _w("sdt"), _w("sdtContent"), _w("customXml")
_W_SECTPR, _W_TYPE, _W_VAL = _w("sectPr"), _w("type"), _w("val")
_W_VANISH, _W_PAGEBREAKBEFORE = _w("vanish"), _w("pageBreakBefore")
#: Subtrees whose text is not displayed: properties (which also contain
#: ``w:tab`` tab-stop definitions), deletions, and duplicate fallback content.
_DOCX_SKIP: Final = frozenset(
    {
        _W_PPR,
        _W_RPR,
        _w("del"),
        _w("moveFrom"),
        _w("sdtPr"),
        _w("sdtEndPr"),
        f"{{{_MC_NS}}}Fallback",
        _w("instrText"),
        _w("delText"),
    }
)
_DOCX_CHARS: Final[dict[str, str]] = {
    _W_TAB: "\t",
    _w("ptab"): "\t",
    _W_CR: "\n",
    _w("noBreakHyphen"): "-",
    _w("softHyphen"): "",
}
_FALSE_VALUES: Final = frozenset({"0", "false", "off"})


def _extract_docx(data: bytes, *, limits: ExtractLimits) -> ExtractedText:
    """Extract body text from a Word document in reading order.

    The zip's central directory is checked against ``limits`` first (see :func:`_check_zip`);
    python-docx then opens the package; the body XML is walked directly
    rather than through ``Paragraph.text`` / ``Table.rows``, because those
    skip text in tracked insertions and content controls and repeat the text
    of merged cells once per grid column.
    """
    not_docx = "The file is named .docx but is not a Word document, or it is damaged."
    if not data.startswith(b"PK"):
        raise ExtractionError("corrupt", not_docx)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()  # the central directory only: nothing is inflated
    except Exception:  # noqa: BLE001 - BadZipFile, NotImplementedError, OSError...
        raise ExtractionError("corrupt", not_docx) from None
    names = {i.filename for i in infos}
    if "[Content_Types].xml" not in names or not any(n.startswith("word/") for n in names):
        raise ExtractionError("corrupt", not_docx)
    _check_zip(infos, limits, kind="Word document")
    try:
        document = docx.Document(io.BytesIO(data))
        body = document.element.body
    except Exception:  # noqa: BLE001 - PackageNotFoundError, KeyError, XMLSyntaxError...
        raise ExtractionError("corrupt", not_docx) from None

    lines: list[str] = []
    _docx_blocks(body, lines)
    text = _assemble(lines)
    if not text.strip():
        raise ExtractionError("no_text", "The Word document contains no text.")
    return ExtractedText(text=text, media_type=MEDIA_TYPE_DOCX, pages=None)


#: Parts smaller than this expanded are not held to the ratio bound: a short run of repeated
#: bytes compresses far past any ratio and costs nothing.
_RATIO_FLOOR: Final = 1024 * 1024


def _check_zip(infos: list[zipfile.ZipInfo], limits: ExtractLimits, *, kind: str) -> None:
    """Refuse a zip container that would cost too much to open, from its central directory.

    python-docx inflates every part into memory and lxml then builds a tree of it, so a few
    megabytes can become gigabytes (a zip bomb). The declared sizes are a true bound: zipfile
    never returns more than a part's ``file_size`` (and fails on a CRC mismatch).
    """
    if len(infos) > limits.zip_parts:
        raise ExtractionError(
            "too_large",
            f"The {kind} has {len(infos):,} parts, over the limit of {limits.zip_parts:,}; "
            "it may be damaged or built to exhaust the server.",
        )
    expanded = sum(i.file_size for i in infos)
    if expanded > limits.expanded_bytes:
        raise ExtractionError(
            "too_large",
            f"The {kind} is too large: it expands to {_human_size(expanded)}, "
            f"over the {_human_size(limits.expanded_bytes)} limit.",
        )
    for info in infos:
        if info.file_size > _RATIO_FLOOR and (
            info.file_size > limits.zip_ratio * max(info.compress_size, 1)
        ):
            raise ExtractionError(
                "too_large",
                f"The {kind} is not readable safely: its part {info.filename} expands "
                f"{info.file_size // max(info.compress_size, 1):,} times (the limit is "
                f"{limits.zip_ratio:,}); it may be built to exhaust the server.",
            )


def _iter_blocks(container: Any) -> Iterator[Any]:
    """Block-level children (paragraphs, tables) in order, looking through
    content controls and custom XML wrappers."""
    for child in container:
        if child.tag in (_W_SDT, _W_CUSTOMXML, _W_SDTCONTENT):
            inner = child.find(_W_SDTCONTENT) if child.tag == _W_SDT else child
            if inner is not None:
                yield from _iter_blocks(inner)
        elif child.tag in (_W_P, _W_TBL):
            yield child


def _docx_blocks(container: Any, lines: list[str]) -> None:
    for block in _iter_blocks(container):
        if block.tag == _W_P:
            _docx_paragraph(block, lines)
        else:
            _docx_table(block, lines)


def _on(el: Any) -> bool:
    """A WordprocessingML on/off property: present and not val=false."""
    return el is not None and (el.get(_W_VAL) or "true").lower() not in _FALSE_VALUES


def _docx_paragraph(p: Any, lines: list[str]) -> None:
    """Append one paragraph: its text lines, or a blank line if it is empty.

    Automatic numbering (``w:numPr``) is rendered by Word from numbering.xml
    and list state; it is not in the text, and reproducing it faithfully means
    reimplementing Word's list engine, so such paragraphs keep their text only
    (e.g. "Definitions." rather than "1.01 Definitions.").  Typed numbers like
    "Section 1.01" are ordinary text and come through unchanged.
    """
    ppr = p.find(_W_PPR)
    if ppr is not None and _on(ppr.find(_W_PAGEBREAKBEFORE)):
        lines.append(_PB)
    pieces = _docx_inline_text(p)
    if all(not piece.strip() for piece in pieces if piece != _PB):
        # Empty paragraph: Word shows a blank line there.
        for piece in pieces:
            if piece == _PB:
                lines.append(_PB)
        lines.append("")
    else:
        for piece in pieces:
            if piece == _PB:
                lines.append(_PB)
                continue
            for line in piece.split("\n"):
                lines.append(line.rstrip())
    if ppr is not None:
        sect = ppr.find(_W_SECTPR)
        if sect is not None:
            kind = sect.find(_W_TYPE)
            kind_val = kind.get(_W_VAL) if kind is not None else "nextPage"
            if kind_val in ("nextPage", "evenPage", "oddPage"):
                lines.append(_PB)


def _docx_inline_text(p: Any) -> list[str]:
    """Displayed text of a paragraph, split into pieces at hard page breaks."""
    pieces: list[str] = []
    cur: list[str] = []
    # Items are elements, or literal strings queued to be emitted in order.
    stack: list[Any] = list(reversed(list(p)))
    while stack:
        el = stack.pop()
        if isinstance(el, str):
            cur.append(el)
            continue
        tag = el.tag
        if not isinstance(tag, str) or tag in _DOCX_SKIP:
            continue
        if tag == _W_R:
            rpr = el.find(_W_RPR)
            if rpr is not None and _on(rpr.find(_W_VANISH)):
                continue  # hidden text is not shown to the reader
        if tag == _W_T:
            cur.append(el.text or "")
        elif tag == _W_BR:
            if el.get(_W_TYPE) == "page":
                pieces.append("".join(cur))
                pieces.append(_PB)
                cur = []
            else:
                cur.append("\n")
        elif tag in _DOCX_CHARS:
            cur.append(_DOCX_CHARS[tag])
        elif tag == _W_P:
            # A paragraph inside a text box: keep it on a line of its own.
            stack.append("\n")
            stack.extend(reversed(list(el)))
            stack.append("\n")
        else:
            stack.extend(reversed(list(el)))
    pieces.append("".join(cur))
    return [piece for piece in pieces if piece]


def _docx_cell_text(tc: Any) -> str:
    """A table cell flattened to one line (paragraphs and nested tables joined)."""
    parts: list[str] = []
    for el in tc.iter(_W_P):
        parts.append("".join(piece for piece in _docx_inline_text(el) if piece != _PB))
    return _WS_RE.sub(" ", " ".join(parts)).strip()


def _docx_table(tbl: Any, lines: list[str]) -> None:
    """Each row on one line, cells joined by two spaces.

    A row with only one non-empty cell is a layout device (a box around a
    clause, a signature block beside an empty column), so its content keeps
    its paragraph lines instead of being squashed onto one line.
    """
    lines.append("")
    for tr in tbl:
        if tr.tag != _W_TR:
            continue  # nested tables are reached through their cell
        cells = [tc for tc in tr if tc.tag == _W_TC]
        texts = [_docx_cell_text(tc) for tc in cells]
        filled = [i for i, t in enumerate(texts) if t]
        if len(filled) == 1:
            _docx_blocks(cells[filled[0]], lines)
        elif filled:
            lines.append("  ".join(t for t in texts if t))
    lines.append("")
