"""HTML (``.htm``/``.html``), typically SEC EDGAR exhibits.

Decoding (BOM, declared charset, browser-style fallbacks), unwrapping the
EDGAR ``<DOCUMENT>`` envelope and parsing with lxml live here; the tree walk
that turns elements into lines is in :mod:`.html_render`.
"""

from __future__ import annotations

import codecs
import re
from typing import Final

import lxml.etree
import lxml.html

from .errors import MEDIA_TYPE_HTML, ExtractedText, ExtractionError, ExtractLimits
from .html_render import _HtmlRenderer
from .lines import _assemble
from .text import _codec_label, _decode_with_fallback

_CHARSET_RE: Final = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
_XML_DECL_RE: Final = re.compile(
    rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)""", re.IGNORECASE
)
_XML_DECL_STR_RE: Final = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
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

#: Labels that browsers (per the WHATWG encoding standard) decode as
#: windows-1252; EDGAR filers routinely declare iso-8859-1 and use 0x93/0x94
#: curly quotes.
_CP1252_ALIASES: Final = frozenset({"iso8859-1", "latin-1", "latin1", "ascii", "us-ascii"})


def _extract_html(data: bytes, *, limits: ExtractLimits) -> ExtractedText:
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

    parser, root = _parse(markup, huge=False)
    if _hit_limit(parser) and len(data) <= limits.html_huge_bytes:
        # huge_tree raises libxml2's nesting limit from 256 to 2048 levels, and lifts its other
        # safety limits with it; so only for a file that needs it and is small enough.
        parser, root = _parse(markup, huge=True)

    text = _assemble(_HtmlRenderer().render(root))
    if not text.strip():
        raise ExtractionError("no_text", "The HTML file contains no readable text.")
    if _hit_limit(parser):
        warnings.append(
            "The HTML is nested too deeply to read in full; text near the end may be missing."
        )
    return ExtractedText(
        text=text, media_type=MEDIA_TYPE_HTML, pages=None, warnings=tuple(warnings)
    )


def _parse(markup: str, *, huge: bool) -> tuple[lxml.html.HTMLParser, lxml.html.HtmlElement]:
    parser = lxml.html.HTMLParser(huge_tree=huge)
    try:
        return parser, lxml.html.document_fromstring(markup, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        if "empty" in str(exc).lower():
            raise ExtractionError("no_text", "The HTML file contains no readable text.") from None
        raise ExtractionError("corrupt", "The HTML file could not be read.") from None


def _hit_limit(parser: lxml.html.HTMLParser) -> bool:
    """Whether libxml2 stopped at one of its limits (nesting depth, most often)."""
    return any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log)


#: Codecs Python can look up that no web page is written in.
_NOT_CHARSETS: Final = frozenset(
    {"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined", "utf-7", "mbcs"}
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
            info = codecs.lookup(declared)
            # Python knows codecs that are no character set of a web page (rot13, base64,
            # punycode, unicode_escape ...): treat them as unknown, as a browser would.
            if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
                raise LookupError(declared)
            codec = info.name
        except LookupError:
            warnings.append(
                f'The declared character set "{declared}" is not one a web page can use; the '
                "file was read as UTF-8 or Windows-1252."
            )
            codec = None
        if codec is not None:
            if codec in _CP1252_ALIASES:
                codec = "cp1252"
            try:
                return data.decode(codec), warnings
            except (UnicodeError, ValueError, TypeError):  # bytes the declared set cannot read
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
