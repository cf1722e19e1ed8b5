"""Hostile files are refused before they are parsed: a DOCX zip bomb (about 1 MB expanding to
950 MB) in well under a second and 200 MB, zips of too many parts or too high a ratio, a PDF over
the page bound (declared or hidden behind a false /Count), and HTML parsed without libxml2's
huge_tree unless it needs it and is small."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from legalnav.bench.management.commands.bench_bombs import MIB, docx_bomb, pdf_of_pages
from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.extract import ExtractionError, ExtractLimits, extract_text
from legalnav.documents.services import document_add, document_index
from tests.conftest import REPO

LIMIT = 50 * MIB


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    return docx_bomb(tmp_path_factory.mktemp("bomb") / "bomb.docx", expanded=950 * MIB)


_MEASURE = """
import json, sys, time
from legalnav.documents.parsing.extract import ExtractionError, extract_text

def peak_kib():
    # VmHWM: this process's own high-water mark (ru_maxrss carries the parent's across exec)
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))

data = open(sys.argv[1], "rb").read()
started = time.perf_counter()
try:
    extract_text(data, "bomb.docx", max_bytes=50 * 1024 * 1024)
    code = None
except ExtractionError as exc:
    code = exc.code
seconds = time.perf_counter() - started
print(json.dumps({"code": code, "seconds": seconds, "peak_kib": peak_kib()}))
"""


def test_a_docx_bomb_is_refused_in_under_a_second_and_200_mb(bomb: Path) -> None:
    assert bomb.stat().st_size < 2 * MIB  # about 1 MB that expands to 950 MB
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(bomb)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["code"] == "too_large"
    assert result["seconds"] < 1.0
    assert result["peak_kib"] < 200 * 1024, f"peak {result['peak_kib'] / 1024:.0f} MiB"


def test_a_docx_bomb_fails_the_document_cleanly(db, matter, bomb: Path) -> None:
    doc, _ = document_add(
        matter=matter, filename="bomb.docx", data=bomb.read_bytes(), enqueue=False
    )
    document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert doc.status == Document.Status.FAILED and doc.error_code == "too_large"
    assert "expands to 950.0 MB, over the 200.0 MB limit" in doc.error_message
    assert not Node.objects.filter(document=doc).exists()


def _docx(parts: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", b"<Types/>")
        for name, data in parts.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_a_docx_of_too_many_parts_is_refused() -> None:
    data = _docx({f"word/media/p{i}.xml": b"<x/>" for i in range(2001)})
    with pytest.raises(ExtractionError) as err:
        extract_text(data, "many.docx", max_bytes=LIMIT)
    assert err.value.code == "too_large" and "2,002 parts, over the limit of 2,000" in str(
        err.value
    )


def test_a_docx_part_expanding_past_the_ratio_is_refused() -> None:
    data = _docx({"word/document.xml": b" " * (20 * MIB)})  # under 200 MB, about 1000:1
    with pytest.raises(ExtractionError) as err:
        extract_text(data, "dense.docx", max_bytes=LIMIT)
    assert err.value.code == "too_large" and "word/document.xml expands" in str(err.value)
    limits = ExtractLimits(expanded_bytes=10 * MIB)
    with pytest.raises(ExtractionError, match="expands to 20.0 MB, over the 10.0 MB limit"):
        extract_text(data, "dense.docx", max_bytes=LIMIT, limits=limits)


def test_a_pdf_over_the_page_bound_is_refused_before_its_pages_are_read() -> None:
    with pytest.raises(ExtractionError) as err:
        extract_text(pdf_of_pages(2001), "long.pdf", max_bytes=LIMIT)
    assert err.value.code == "too_large"
    assert str(err.value) == (
        "The PDF has 2,001 pages, over the limit of 2,000; split it and upload the parts."
    )


def test_a_pdf_hiding_its_pages_behind_a_false_count_is_refused() -> None:
    data = pdf_of_pages(30).replace(b"/Count 30", b"/Count 1 ")
    with pytest.raises(ExtractionError, match="more than 20 pages"):
        extract_text(data, "liar.pdf", max_bytes=LIMIT, limits=ExtractLimits(pdf_pages=20))


def test_html_is_parsed_without_huge_tree_unless_it_needs_it(monkeypatch) -> None:
    import lxml.html

    made: list[bool] = []
    real = lxml.html.HTMLParser

    def spy(*args, **kwargs):
        made.append(bool(kwargs.get("huge_tree")))
        return real(*args, **kwargs)

    monkeypatch.setattr(lxml.html, "HTMLParser", spy)
    shallow = b"<html><body><p>1. Term. One year.</p></body></html>"
    assert "One year." in extract_text(shallow, "a.htm", max_bytes=LIMIT).text
    assert made == [False]

    deep = (
        b"<html><body><p>Top.</p>"
        + b"<div>" * 400
        + b"Deep text."
        + b"</div>" * 400
        + b"</body></html>"
    )
    made.clear()
    assert "Deep text." in extract_text(deep, "deep.htm", max_bytes=LIMIT).text
    assert made == [False, True]  # too deep for the defaults, and small: huge_tree once

    made.clear()
    small = ExtractLimits(html_huge_bytes=1024)
    result = extract_text(deep, "deep.htm", max_bytes=LIMIT, limits=small)
    assert (
        made == [False]
        and "Deep text." not in result.text
        and any("nested too deeply" in w for w in result.warnings)
    )
