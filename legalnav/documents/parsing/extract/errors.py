"""The result and error types of text extraction, and the constants they use.

Nothing here imports a parser, so callers that only need to catch
:class:`ExtractionError` or check :data:`SUPPORTED_EXTENSIONS` stay cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .ocr import OcrReport

ERROR_CODES: Final[frozenset[str]] = frozenset(
    {"empty", "too_large", "unknown_type", "corrupt", "encrypted", "no_text", "unreadable"}
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
    # Images are read by OCR (see .ocr).
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
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
class ExtractLimits:
    """How much work one file may make, checked before a parser is given the file.

    A .docx is a zip: its central directory says how many parts it has and how large each
    expands, so a zip bomb is refused without inflating a byte (zipfile never produces more
    than a part's declared size). A PDF says how many pages it has. HTML is bounded by the upload
    size; libxml2's ``huge_tree`` (no limits on depth, text-node size) is used only for a file
    nested too deeply for the default limits and no larger than ``html_huge_bytes``.
    """

    expanded_bytes: int = 200 * 1024 * 1024
    zip_parts: int = 2000
    #: A part may expand at most this many times its compressed size (parts over 1 MiB).
    zip_ratio: int = 200
    pdf_pages: int = 2000
    html_huge_bytes: int = 10 * 1024 * 1024


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
    #: What OCR read, when it read any page (see .ocr.OcrReport).
    ocr: OcrReport | None = None


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
