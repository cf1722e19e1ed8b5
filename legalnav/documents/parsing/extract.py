"""Turn an uploaded file's bytes into plain text, or say clearly why we can't.

This module is deliberately pure: no Django, no ORM, no I/O beyond the bytes it
is handed.  That keeps it testable without a database, lets Celery workers and
management commands share it, and means every failure mode is an
:class:`ExtractionError` with a stable ``code`` (for the UI and for metrics) and
a one-sentence ``message`` written for a lawyer reading a status line rather
than for a developer reading a traceback.

Formats and what "text" means for each:

* ``.txt`` - the text is *exactly* ``data.decode("utf-8")``.  Citations point at
  character offsets, and for plain text those offsets must line up with the file
  as read from disk, so nothing is normalised (no BOM stripping, no newline
  translation).  Non-UTF-8 files fall back to cp1252, then latin-1, with a
  warning naming the encoding used.
* ``.htm``/``.html`` - typically SEC EDGAR exhibits.  Rendered to lines the way
  a browser would lay them out, with page breaks turned into the same
  80-dash marker that plain-text EDGAR exhibits use, so the structure parser
  sees one convention.
* ``.pdf`` - pypdf's text layer, pages joined with ``"\\n\\f\\n"``.  Image-only
  ("scanned") PDFs are rejected with ``no_text`` because silently indexing a
  handful of stray characters would make the document look searchable when it
  is not.
* ``.docx`` - body paragraphs and tables in document order; headers, footers,
  footnotes and comments are excluded.
"""

from __future__ import annotations

import codecs
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import docx
import lxml.etree
import lxml.html
from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError

__all__ = [
    "ERROR_CODES",
    "MEDIA_TYPES",
    "PAGE_BREAK_LINE",
    "SUPPORTED_EXTENSIONS",
    "ExtractedText",
    "ExtractionError",
    "extract_text",
]

ERROR_CODES: Final[frozenset[str]] = frozenset(
    {"empty", "too_large", "unknown_type", "corrupt", "encrypted", "no_text"}
)

MEDIA_TYPE_TXT: Final = "text/plain"
MEDIA_TYPE_HTML: Final = "text/html"
MEDIA_TYPE_PDF: Final = "application/pdf"
MEDIA_TYPE_DOCX: Final = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

MEDIA_TYPES: Final[dict[str, str]] = {
    ".txt": MEDIA_TYPE_TXT,
    ".htm": MEDIA_TYPE_HTML,
    ".html": MEDIA_TYPE_HTML,
    ".pdf": MEDIA_TYPE_PDF,
    ".docx": MEDIA_TYPE_DOCX,
}

SUPPORTED_EXTENSIONS: Final[frozenset[str]] = frozenset(MEDIA_TYPES)

#: The page-break line used by plain-text EDGAR exhibits.  HTML and DOCX page
#: breaks are rendered as this line (with a blank line either side) so that the
#: structure parser has a single page-break convention to recognise.
PAGE_BREAK_LINE: Final = "-" * 80

#: Separator between PDF pages.  The form feed is the traditional "new page"
#: control character; the newlines keep it on a line of its own.
PDF_PAGE_SEPARATOR: Final = "\n\f\n"

#: Below this many non-whitespace characters per page on average, a PDF is
#: treated as image-only.  Real text pages carry hundreds or thousands; a
#: scanned page's text layer is empty or a stray page number.
MIN_PDF_CHARS_PER_PAGE: Final = 20


class ExtractionError(Exception):
    """Extraction failed for a reason the user can act on.

    ``code`` is machine-readable (one of :data:`ERROR_CODES`); ``message`` is one
    plain sentence for the status line, and is also ``str(error)``.
    """

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:  # a typo here would silently break UI mapping
            raise ValueError(f"unknown extraction error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        # The default pickling replays ``self.args`` (just the message) into
        # ``__init__``, which needs two arguments; Celery pickles exceptions
        # when a task fails, so keep both.
        return (self.__class__, (self.code, self.message))

    def __repr__(self) -> str:
        return f"ExtractionError({self.code!r}, {self.message!r})"


@dataclass(frozen=True)
class ExtractedText:
    """The result of a successful extraction.

    ``warnings`` are user-facing sentences about things that went partly wrong
    (an encoding guess, an unreadable PDF page) but did not stop extraction.
    """

    text: str
    media_type: str
    pages: int | None
    warnings: tuple[str, ...] = ()


def extract_text(data: bytes, filename: str, *, max_bytes: int) -> ExtractedText:
    """Extract the text of an uploaded file.

    The type is chosen from the file name's extension (case-insensitive) and
    then confirmed by sniffing the first bytes, because a renamed file should
    fail as "corrupt" with a clear message rather than crash a parser deep
    inside a worker.

    Raises :class:`ExtractionError` for every expected failure.
    """
    if max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    if len(data) == 0 or data.isspace():
        raise ExtractionError("empty", "The file is empty.")
    if len(data) > max_bytes:
        raise ExtractionError("too_large", _too_large_message(len(data), max_bytes))

    ext = _extension(filename)
    if ext not in SUPPORTED_EXTENSIONS:
        raise ExtractionError("unknown_type", _unknown_type_message(filename, ext))

    if ext == ".txt":
        return _extract_txt(data)
    if ext in (".htm", ".html"):
        return _extract_html(data)
    if ext == ".pdf":
        return _extract_pdf(data)
    return _extract_docx(data, max_bytes=max_bytes)


# ---------------------------------------------------------------------------
# Messages


def _human_size(n: int) -> str:
    """Format a byte count the way file browsers do (binary units, one decimal)."""
    if n < 1024:
        return f"{n} bytes"
    value = float(n)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def _too_large_message(size: int, limit: int) -> str:
    size_h, limit_h = _human_size(size), _human_size(limit)
    if size_h == limit_h:
        # "10.0 MB is over the 10.0 MB limit" reads as nonsense; be exact.
        size_h, limit_h = f"{size:,} bytes", f"{limit:,}-byte"
    return f"The file is too large: {size_h} is over the {limit_h} limit."


def _extension(filename: str) -> str:
    """Lower-cased extension with its dot, or "" if the name has none.

    Handles both slash styles (browsers on Windows may send a full path) and
    names like ``.pdf`` which :func:`os.path.splitext` treats as extension-less.
    """
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].strip().rstrip(".")
    if "." not in name:
        return ""
    return "." + name.rsplit(".", 1)[1].lower()


def _unknown_type_message(filename: str, ext: str) -> str:
    supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
    if not ext:
        return (
            f'The file name "{filename}" has no extension, so its type is unknown; '
            f"supported types are {supported}."
        )
    hint = " (save it as .docx from Word first)" if ext == ".doc" else ""
    return f'Files of type "{ext}" are not supported{hint}; supported types are {supported}.'


def _count_visible(text: str) -> int:
    """Number of non-whitespace characters, the measure of "has real text"."""
    return sum(1 for ch in text if not ch.isspace())


def _format_pages(pages: list[int], limit: int = 10) -> str:
    shown = ", ".join(str(p) for p in pages[:limit])
    if len(pages) > limit:
        shown += f" and {len(pages) - limit} more"
    return shown


# ---------------------------------------------------------------------------
# Plain text


def _extract_txt(data: bytes) -> ExtractedText:
    """Decode plain text without altering a single character.

    Offsets into the returned text are used as citations back into the file,
    so the UTF-8 path is exactly ``data.decode("utf-8")``.  UTF-16 with a BOM
    (Notepad's "Unicode") is recognised because otherwise it would "succeed"
    as cp1252 full of NUL characters.
    """
    warnings: list[str] = []
    text: str | None = None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            # "utf-16" consumes the BOM; re-add it so that, like the UTF-8 path,
            # the BOM is kept as U+FEFF rather than silently dropped.
            text = "\ufeff" + data.decode("utf-16")
            warnings.append("The file is not UTF-8; it was read as UTF-16.")
        except UnicodeDecodeError:
            text = None
    if text is None:
        text, used = _decode_with_fallback(data, ("utf-8", "cp1252", "latin-1"))
        if used != "utf-8":
            warnings.append(f"The file is not valid UTF-8; it was read as {_codec_label(used)}.")

    if "\x00" in text:
        # Valid-looking text never contains NUL; this is a binary file (or an
        # odd encoding) with a .txt name, and PostgreSQL cannot store NULs.
        raise ExtractionError(
            "corrupt", "The file contains binary data, so it does not look like a plain-text file."
        )
    if not text.replace("\ufeff", "").strip():
        raise ExtractionError("empty", "The file is empty.")
    return ExtractedText(text=text, media_type=MEDIA_TYPE_TXT, pages=None, warnings=tuple(warnings))


def _decode_with_fallback(data: bytes, encodings: Iterable[str]) -> tuple[str, str]:
    """Decode with the first encoding that works strictly; latin-1 never fails."""
    for enc in encodings:
        try:
            return data.decode(enc), enc
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode("latin-1"), "latin-1"


def _codec_label(enc: str) -> str:
    try:
        name = codecs.lookup(enc).name
    except LookupError:
        return enc
    return {
        "cp1252": "Windows-1252 (cp1252)",
        "iso8859-1": "Latin-1 (ISO-8859-1)",
        "latin-1": "Latin-1 (ISO-8859-1)",
        "utf-8": "UTF-8",
    }.get(name, name)


# ---------------------------------------------------------------------------
# HTML

#: Sentinel line for a page break inside the line builders; NUL never survives
#: into text lines (it is stripped from the input), so it cannot collide.
_PB: Final = "\x00"
#: Table-cell separator inside a line; a private-use character so whitespace
#: collapsing leaves it alone, replaced by two spaces when the line is finished.
_CELL: Final = "\ue000"

_WS_RE: Final = re.compile(r"\s+")
_CELL_RE: Final = re.compile(r"\s*(?:\ue000\s*)+")

_DROP_TAGS: Final = frozenset(
    {"script", "style", "head", "title", "meta", "link", "noscript", "template", "ix:header"}
)
#: Blocks that a browser separates from their neighbours by a margin (a blank
#: line in text) unless the inline style zeroes it.
_GAP_BLOCKS: Final = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "dl",
        "table",
        "listing",
        "xmp",
        "plaintext",
        "figure",
    }
)
#: Blocks that only start a new line.
_LINE_BLOCKS: Final = frozenset(
    {
        "div",
        "center",
        "li",
        "tr",
        "td",
        "th",
        "dd",
        "dt",
        "address",
        "article",
        "aside",
        "caption",
        "fieldset",
        "footer",
        "form",
        "header",
        "main",
        "nav",
        "section",
        "tbody",
        "thead",
        "tfoot",
        "body",
        "html",
        "document",
        "text",
        "hgroup",
        "details",
        "summary",
        "figcaption",
        "legend",
        "menu",
        "dir",
    }
)
_PRE_TAGS: Final = frozenset({"pre", "listing", "xmp", "plaintext"})
_CELL_TAGS: Final = frozenset({"td", "th"})

_CHARSET_RE: Final = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
_XML_DECL_RE: Final = re.compile(
    rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
_XML_DECL_STR_RE: Final = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_PAGE_BREAK_STYLE_RE: Final = re.compile(
    r"(?:page-break-|break-)(before|after)\s*:\s*(always|page|left|right|recto|verso)",
    re.IGNORECASE,
)
_DISPLAY_NONE_RE: Final = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_MARGIN_RE: Final = re.compile(r"(?<![\w-])margin(-top|-bottom)?\s*:\s*([^;]+)", re.IGNORECASE)
_LENGTH_RE: Final = re.compile(r"^(-?[\d.]+)\s*(pt|px|em|rem|in|cm|mm|pc|ex|%)?$", re.IGNORECASE)
#: Any tag, comment or declaration other than EDGAR's SGML ``<PAGE>``.
_HAS_MARKUP_RE: Final = re.compile(r"<(?!/?PAGE>)[A-Za-z!?/]", re.IGNORECASE)
#: Purely presentational inline tags.  They add nothing to the text, and EDGAR
#: filers often leave them unclosed (``<font size=2>`` per paragraph), which
#: nests the tree one level deeper each time; libxml2 silently stops parsing
#: at its depth limit, losing the rest of the document.  Removing them first
#: keeps the tree shallow.  ``span`` is kept: it may carry ``display:none``.
_INLINE_FORMAT_RE: Final = re.compile(
    r"</?(?:font|b|i|u|s|em|strong|small|big|tt|strike|basefont)\b[^>]*>", re.IGNORECASE
)
_EDGAR_TEXT_RE: Final = re.compile(r"<TEXT>(.*?)(?:</TEXT>|\Z)", re.IGNORECASE | re.DOTALL)

#: Vertical margin (in points) from which a block is shown with a blank line.
_GAP_PT: Final = 6.0
_POINTS_PER_UNIT: Final[dict[str, float]] = {
    "pt": 1.0,
    "px": 0.75,
    "em": 12.0,
    "rem": 12.0,
    "in": 72.0,
    "cm": 28.35,
    "mm": 2.835,
    "pc": 12.0,
    "ex": 6.0,
    "": 0.75,
    "%": 0.0,
}
#: Labels that browsers (per the WHATWG encoding standard) decode as
#: windows-1252; EDGAR filers routinely declare iso-8859-1 and use 0x93/0x94
#: curly quotes.
_CP1252_ALIASES: Final = frozenset({"iso8859-1", "latin-1", "latin1", "ascii", "us-ascii"})


def _extract_html(data: bytes) -> ExtractedText:
    """Render HTML to lines of text the way it reads in a browser.

    lxml.html (libxml2) is used because EDGAR HTML is frequently malformed
    (unclosed ``<font>`` soup, stray SGML ``<PAGE>`` tags) and lxml recovers
    like a browser does.
    """
    markup, warnings = _decode_html(data)
    markup = markup.replace("\x00", "")
    markup = _unwrap_edgar_document(markup)
    # lxml refuses str input carrying an XML encoding declaration (XHTML).
    markup = _XML_DECL_STR_RE.sub("", markup, count=1)
    if markup.strip() and not _HAS_MARKUP_RE.search(markup):
        # Plain text saved with an .htm name: keep its line structure.
        markup = "<pre>" + markup.replace("&", "&amp;").replace("<", "&lt;") + "</pre>"
        markup = re.sub(r"&lt;(/?PAGE)>", r"<\1>", markup, flags=re.IGNORECASE)

    markup = _INLINE_FORMAT_RE.sub("", markup)

    # huge_tree raises libxml2's nesting limit from 256 to 2048 levels.
    parser = lxml.html.HTMLParser(huge_tree=True)
    try:
        root = lxml.html.document_fromstring(markup, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        if "empty" in str(exc).lower():
            raise ExtractionError("no_text", "The HTML file contains no readable text.") from None
        raise ExtractionError("corrupt", "The HTML file could not be read.") from None

    text = _assemble(_HtmlRenderer().render(root))
    if not text.strip():
        raise ExtractionError("no_text", "The HTML file contains no readable text.")
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        warnings.append(
            "The HTML is nested too deeply to read in full; text near the end may be missing."
        )
    return ExtractedText(
        text=text, media_type=MEDIA_TYPE_HTML, pages=None, warnings=tuple(warnings)
    )


def _decode_html(data: bytes) -> tuple[str, list[str]]:
    """Decode using the BOM or declared charset, else UTF-8 then cp1252."""
    warnings: list[str] = []
    if data.startswith(codecs.BOM_UTF8):
        declared: str | None = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        declared = "utf-16"
    else:
        head = data[:8192]
        m = _XML_DECL_RE.search(head) or _CHARSET_RE.search(head)
        declared = m.group(1).decode("ascii", "replace").lower() if m else None
        if declared and declared.replace("-", "").startswith(("utf16", "utf32")):
            # A UTF-16 label in an ASCII-readable file is wrong by definition
            # (browsers treat it as UTF-8 too); decoding as UTF-16 gives garbage.
            declared = "utf-8"

    if declared is not None:
        try:
            codec = codecs.lookup(declared).name
        except LookupError:
            warnings.append(
                f'The declared character set "{declared}" is unknown; the file was read as '
                "UTF-8 or Windows-1252."
            )
            codec = None
        if codec is not None:
            if codec in _CP1252_ALIASES:
                codec = "cp1252"
            try:
                return data.decode(codec), warnings
            except UnicodeDecodeError:
                text, used = _decode_with_fallback(data, ("utf-8", "cp1252", "latin-1"))
                warnings.append(
                    f'The file does not match its declared character set "{declared}"; '
                    f"it was read as {_codec_label(used)}."
                )
                return text, warnings

    text, used = _decode_with_fallback(data, ("utf-8", "cp1252", "latin-1"))
    if used != "utf-8" and declared is None:
        warnings.append(f"The file is not valid UTF-8; it was read as {_codec_label(used)}.")
    return text, warnings


def _unwrap_edgar_document(markup: str) -> str:
    """Keep only the ``<TEXT>`` bodies of an EDGAR ``<DOCUMENT>`` wrapper.

    The header fields (``<TYPE>EX-10.1``, ``<SEQUENCE>``, ``<FILENAME>``...) are
    SGML, not HTML; left in, libxml2 nests the whole exhibit inside ``<type>``
    and the filing metadata would read as the first line of the agreement.
    """
    head = markup[:4096]
    text_at = head.upper().find("<TEXT>")
    if text_at < 0 or "<TYPE>" not in head[:text_at].upper():
        return markup
    bodies = [m.group(1) for m in _EDGAR_TEXT_RE.finditer(markup)]
    # Several documents in one file: keep them all, separated by a page break.
    return "<hr>".join(bodies) if bodies else markup


def _style_points(value: str) -> float | None:
    m = _LENGTH_RE.match(value.strip().lower().replace("!important", "").strip())
    if not m:
        return None
    try:
        number = float(m.group(1))
    except ValueError:
        return None
    return number * _POINTS_PER_UNIT[m.group(2) or ""]


def _vertical_gaps(tag: str, style: str) -> tuple[bool, bool]:
    """Whether a block has a visible margin above / below it.

    Browsers give ``<p>`` and headings a 1em margin by default; EDGAR
    generators either rely on that or set ``margin-top:12pt`` on ``<div>``s.
    Turning a visible margin into a blank line keeps paragraph structure for
    both styles without inventing blank lines inside address blocks that use
    ``margin:0``.
    """
    default = 12.0 if tag in _GAP_BLOCKS else 0.0
    top = bottom = default
    for m in _MARGIN_RE.finditer(style):
        side, raw = (m.group(1) or "").lower(), m.group(2).strip()
        if side == "-top":
            top = _style_points(raw) or 0.0
        elif side == "-bottom":
            bottom = _style_points(raw) or 0.0
        else:
            parts = [(_style_points(p) or 0.0) for p in raw.split()]
            if parts:
                top = parts[0]
                bottom = parts[2] if len(parts) >= 3 else parts[0]
    return top >= _GAP_PT, bottom >= _GAP_PT


class _HtmlRenderer:
    """Walks an lxml tree and builds lines, iteratively.

    An explicit stack rather than recursion, because unclosed-tag soup and
    repeated EDGAR ``<PAGE>`` tags nest arbitrarily deep and would hit Python's
    recursion limit on large filings.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.cur: list[str] = []
        self.cur_pre = False
        self.pre_depth = 0
        self.flat_depth = 0  # >0 inside a table row rendered on one line
        self.pre_first_text = False

    # -- line building -----------------------------------------------------

    def end_line(self, *, force: bool = False) -> None:
        """Finish the current line; ``force`` keeps it even if empty (``<br><br>``)."""
        raw = "".join(self.cur)
        if self.cur_pre:
            line = raw.replace("\xa0", " ").rstrip()
        else:
            line = _WS_RE.sub(" ", raw)
            line = _CELL_RE.sub("  ", line) if _CELL in line else line
            line = line.strip()
        if line or force:
            self.lines.append(line)
        self.cur = []
        self.cur_pre = False

    def gap(self) -> None:
        self.end_line()
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    def boundary(self, gap: bool) -> None:
        if self.flat_depth:
            self.cur.append(" ")
        elif gap:
            self.gap()
        else:
            self.end_line()

    def page_break(self) -> None:
        if self.flat_depth:
            self.cur.append(" ")
            return
        self.end_line()
        self.lines.append(_PB)

    def text(self, s: str | None) -> None:
        if not s:
            return
        if self.pre_depth and not self.flat_depth:
            if self.pre_first_text:
                # HTML ignores one newline right after <pre>.
                self.pre_first_text = False
                if s.startswith("\r\n"):
                    s = s[2:]
                elif s.startswith("\n"):
                    s = s[1:]
            s = s.replace("\r\n", "\n").replace("\r", "\n")
            for i, chunk in enumerate(s.split("\n")):
                if i:
                    self.end_line(force=True)
                pages = chunk.split("\f")
                for j, part in enumerate(pages):
                    if j:
                        self.page_break()
                    if part:
                        self.cur.append(part)
                        self.cur_pre = True
            return
        self.cur.append(s)

    # -- tree walk ---------------------------------------------------------

    def render(self, root: Any) -> list[str]:
        stack: list[tuple[str, Any]] = [("start", root)]
        while stack:
            kind, item = stack.pop()
            if kind == "text":
                self.text(item)
            elif kind == "end":
                self._end(item)
            else:
                self._start(item, stack)
        self.end_line()
        return self.lines

    def _start(self, el: Any, stack: list[tuple[str, Any]]) -> None:
        tag = el.tag.lower() if isinstance(el.tag, str) else None
        if tag is None or tag in _DROP_TAGS:
            return  # comments, processing instructions, dropped subtrees
        style = el.get("style") or ""
        if style and _DISPLAY_NONE_RE.search(style):
            return  # e.g. hidden inline-XBRL facts

        if tag == "tr" and not self.flat_depth:
            cells = [c for c in el if isinstance(c.tag, str) and c.tag.lower() in _CELL_TAGS]
            filled = sum(1 for c in cells if c.text_content().replace("\xa0", " ").strip())
            flatten = filled > 1
        else:
            flatten = False

        gap_before = gap_after = False
        if tag in _GAP_BLOCKS or tag in _LINE_BLOCKS:
            gap_before, gap_after = _vertical_gaps(tag, style)
            self.boundary(gap_before)
        if tag == "hr" or tag == "page":
            self.page_break()
        elif tag == "br":
            if self.flat_depth:
                self.cur.append(" ")
            else:
                self.end_line(force=True)
        if tag in _CELL_TAGS and self.flat_depth:
            self.cur.append(_CELL)

        breaks = _PAGE_BREAK_STYLE_RE.findall(style) if style else []
        if any(side.lower() == "before" for side, _ in breaks):
            self.page_break()
        if tag in _PRE_TAGS:
            self.pre_depth += 1
            self.pre_first_text = True
        if flatten:
            self.flat_depth += 1

        stack.append(("end", (el, tag, gap_after, flatten, breaks)))
        for child in reversed(el):
            stack.append(("text", child.tail))
            stack.append(("start", child))
        stack.append(("text", el.text))

    def _end(self, item: tuple[Any, str, bool, bool, list[tuple[str, str]]]) -> None:
        _el, tag, gap_after, flatten, breaks = item
        if tag in _PRE_TAGS:
            self.end_line()
            self.pre_depth -= 1
        if flatten:
            self.flat_depth -= 1
        if tag in _GAP_BLOCKS or tag in _LINE_BLOCKS:
            self.boundary(gap_after)
        if tag in _CELL_TAGS and self.flat_depth:
            self.cur.append(_CELL)
        if any(side.lower() == "after" for side, _ in breaks):
            self.page_break()


def _assemble(lines: Iterable[str]) -> str:
    """Join builder lines: one blank line at most, page breaks as the marker.

    Page breaks at the very start or end, or with nothing but blank lines
    between them (``<hr style="page-break-after:always">`` is both), collapse
    because an empty "page" tells the reader nothing.
    """
    out: list[str] = []
    pending_break = False
    for line in lines:
        if line == _PB:
            pending_break = bool(out)
            continue
        if line == "":
            if out and out[-1] != "":
                out.append("")
            continue
        if pending_break:
            while out and out[-1] == "":
                out.pop()
            out.extend(["", PAGE_BREAK_LINE, ""])
            pending_break = False
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out)


# ---------------------------------------------------------------------------
# PDF

_LIGATURES: Final = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
        "\x00": None,
    }
)


_ENCRYPTED_MESSAGE: Final = (
    "The PDF is password-protected; remove the password and upload it again."
)


def _extract_pdf(data: bytes) -> ExtractedText:
    """Extract the PDF text layer page by page.

    pypdf's default extraction mode is used.  Measured on a weasyprint-rendered
    agreement (headings, a rate table, a two-column block): "layout" mode
    produced the same words but interleaved the two columns line by line
    ("...first column  here with more words...") and padded table rows with
    runs of spaces, while the default kept each column's text in reading
    order.  Layout's only gain was blank lines between paragraphs, which
    matters less than quotable, correctly ordered sentences.
    """
    if not data.lstrip().startswith(b"%PDF"):
        raise ExtractionError(
            "corrupt", "The file is named .pdf but is not a PDF (it does not start with %PDF)."
        )
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                # Owner-password-only PDFs (print/copy restrictions) open with
                # the empty user password; anything else needs the password.
                ok = bool(reader.decrypt(""))
            except (DependencyError, NotImplementedError):
                ok = False  # an encryption scheme we cannot open
            if not ok:
                raise ExtractionError("encrypted", _ENCRYPTED_MESSAGE)
        page_count = len(reader.pages)
    except ExtractionError:
        raise
    except FileNotDecryptedError:
        raise ExtractionError("encrypted", _ENCRYPTED_MESSAGE) from None
    except Exception:  # noqa: BLE001 - pypdf raises many types on damaged input
        raise ExtractionError("corrupt", "The PDF is damaged and could not be read.") from None

    if page_count == 0:
        raise ExtractionError("no_text", "The PDF has no pages.")

    texts: list[str] = []
    failed: list[int] = []
    blank: list[int] = []
    for number in range(1, page_count + 1):
        try:
            page_text = reader.pages[number - 1].extract_text() or ""
        except Exception:  # noqa: BLE001 - one bad page must not lose the rest
            failed.append(number)
            page_text = ""
        page_text = page_text.translate(_LIGATURES).strip("\n").rstrip()
        if number not in failed and not page_text.strip():
            blank.append(number)
        texts.append(page_text)

    if len(failed) == page_count:
        raise ExtractionError("corrupt", "The PDF is damaged and none of its pages could be read.")

    text = PDF_PAGE_SEPARATOR.join(texts)
    if _count_visible(text) < MIN_PDF_CHARS_PER_PAGE * page_count:
        raise ExtractionError(
            "no_text",
            "The PDF appears to be scanned images without a text layer; "
            "run it through OCR first and upload the result.",
        )

    warnings: list[str] = []
    if failed:
        noun = "Page" if len(failed) == 1 else "Pages"
        warnings.append(
            f"{noun} {_format_pages(failed)} could not be read and "
            f"{'was' if len(failed) == 1 else 'were'} left out."
        )
    if blank:
        noun = "page" if len(blank) == 1 else "pages"
        warnings.append(
            f"No text was found on {noun} {_format_pages(blank)}; "
            "they may be scanned images that need OCR."
        )
    return ExtractedText(
        text=text, media_type=MEDIA_TYPE_PDF, pages=page_count, warnings=tuple(warnings)
    )


# ---------------------------------------------------------------------------
# DOCX

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


def _extract_docx(data: bytes, *, max_bytes: int) -> ExtractedText:
    """Extract body text from a Word document in reading order.

    python-docx opens the package; the body XML is then walked directly
    rather than through ``Paragraph.text`` / ``Table.rows``, because those
    skip text in tracked insertions and content controls and repeat the text
    of merged cells once per grid column.
    """
    not_docx = "The file is named .docx but is not a Word document, or it is damaged."
    if not data.startswith(b"PK"):
        raise ExtractionError("corrupt", not_docx)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            names = {i.filename for i in infos}
            expanded = sum(i.file_size for i in infos)
    except Exception:  # noqa: BLE001 - BadZipFile, NotImplementedError, OSError...
        raise ExtractionError("corrupt", not_docx) from None
    if "[Content_Types].xml" not in names or not any(n.startswith("word/") for n in names):
        raise ExtractionError("corrupt", not_docx)
    # python-docx inflates every part into memory; refuse zip bombs up front.
    expand_limit = max(20 * max_bytes, 100 * 1024 * 1024)
    if expanded > expand_limit:
        raise ExtractionError(
            "too_large",
            f"The Word document is too large: it expands to {_human_size(expanded)}, "
            f"over the {_human_size(expand_limit)} limit.",
        )
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
