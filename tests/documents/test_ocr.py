"""Scanned PDFs, pages without a text layer and images are read by OCR (OCRmyPDF + Tesseract),
bounded, and a file OCR cannot read fails with its reason and can be retried."""

from __future__ import annotations

import io
import re
import struct
import zlib

import pytest
from PIL import Image
from pypdf import PdfReader, PdfWriter

from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.extract import ExtractionError, OcrOptions, extract_text
from legalnav.documents.services import document_add, document_index
from legalnav.evaluation import scans
from tests.conftest import demo_bytes

LIMIT = 50 * 1024 * 1024
OCR = OcrOptions(jobs=2, timeout_s=300)

# The opening of the demo's development agreement (a real EDGAR exhibit): two pages when set.
SOURCE = demo_bytes("bioamber-development-agreement.txt").decode("utf-8")
TEXT = "\n".join(line for line in SOURCE.splitlines()[:120] if line.strip())[:4200]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]{4,}", text.lower())


def recall(read: str, truth: str) -> float:
    """Share of the truth's words (4+ letters) that OCR read, counted with multiplicity."""
    got: dict[str, int] = {}
    for w in words(read):
        got[w] = got.get(w, 0) + 1
    hits = 0
    for w in words(truth):
        if got.get(w, 0) > 0:
            got[w] -= 1
            hits += 1
    return hits / len(words(truth))


@pytest.fixture(scope="module")
def scan_pages() -> list[bytes]:
    pdf = scans.typeset(TEXT)
    assert len(PdfReader(io.BytesIO(pdf)).pages) >= 2
    return scans.rasterise(pdf, scans.ScanStyle(rotated=(2,), seed=7))


@pytest.fixture(scope="module")
def scan_pdf(scan_pages: list[bytes]) -> bytes:
    return scans.bind(scan_pages)


@pytest.fixture(scope="module")
def scanned(scan_pdf: bytes):  # type: ignore[no-untyped-def]
    return extract_text(scan_pdf, "scan.pdf", max_bytes=LIMIT, ocr=OCR)


def test_the_scan_really_has_no_text(scan_pdf: bytes) -> None:
    reader = PdfReader(io.BytesIO(scan_pdf))
    assert all(not (p.extract_text() or "").strip() for p in reader.pages)
    with pytest.raises(ExtractionError) as err:
        extract_text(scan_pdf, "scan.pdf", max_bytes=LIMIT)  # no OCR offered
    assert err.value.code == "no_text" and "OCR" in err.value.message


def test_a_scanned_pdf_is_read_page_by_page_with_its_confidence(scanned, scan_pdf) -> None:
    pages = len(PdfReader(io.BytesIO(scan_pdf)).pages)
    assert scanned.pages == pages
    assert scanned.text.count("\f") == pages - 1  # page numbers kept
    assert recall(scanned.text, TEXT) > 0.95
    report = scanned.ocr
    assert report is not None and [p.number for p in report.pages] == list(range(1, pages + 1))
    assert "Tesseract" in report.engine and "OCRmyPDF" in report.engine
    assert all(p.words > 50 and p.confidence is not None for p in report.pages)
    assert report.mean_confidence is not None and report.mean_confidence > report.floor
    assert report.low_pages == [] and scanned.warnings == ()


def test_a_page_fed_in_sideways_is_turned_and_read(scanned) -> None:
    second = scanned.text.split("\f")[1]
    truth_second = TEXT[len(TEXT) // 2 :]
    assert recall(second, truth_second) > 0.5  # read upright, not as noise
    assert min(p.confidence or 0 for p in scanned.ocr.pages) > 80


def test_pages_below_the_floor_are_flagged(scan_pdf: bytes) -> None:
    strict = OcrOptions(jobs=2, confidence_floor=99.5)
    result = extract_text(scan_pdf, "scan.pdf", max_bytes=LIMIT, ocr=strict)
    assert result.ocr is not None and result.ocr.low_pages == [1, 2]
    assert any("low confidence" in w and "1, 2" in w for w in result.warnings)


def test_only_the_pages_without_text_are_read(scan_pages: list[bytes]) -> None:
    text_page = scans.typeset("This page has a real text layer: Section 9.4 Governing Law.")
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(text_page)))
    writer.append(PdfReader(io.BytesIO(scans.bind(scan_pages[:1]))))
    buf = io.BytesIO()
    writer.write(buf)
    result = extract_text(buf.getvalue(), "mixed.pdf", max_bytes=LIMIT, ocr=OCR)
    first, second = result.text.split("\f")
    assert "Section 9.4 Governing Law" in first  # the text layer, as it was
    assert recall(second, TEXT[: len(TEXT) // 2]) > 0.5
    assert [p.number for p in result.ocr.pages] == [2]


def test_images_are_read_png_and_every_frame_of_a_tiff(scan_pages: list[bytes]) -> None:
    png = extract_text(scan_pages[0], "page.png", max_bytes=LIMIT, ocr=OCR)
    assert png.media_type == "image/png" and png.pages == 1
    assert recall(png.text, TEXT[: len(TEXT) // 2]) > 0.5
    frames = [Image.open(io.BytesIO(p)) for p in scan_pages]
    buf = io.BytesIO()
    frames[0].save(buf, "TIFF", save_all=True, append_images=frames[1:], dpi=(200, 200))
    tiff = extract_text(buf.getvalue(), "scan.tiff", max_bytes=LIMIT, ocr=OCR)
    assert tiff.media_type == "image/tiff" and tiff.pages == len(scan_pages)
    assert recall(tiff.text, TEXT) > 0.9


def _png_header_only(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` (a decompression bomb's shape)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("data", "name", "code"),
    [
        (_png_header_only(60_000, 60_000), "bomb.png", "too_large"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, "broken.png", "corrupt"),
        (b"%PDF-1.7 not an image", "fake.jpg", "corrupt"),
    ],
)
def test_images_that_cannot_be_read_say_why(data: bytes, name: str, code: str) -> None:
    with pytest.raises(ExtractionError) as err:
        extract_text(data, name, max_bytes=LIMIT, ocr=OCR)
    assert err.value.code == code and err.value.message


def test_ocr_that_runs_past_its_time_stops_with_the_reason(scan_pdf: bytes) -> None:
    with pytest.raises(ExtractionError) as err:
        extract_text(scan_pdf, "scan.pdf", max_bytes=LIMIT, ocr=OcrOptions(timeout_s=1))
    assert err.value.code == "unreadable" and "did not finish within 1 s" in err.value.message


def test_too_many_pages_for_ocr_are_refused(scan_pdf: bytes) -> None:
    with pytest.raises(ExtractionError) as err:
        extract_text(scan_pdf, "scan.pdf", max_bytes=LIMIT, ocr=OcrOptions(max_pages=1))
    assert err.value.code == "too_large" and "limit of 1" in err.value.message


@pytest.mark.django_db
def test_a_scan_uploaded_to_a_matter_is_indexed_and_says_it_was_read_by_ocr(
    matter, owner, client, scan_pdf: bytes, settings
) -> None:
    settings.LEGALNAV_OCR_JOBS = 2
    doc, _ = document_add(matter=matter, filename="signed copy.pdf", data=scan_pdf, enqueue=False)
    assert document_index(document_id=doc.pk).status == "indexed"
    doc.refresh_from_db()
    assert doc.status == Document.Status.INDEXED and Node.objects.filter(document=doc).exists()
    ocr = doc.extraction["ocr"]
    assert [p["page"] for p in ocr["pages"]] == [1, 2] and ocr["mean_confidence"] > 80
    assert "development" in doc.text.lower()
    client.force_login(owner)
    page = client.get(f"/documents/{doc.pk}/").content.decode()
    assert "Read by OCR." in page and "mean word confidence" in page


@pytest.mark.django_db
def test_a_scan_with_ocr_turned_off_fails_with_the_reason_and_retries(
    matter, scan_pdf: bytes, settings
) -> None:
    settings.LEGALNAV_OCR = False
    doc, _ = document_add(matter=matter, filename="scan.pdf", data=scan_pdf, enqueue=False)
    assert document_index(document_id=doc.pk).status == "failed"
    doc.refresh_from_db()
    assert doc.error_code == "no_text" and "LEGALNAV_OCR=0" in doc.error_message
    settings.LEGALNAV_OCR = True
    settings.LEGALNAV_OCR_JOBS = 2
    from legalnav.documents.services import document_reindex

    document_reindex(document=doc)
    assert document_index(document_id=doc.pk).status == "indexed"
