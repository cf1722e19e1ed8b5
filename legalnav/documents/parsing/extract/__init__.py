"""Turn an uploaded file's bytes into plain text, or say clearly why we can't.

This package is deliberately pure: no Django, no ORM, no I/O beyond the bytes it
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
  ("scanned") PDFs, and pages without a text layer, are read by OCR (:mod:`.ocr`:
  OCRmyPDF and Tesseract) when the caller passes :class:`OcrOptions`; without
  them a scan is rejected with ``no_text``, because silently indexing a handful
  of stray characters would make the document look searchable when it is not.
* ``.tif``/``.tiff``/``.png``/``.jpg``/``.jpeg`` - made into a PDF of one page
  per frame (each frame's pixels checked from its header first) and read by OCR.
* ``.docx`` - body paragraphs and tables in document order; headers, footers,
  footnotes and comments are excluded.

Layout of this package:

* :mod:`.errors` - :class:`ExtractionError`, :class:`ExtractedText` and the
  constants (error codes, media types, page-break conventions).
* :mod:`.text`, :mod:`.html` (with :mod:`.html_render`), :mod:`.pdf`,
  :mod:`.docx` - one extractor per format; only these import the third-party
  parsers (lxml, pypdf, python-docx).
* :mod:`.lines` - the line builder shared by the HTML and DOCX extractors.
* this module - :func:`extract_text`: size, emptiness and type checks, then
  dispatch on the file name's extension, with the :class:`ExtractLimits` that
  bound each parser's work (zip parts and expansion, PDF pages, HTML depth).
"""

from __future__ import annotations

from .docx import _extract_docx
from .errors import (
    ERROR_CODES,
    MEDIA_TYPES,
    PAGE_BREAK_LINE,
    SUPPORTED_EXTENSIONS,
    ExtractedText,
    ExtractionError,
    ExtractLimits,
    _human_size,
)
from .errors import MEDIA_TYPE_DOCX as MEDIA_TYPE_DOCX
from .errors import MEDIA_TYPE_HTML as MEDIA_TYPE_HTML
from .errors import MEDIA_TYPE_PDF as MEDIA_TYPE_PDF
from .errors import MEDIA_TYPE_TXT as MEDIA_TYPE_TXT
from .errors import MIN_PDF_CHARS_PER_PAGE as MIN_PDF_CHARS_PER_PAGE
from .errors import PDF_PAGE_SEPARATOR as PDF_PAGE_SEPARATOR
from .html import _extract_html
from .ocr import IMAGE_EXTENSIONS, OcrOptions, OcrReport, image_media_type, image_to_pdf
from .pdf import _extract_pdf
from .text import _extract_txt

__all__ = [
    "ERROR_CODES",
    "MEDIA_TYPES",
    "PAGE_BREAK_LINE",
    "SUPPORTED_EXTENSIONS",
    "ExtractLimits",
    "ExtractedText",
    "ExtractionError",
    "OcrOptions",
    "OcrReport",
    "extract_text",
]


def extract_text(
    data: bytes,
    filename: str,
    *,
    max_bytes: int,
    limits: ExtractLimits | None = None,
    ocr: OcrOptions | None = None,
) -> ExtractedText:
    """Extract the text of an uploaded file.

    The type is chosen from the file name's extension (case-insensitive) and
    then confirmed by sniffing the first bytes, because a renamed file should
    fail as "corrupt" with a clear message rather than crash a parser deep
    inside a worker.

    ``limits`` bounds what the file may cost to parse (see :class:`ExtractLimits`); a file past
    them fails with ``too_large`` before its parser sees it.

    ``ocr`` lets scanned PDFs, PDF pages without text and images be read by OCR; without it
    they fail with ``no_text`` (an image: ``unknown_type``).

    Raises :class:`ExtractionError` for every expected failure.
    """
    limits = limits or ExtractLimits()
    if max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    if len(data) == 0 or data.isspace():
        raise ExtractionError("empty", "The file is empty.")
    if len(data) > max_bytes:
        raise ExtractionError("too_large", _too_large_message(len(data), max_bytes))

    ext = _extension(filename)
    if ext not in SUPPORTED_EXTENSIONS:
        raise ExtractionError("unknown_type", _unknown_type_message(filename, ext))

    try:
        if ext == ".txt":
            return _extract_txt(data)
        if ext in (".htm", ".html"):
            return _extract_html(data, limits=limits)
        if ext == ".pdf":
            return _extract_pdf(data, limits=limits, ocr=ocr)
        if ext in IMAGE_EXTENSIONS:
            return _extract_image(data, filename, limits=limits, ocr=ocr)
        return _extract_docx(data, limits=limits)
    except (UnicodeError, LookupError) as exc:
        # Any decoding problem a reader did not foresee (a codec that refuses these bytes, a
        # character set Python does not know) is a file we cannot read, never a crash.
        raise ExtractionError(
            "unreadable",
            f"The file's text could not be decoded ({exc.__class__.__name__}); save it again as "
            "UTF-8 or as a PDF and upload that.",
        ) from None


def _extract_image(
    data: bytes, filename: str, *, limits: ExtractLimits, ocr: OcrOptions | None
) -> ExtractedText:
    media_type = image_media_type(data)
    if media_type is None:
        raise ExtractionError(
            "corrupt", f'"{filename}" is named as an image but is not a TIFF, PNG or JPEG.'
        )
    if ocr is None or not ocr.enabled:
        raise ExtractionError(
            "unknown_type",
            "Images are read by OCR, which is turned off on this server (LEGALNAV_OCR=0).",
        )
    pdf = image_to_pdf(data, ocr)
    return _extract_pdf(pdf, limits=limits, ocr=ocr, scanned=True, media_type=media_type)


# ---------------------------------------------------------------------------
# Messages


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
