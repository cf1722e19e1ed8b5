"""PDF: pypdf's text layer, pages joined with :data:`PDF_PAGE_SEPARATOR`."""

from __future__ import annotations

import io
from typing import Final

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError
from pypdf.generic import IndirectObject

from . import ocr as ocr_
from .errors import (
    MEDIA_TYPE_PDF,
    MIN_PDF_CHARS_PER_PAGE,
    PDF_PAGE_SEPARATOR,
    ExtractedText,
    ExtractionError,
    ExtractLimits,
)

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


def _open(data: bytes, limits: ExtractLimits) -> PdfReader:
    """The PDF opened (decrypted with the empty password where that is all it takes) and its
    page count checked, or an ``ExtractionError`` saying why not."""
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
        _check_pages(reader, limits.pdf_pages)
        len(reader.pages)  # a damaged page tree fails here, as corrupt
    except ExtractionError:
        raise
    except FileNotDecryptedError:
        raise ExtractionError("encrypted", _ENCRYPTED_MESSAGE) from None
    except Exception:  # noqa: BLE001 - pypdf raises many types on damaged input
        raise ExtractionError("corrupt", "The PDF is damaged and could not be read.") from None
    return reader


def _page_texts(reader: PdfReader, page_count: int) -> tuple[list[str], list[int], list[int]]:
    """Each page's text, and the numbers of the pages that failed and that were blank."""
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
    return texts, failed, blank


def _extract_pdf(
    data: bytes,
    *,
    limits: ExtractLimits,
    ocr: ocr_.OcrOptions | None = None,
    scanned: bool = False,
    media_type: str = MEDIA_TYPE_PDF,
) -> ExtractedText:
    """Extract the PDF text layer page by page.

    pypdf's default extraction mode is used.  Measured on a weasyprint-rendered
    agreement (headings, a rate table, a two-column block): "layout" mode
    produced the same words but interleaved the two columns line by line
    ("...first column  here with more words...") and padded table rows with
    runs of spaces, while the default kept each column's text in reading
    order.  Layout's only gain was blank lines between paragraphs, which
    matters less than quotable, correctly ordered sentences.

    A PDF with more than ``limits.pdf_pages`` pages is refused before any page is read (see
    :func:`_check_pages`); pypdf itself caps what one stream may inflate to (75 MB), and the
    indexing job's time limit bounds the rest.

    With ``ocr`` enabled, a PDF whose text layer is too thin to be real text (a scan) has every
    page read by OCR, and a text PDF with blank pages has those pages read; ``scanned`` says the
    PDF was made here from an image, so every page is read.
    """
    if not data.lstrip().startswith(b"%PDF"):
        raise ExtractionError(
            "corrupt", "The file is named .pdf but is not a PDF (it does not start with %PDF)."
        )
    reader = _open(data, limits)
    page_count = len(reader.pages)

    if page_count == 0:
        raise ExtractionError("no_text", "The PDF has no pages.")

    texts, failed, blank = _page_texts(reader, page_count)

    if len(failed) == page_count:
        raise ExtractionError("corrupt", "The PDF is damaged and none of its pages could be read.")

    thin = scanned or _count_visible("".join(texts)) < MIN_PDF_CHARS_PER_PAGE * page_count
    report = None
    if ocr is not None and ocr.enabled and (thin or blank):
        read, report = ocr_.ocr_pdf(
            data, page_count=page_count, only=None if thin else blank, options=ocr
        )
        if thin:
            texts, failed = read, []
        else:
            texts = [read[n - 1] if n in blank else t for n, t in enumerate(texts, 1)]
        blank = [n for n, t in enumerate(texts, 1) if not t.strip()]
        if _count_visible("".join(texts)) == 0:
            raise ExtractionError("no_text", "OCR found no text on any page of the file.")
    elif thin:
        raise ExtractionError(
            "no_text",
            "The PDF appears to be scanned images without a text layer, and OCR is turned off "
            "on this server (LEGALNAV_OCR=0); ask an administrator, or run it through OCR and "
            "upload the result.",
        )
    text = PDF_PAGE_SEPARATOR.join(texts)

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
            f"No text was found on {noun} {_format_pages(blank)}"
            + ("." if report else "; they may be scanned images that need OCR.")
        )
    if report is not None and report.low_pages:
        noun = "Page" if len(report.low_pages) == 1 else "Pages"
        warnings.append(
            f"{noun} {_format_pages(report.low_pages)} read by OCR with low confidence "
            f"(below {report.floor:.0f}%); check {'it' if len(report.low_pages) == 1 else 'them'} "
            "against the scan."
        )
    return ExtractedText(
        text=text,
        media_type=media_type,
        pages=page_count,
        warnings=tuple(warnings),
        ocr=report,
    )


def _too_many_pages(count: str, limit: int) -> ExtractionError:
    return ExtractionError(
        "too_large",
        f"The PDF has {count} pages, over the limit of {limit:,}; split it and upload the parts.",
    )


def _check_pages(reader: PdfReader, limit: int) -> None:
    """Refuse a PDF of more than ``limit`` pages, before pypdf lists them all.

    ``len(reader.pages)`` walks the whole page tree and keeps every page, whatever the file
    declares; so the declared ``/Count`` is checked first, and then the tree is walked here,
    stopping as soon as it passes the limit (a ``/Count`` may lie, a tree may loop).
    """
    pages_root = reader.trailer["/Root"].get_object()["/Pages"].get_object()
    declared = pages_root.get("/Count")
    if isinstance(declared, int) and declared > limit:
        raise _too_many_pages(f"{declared:,}", limit)
    stack: list[object] = [pages_root]
    seen: set[tuple[int, int]] = set()
    pages = nodes = 0
    while stack:
        item = stack.pop()
        node = item.get_object() if isinstance(item, IndirectObject) else item
        kids = node.get("/Kids") if hasattr(node, "get") else None
        if kids is None:
            pages += 1  # a page listed twice is read twice: count each listing
            if pages > limit:
                raise _too_many_pages(f"more than {limit:,}", limit)
            continue
        if isinstance(item, IndirectObject):
            key = (item.idnum, item.generation)
            if key in seen:
                continue  # a page tree that loops: each inner node once
            seen.add(key)
        nodes += 1
        if nodes > limit + 1000:  # inner nodes without end
            raise _too_many_pages(f"more than {limit:,}", limit)
        stack.extend(reversed(list(kids.get_object())))


def _count_visible(text: str) -> int:
    """Number of non-whitespace characters, the measure of "has real text"."""
    return sum(1 for ch in text if not ch.isspace())


def _format_pages(pages: list[int], limit: int = 10) -> str:
    shown = ", ".join(str(p) for p in pages[:limit])
    if len(pages) > limit:
        shown += f" and {len(pages) - limit} more"
    return shown
