"""Tests for legalnav.documents.parsing.extract.

Pure-function tests: no database and no Django settings are needed, so they
run with ``-p no:django``.  Binary fixtures (PDF, DOCX, PNG) are generated at
test time rather than committed, so every fixture's content is visible here.
"""

from __future__ import annotations

import base64
import io
import pickle
import zipfile
from pathlib import Path
from typing import Any

import docx
import pypdf
import pytest
import weasyprint
from docx.enum.text import WD_BREAK
from PIL import Image, ImageDraw

from legalnav.documents.parsing.extract import (
    PAGE_BREAK_LINE,
    SUPPORTED_EXTENSIONS,
    ExtractedText,
    ExtractionError,
    extract_text,
)

MB = 1024 * 1024
LIMIT = 10 * MB
#: A real EDGAR plain-text exhibit committed with the repository (see demo/SOURCES.md).
REAL_FILE = (
    Path(__file__).resolve().parents[2] / "demo" / "documents" / "coned-credit-agreement-2020.txt"
)

AGREEMENT_HTML = """<html><head><style>body { font-family: serif; font-size: 11pt }</style></head>
<body>
<h1>CREDIT AGREEMENT</h1>
<p>ARTICLE I DEFINITIONS</p>
<p>Section 1.01 Definitions. As used in this Agreement, the following terms have the
meanings specified below. "Affiliate" means, with respect to a specified Person, another
Person that directly, or indirectly through one or more intermediaries, controls or is
controlled by the Person specified.</p>
<p style="page-break-before: always">Section 1.02 Other Interpretive Provisions. With
reference to this Agreement and each other Loan Document, unless otherwise specified
herein, the meanings of defined terms are equally applicable to the singular and plural
forms of the defined terms.</p>
</body></html>"""


def _error(data: bytes, filename: str, max_bytes: int = LIMIT) -> ExtractionError:
    with pytest.raises(ExtractionError) as info:
        extract_text(data, filename, max_bytes=max_bytes)
    return info.value


# ---------------------------------------------------------------------------
# Fixtures (generated, module-scoped because weasyprint takes a moment)


@pytest.fixture(scope="module")
def text_pdf() -> bytes:
    return weasyprint.HTML(string=AGREEMENT_HTML).write_pdf()


@pytest.fixture(scope="module")
def scanned_pdf() -> bytes:
    """Two pages that are only pictures of text, like a scan without OCR."""
    image = Image.new("RGB", (800, 1000), "white")
    draw = ImageDraw.Draw(image)
    for i in range(20):
        draw.text((40, 40 + i * 45), f"Section {i}.01 This text is pixels only.", fill="black")
    png = io.BytesIO()
    image.save(png, format="PNG")
    uri = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode("ascii")
    html = (
        f'<html><body><img src="{uri}" style="width:100%">'
        f'<img src="{uri}" style="width:100%; page-break-before: always"></body></html>'
    )
    return weasyprint.HTML(string=html).write_pdf()


def _encrypt(pdf: bytes, *, user_password: str, algorithm: str) -> bytes:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _docx_bytes(document: docx.document.Document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


# ---------------------------------------------------------------------------
# The error type and the interface


def test_error_has_code_and_message_and_survives_pickling() -> None:
    # Celery pickles exceptions raised by tasks; the two-argument __init__
    # must round-trip.
    err = ExtractionError("corrupt", "The PDF is damaged and could not be read.")
    assert err.code == "corrupt"
    assert err.message == str(err) == "The PDF is damaged and could not be read."
    clone = pickle.loads(pickle.dumps(err))
    assert (clone.code, clone.message) == (err.code, err.message)


def test_error_rejects_unknown_code() -> None:
    with pytest.raises(ValueError):
        ExtractionError("bogus", "x")


def test_supported_extensions() -> None:
    assert SUPPORTED_EXTENSIONS == frozenset(
        {".txt", ".htm", ".html", ".pdf", ".docx", ".tif", ".tiff", ".png", ".jpg", ".jpeg"}
    )


def test_result_is_frozen() -> None:
    result = extract_text(b"hello", "a.txt", max_bytes=LIMIT)
    assert isinstance(result, ExtractedText)
    with pytest.raises(AttributeError):
        result.text = "changed"  # type: ignore[misc]


# ---------------------------------------------------------------------------
# Checks common to every type


@pytest.mark.parametrize("filename", ["a.txt", "a.pdf", "a.docx", "a.html"])
def test_empty_bytes(filename: str) -> None:
    err = _error(b"", filename)
    assert err.code == "empty"
    assert err.message == "The file is empty."


def test_whitespace_only_bytes() -> None:
    assert _error(b" \r\n\t \n", "notes.txt").code == "empty"


def test_whitespace_only_after_bom_is_empty() -> None:
    assert _error(b"\xef\xbb\xbf  \r\n", "notes.txt").code == "empty"


def test_too_large_gives_both_sizes_in_human_units() -> None:
    err = _error(b"x" * (12 * MB), "big.txt")
    assert err.code == "too_large"
    assert "12.0 MB is over the 10.0 MB limit" in err.message
    assert "\n" not in err.message


def test_too_large_by_a_few_bytes_is_exact() -> None:
    err = _error(b"x" * 1025, "big.txt", max_bytes=1024)
    assert err.code == "too_large"
    assert "1,025 bytes is over the 1,024-byte limit" in err.message


def test_at_the_limit_is_fine() -> None:
    assert extract_text(b"x" * 1024, "ok.txt", max_bytes=1024).text == "x" * 1024


@pytest.mark.parametrize("filename", ["contract.exe", "contract.rtf", "archive.tar.gz"])
def test_unknown_extension(filename: str) -> None:
    err = _error(b"some data", filename)
    assert err.code == "unknown_type"
    ext = "." + filename.rsplit(".", 1)[1]
    assert f'"{ext}"' in err.message
    for supported in SUPPORTED_EXTENSIONS:
        assert supported in err.message


def test_no_extension() -> None:
    err = _error(b"some data", "README")
    assert err.code == "unknown_type"
    assert "no extension" in err.message


def test_legacy_word_gets_a_hint() -> None:
    err = _error(b"\xd0\xcf\x11\xe0 old word", "agreement.doc")
    assert err.code == "unknown_type"
    assert ".docx" in err.message and '".doc"' in err.message


@pytest.mark.parametrize("filename", ["NOTES.TXT", "C:\\Users\\me\\Notes.Txt", "dir.v2/notes.txt"])
def test_extension_is_case_insensitive_and_path_tolerant(filename: str) -> None:
    result = extract_text(b"Hello", filename, max_bytes=LIMIT)
    assert result.media_type == "text/plain"
    assert result.text == "Hello"


# ---------------------------------------------------------------------------
# Plain text


def test_txt_utf8_with_bom_and_crlf_is_exact() -> None:
    data = "\ufeffSection 1.01\r\n  Definitions \u201cAgreement\u201d\u00a0means\r\n\r\n".encode()
    result = extract_text(data, "ex10.txt", max_bytes=LIMIT)
    assert result.text == data.decode("utf-8")
    assert result.text.startswith("\ufeff")  # BOM kept: offsets must match the file
    assert "\r\n" in result.text
    assert result.media_type == "text/plain"
    assert result.pages is None
    assert result.warnings == ()


def test_txt_cp1252_fallback_with_warning() -> None:
    data = b"The \x93Borrower\x94 shall pay \x80100."
    result = extract_text(data, "ex10.txt", max_bytes=LIMIT)
    assert result.text == "The \u201cBorrower\u201d shall pay \u20ac100."
    assert len(result.warnings) == 1
    assert "cp1252" in result.warnings[0]


def test_txt_latin1_fallback_when_cp1252_fails() -> None:
    # 0x81 is undefined in cp1252, so only latin-1 can decode this.
    data = b"caf\xe9 \x81"
    result = extract_text(data, "a.txt", max_bytes=LIMIT)
    assert result.text == data.decode("latin-1")
    assert "Latin-1" in result.warnings[0]


def test_txt_utf16_with_bom() -> None:
    data = "\ufeffSection 1.01 \u201cDefinitions\u201d".encode("utf-16-le")
    result = extract_text(data, "notepad.txt", max_bytes=LIMIT)
    assert result.text == "\ufeffSection 1.01 \u201cDefinitions\u201d"
    assert "UTF-16" in result.warnings[0]


def test_txt_with_nul_bytes_is_binary() -> None:
    assert _error(b"ELF\x00\x01\x02 binary", "a.txt").code == "corrupt"


def test_real_edgar_exhibit_prefix_is_exact() -> None:
    data = REAL_FILE.read_bytes()[: 20 * 1024]
    result = extract_text(data, REAL_FILE.name, max_bytes=LIMIT)
    assert result.text == data.decode("utf-8")
    assert result.warnings == ()
    assert "CREDIT AGREEMENT" in result.text
    assert "\u00a0" in result.text  # non-ASCII survived untouched
    assert PAGE_BREAK_LINE in result.text.splitlines()  # the marker HTML pages mimic


# ---------------------------------------------------------------------------
# HTML

EDGAR_HTML = b"""<DOCUMENT>
<TYPE>EX-10.1
<SEQUENCE>2
<FILENAME>d123456dex101.htm
<DESCRIPTION>EX-10.1
<TEXT>
<html><head><title>EX-10.1</title><script>alert(1)</script>
<style>p { color: red }</style></head>
<body>
<p align="center"><font size="2"><b>CRED</b></font><font size="2"><b>IT AGREEMENT</b></font></p>
<p style="margin-top:0pt; margin-bottom:0pt">dated as of</p>
<p style="margin-top:0pt; margin-bottom:0pt">April&nbsp;6,&nbsp;2020</p>
<div style="margin-top:12pt"><font>Section&nbsp;1.01   <u>Defined</u>
   Terms.</font> As used in this Agreement:</div>
<script>document.write("injected")</script>
<table>
<tr><td><p>Level</p></td><td>&nbsp;</td><td><p>Ratio</p></td><td>Margin</td></tr>
<tr><td>I</td><td></td><td>&lt;&nbsp;1.00:1.00</td><td>0.750%</td></tr>
</table>
<p align="center">1</p>
<div style="page-break-before:always"></div>
<div>Section 1.02 Terms Generally.</div>
<p>&nbsp;</p>
<p>&nbsp;</p>
<div>Section 1.03 Accounting Terms.</div>
<hr>
<PAGE>
<pre>
  Schedule   Amount
  A          100

</pre>
</body></html>
</TEXT>
</DOCUMENT>
"""


@pytest.fixture(scope="module")
def edgar_result() -> ExtractedText:
    return extract_text(EDGAR_HTML, "d123456dex101.htm", max_bytes=LIMIT)


def test_html_drops_script_style_head_and_edgar_header(edgar_result: ExtractedText) -> None:
    text = edgar_result.text
    assert "alert" not in text and "injected" not in text
    assert "color: red" not in text
    assert "EX-10.1" not in text and "d123456dex101" not in text
    assert text.startswith("CREDIT AGREEMENT\n")
    assert edgar_result.media_type == "text/html"
    assert edgar_result.pages is None


def test_html_inline_joined_nbsp_and_whitespace_collapsed(edgar_result: ExtractedText) -> None:
    lines = edgar_result.text.splitlines()
    assert "CREDIT AGREEMENT" in lines  # <b>CRED</b><b>IT ...</b>: no inserted space
    assert "April 6, 2020" in lines
    assert "Section 1.01 Defined Terms. As used in this Agreement:" in lines
    assert "\u00a0" not in edgar_result.text
    assert all(line == line.strip() for line in lines if not line.startswith("  "))


def test_html_zero_margin_paragraphs_are_consecutive_lines(edgar_result: ExtractedText) -> None:
    assert "dated as of\nApril 6, 2020\n\nSection 1.01" in edgar_result.text


def test_html_table_rows_are_lines_with_cells_joined(edgar_result: ExtractedText) -> None:
    lines = edgar_result.text.splitlines()
    assert "Level  Ratio  Margin" in lines
    assert "I  < 1.00:1.00  0.750%" in lines


def test_html_page_breaks_become_marker_lines(edgar_result: ExtractedText) -> None:
    text = edgar_result.text
    marker = f"\n\n{PAGE_BREAK_LINE}\n\n"
    assert f"1{marker}Section 1.02 Terms Generally." in text
    # <hr> followed by <PAGE> is one page break, not two.
    assert f"Section 1.03 Accounting Terms.{marker}  Schedule   Amount" in text
    assert text.count(PAGE_BREAK_LINE) == 2


def test_html_pre_keeps_its_lines(edgar_result: ExtractedText) -> None:
    assert edgar_result.text.endswith("  Schedule   Amount\n  A          100")


def test_html_at_most_one_blank_line(edgar_result: ExtractedText) -> None:
    assert "\n\n\n" not in edgar_result.text
    assert "Section 1.02 Terms Generally.\n\nSection 1.03" in edgar_result.text


def test_html_edgar_page_tag_alone() -> None:
    html = b"<html><body><p>Page one text.</p><PAGE><p>Page two text.</p></body></html>"
    text = extract_text(html, "a.html", max_bytes=LIMIT).text
    assert text == f"Page one text.\n\n{PAGE_BREAK_LINE}\n\nPage two text."


def test_html_br_and_list_items() -> None:
    html = b"<ul><li>one</li><li>two</li></ul><div>a<br>b<br><br>c</div>"
    text = extract_text(html, "a.html", max_bytes=LIMIT).text
    assert text == "one\ntwo\n\na\nb\n\nc"


def test_html_declared_charset_is_respected() -> None:
    html = (
        b'<html><head><meta charset="windows-1252"></head><body><p>\x93Lender\x94</p></body></html>'
    )
    result = extract_text(html, "a.htm", max_bytes=LIMIT)
    assert result.text == "\u201cLender\u201d"
    assert result.warnings == ()


def test_html_declared_latin1_decodes_as_cp1252_like_browsers() -> None:
    html = (
        b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
        b"</head><body><p>\x93Lender\x94 caf\xe9</p></body></html>"
    )
    assert extract_text(html, "a.htm", max_bytes=LIMIT).text == "\u201cLender\u201d caf\u00e9"


def test_html_undeclared_utf8_and_cp1252_fallback() -> None:
    utf8 = "<p>\u201cLender\u201d</p>".encode()
    assert extract_text(utf8, "a.htm", max_bytes=LIMIT).text == "\u201cLender\u201d"
    cp = b"<p>\x93Lender\x94</p>"
    result = extract_text(cp, "a.htm", max_bytes=LIMIT)
    assert result.text == "\u201cLender\u201d"
    assert "cp1252" in result.warnings[0]


def test_html_xhtml_with_xml_declaration() -> None:
    html = b'<?xml version="1.0" encoding="utf-8"?><html><body><p>Hello</p></body></html>'
    assert extract_text(html, "a.html", max_bytes=LIMIT).text == "Hello"


def test_html_hidden_elements_dropped() -> None:
    html = b'<body><div style="display: none">hidden xbrl</div><p>Visible</p></body>'
    assert extract_text(html, "a.html", max_bytes=LIMIT).text == "Visible"


def test_html_unclosed_font_soup_is_read_to_the_end() -> None:
    # Each unclosed <font> nests one level deeper; libxml2 stops at its depth
    # limit (256 by default) and silently drops the rest unless handled.
    html = "".join(f"<font size=2>para {i}<br>" for i in range(3000)).encode()
    result = extract_text(html, "soup.htm", max_bytes=LIMIT)
    lines = result.text.splitlines()
    assert lines[0] == "para 0"
    assert lines[-1] == "para 2999"
    assert len(lines) == 3000
    assert result.warnings == ()


def test_html_too_deep_to_parse_warns() -> None:
    html = ("<div>x" * 3000 + "deep").encode()
    result = extract_text(html, "deep.htm", max_bytes=LIMIT)
    assert result.text.startswith("x")
    assert any("nested too deeply" in w for w in result.warnings)


@pytest.mark.parametrize(
    "html",
    [b"<html><head><script>alert(1)</script></head><body>&nbsp;</body></html>", b"<!-- x -->"],
)
def test_html_without_text(html: bytes) -> None:
    assert _error(html, "a.html").code == "no_text"


# ---------------------------------------------------------------------------
# PDF


def test_pdf_text_layer(text_pdf: bytes) -> None:
    result = extract_text(text_pdf, "agreement.pdf", max_bytes=LIMIT)
    assert result.media_type == "application/pdf"
    assert result.pages == 2
    assert result.warnings == ()
    first, second = result.text.split("\n\f\n")
    assert "CREDIT AGREEMENT" in first
    assert "Section 1.01 Definitions." in first
    assert "Section 1.02 Other Interpretive Provisions." in second
    assert "Section 1.02" not in first


def test_pdf_with_leading_whitespace_is_accepted(text_pdf: bytes) -> None:
    result = extract_text(b"\r\n  " + text_pdf, "agreement.pdf", max_bytes=LIMIT)
    assert "Section 1.01 Definitions." in result.text


def test_scanned_pdf_needs_ocr(scanned_pdf: bytes) -> None:
    assert len(pypdf.PdfReader(io.BytesIO(scanned_pdf)).pages) == 2  # the fixture is real
    err = _error(scanned_pdf, "scan.pdf")
    assert err.code == "no_text"
    assert "scanned" in err.message and "OCR" in err.message


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-256"])
def test_encrypted_pdf(text_pdf: bytes, algorithm: str) -> None:
    data = _encrypt(text_pdf, user_password="secret", algorithm=algorithm)
    err = _error(data, "locked.pdf")
    assert err.code == "encrypted"
    assert "password" in err.message


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-256"])
def test_owner_password_only_pdf_extracts(text_pdf: bytes, algorithm: str) -> None:
    data = _encrypt(text_pdf, user_password="", algorithm=algorithm)
    assert pypdf.PdfReader(io.BytesIO(data)).is_encrypted
    result = extract_text(data, "restricted.pdf", max_bytes=LIMIT)
    assert result.text == extract_text(text_pdf, "plain.pdf", max_bytes=LIMIT).text
    assert result.pages == 2


def test_truncated_pdf_is_corrupt(text_pdf: bytes) -> None:
    err = _error(text_pdf[:300], "cut.pdf")
    assert err.code == "corrupt"


def test_garbage_after_pdf_header_is_corrupt() -> None:
    assert _error(b"%PDF-1.7\n" + bytes(range(256)) * 20, "junk.pdf").code == "corrupt"


def test_pdf_extension_without_pdf_magic_is_corrupt() -> None:
    err = _error(b"<html><body>not a pdf</body></html>", "renamed.pdf")
    assert err.code == "corrupt"
    assert "%PDF" in err.message


def test_pdf_page_that_fails_is_skipped_with_warning(
    text_pdf: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = pypdf.PageObject.extract_text
    calls = {"n": 0}

    def flaky(self: pypdf.PageObject, *args: Any, **kwargs: Any) -> str:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyError("/Contents")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pypdf.PageObject, "extract_text", flaky)
    result = extract_text(text_pdf, "a.pdf", max_bytes=LIMIT)
    assert result.pages == 2
    assert "Section 1.01 Definitions." in result.text
    assert "Section 1.02" not in result.text
    assert result.warnings == ("Page 2 could not be read and was left out.",)


def test_pdf_blank_page_in_the_middle_is_reported() -> None:
    body = "Section 1.01 Definitions. " * 40
    html = (
        f"<p>{body}</p><p style='page-break-before:always'>&nbsp;</p>"
        f"<p style='page-break-before:always'>{body}</p>"
    )
    result = extract_text(weasyprint.HTML(string=html).write_pdf(), "a.pdf", max_bytes=LIMIT)
    assert result.pages == 3
    assert result.text.count("\n\f\n") == 2
    assert any("page 2" in w and "OCR" in w for w in result.warnings)


# ---------------------------------------------------------------------------
# DOCX


@pytest.fixture(scope="module")
def agreement_docx() -> bytes:
    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "CONFIDENTIAL HEADER"
    document.sections[0].footer.paragraphs[0].text = "Page footer text"
    document.add_heading("CREDIT AGREEMENT", level=1)
    document.add_paragraph("ARTICLE I DEFINITIONS")
    document.add_paragraph("")
    document.add_paragraph("Section 1.01 Definitions. As used in this Agreement:")
    document.add_paragraph("Section 1.02 Terms Generally. The definitions apply equally.")
    document.add_paragraph("First listed item", style="List Number")
    table = document.add_table(rows=2, cols=3)
    for r, row in enumerate([("Level", "Ratio", "Margin"), ("I", "< 1.00:1.00", "0.750%")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    merged = document.add_table(rows=1, cols=3)
    merged.cell(0, 0).merge(merged.cell(0, 1)).text = "Merged"
    merged.cell(0, 2).text = "Right"
    paragraph = document.add_paragraph("Section 1.03 Accounting Terms.")
    paragraph.add_run().add_break(WD_BREAK.PAGE)
    paragraph.add_run("Signature page follows.")
    return _docx_bytes(document)


def test_docx_body_in_document_order(agreement_docx: bytes) -> None:
    result = extract_text(agreement_docx, "Agreement.DOCX", max_bytes=LIMIT)
    assert result.media_type == (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    )
    assert result.pages is None
    lines = result.text.splitlines()
    expected_order = [
        "CREDIT AGREEMENT",
        "ARTICLE I DEFINITIONS",
        "Section 1.01 Definitions. As used in this Agreement:",
        "Section 1.02 Terms Generally. The definitions apply equally.",
        "First listed item",  # auto-numbered: text only, number not rendered
        "Level  Ratio  Margin",
        "I  < 1.00:1.00  0.750%",
        "Merged  Right",  # merged cell appears once, not once per grid column
        "Section 1.03 Accounting Terms.",
        PAGE_BREAK_LINE,
        "Signature page follows.",
    ]
    positions = [lines.index(line) for line in expected_order]
    assert positions == sorted(positions)


def test_docx_keeps_blank_line_for_empty_paragraph(agreement_docx: bytes) -> None:
    text = extract_text(agreement_docx, "a.docx", max_bytes=LIMIT).text
    assert "ARTICLE I DEFINITIONS\n\nSection 1.01 Definitions." in text
    # Consecutive non-empty paragraphs are one newline apart.
    assert "As used in this Agreement:\nSection 1.02 Terms Generally." in text


def test_docx_excludes_header_and_footer(agreement_docx: bytes) -> None:
    text = extract_text(agreement_docx, "a.docx", max_bytes=LIMIT).text
    assert "CONFIDENTIAL HEADER" not in text
    assert "Page footer text" not in text


def test_docx_without_text() -> None:
    document = docx.Document()
    document.add_paragraph("")
    document.sections[0].header.paragraphs[0].text = "Only a header"
    assert _error(_docx_bytes(document), "blank.docx").code == "no_text"


def test_docx_that_is_not_a_zip_is_corrupt() -> None:
    err = _error(b"This is plain text pretending to be Word.", "fake.docx")
    assert err.code == "corrupt"


def test_zip_that_is_not_a_docx_is_corrupt() -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("readme.txt", "just a zip")
    err = _error(buf.getvalue(), "archive.docx")
    assert err.code == "corrupt"
    assert "Word" in err.message


def test_truncated_docx_is_corrupt(agreement_docx: bytes) -> None:
    assert _error(agreement_docx[: len(agreement_docx) // 2], "cut.docx").code == "corrupt"
