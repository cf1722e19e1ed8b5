"""The streaming spreadsheet writer (review/xlsx.py), read back by openpyxl as a reviewer's
spreadsheet program would open it."""

from __future__ import annotations

import io
import zipfile

from openpyxl import load_workbook

from legalnav.review import xlsx


def _saved(book: xlsx.Book) -> bytes:
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_values_links_styles_and_panes_read_back():
    book = xlsx.Book()
    grid = book.sheet("Grid")
    grid.freeze = "C2"
    grid.append([("Document", ""), ("Title", ""), ("Governing Law", "")], style=xlsx.BOLD)
    grid.append([("D1", "/documents/1/"), ("Supply & <Services>", ""), ("New York", "/d/1/#s9")])
    grid.append([("D2", ""), ('=HYPERLINK("http://evil")', ""), ("page\x0cbreak", "")])
    quotes = book.sheet("Quotations")
    quotes.widths = {1: 10, 4: 70}
    quotes.append([("Quotation", "")], style=xlsx.BOLD)
    quotes.append([("“the laws of the State of New York”", "")])
    quotes.auto_filter = "A1:A2"
    loaded = load_workbook(io.BytesIO(_saved(book)))
    assert loaded.sheetnames == ["Grid", "Quotations"]
    sheet = loaded["Grid"]
    assert [c.value for c in sheet[1]] == ["Document", "Title", "Governing Law"]
    assert sheet["A1"].font.b and not sheet["A2"].font.b
    assert sheet["B2"].value == "Supply & <Services>"
    # A value that looks like a formula stays text; a character XML cannot hold is dropped.
    assert sheet["B3"].value == '=HYPERLINK("http://evil")' and sheet["B3"].data_type == "s"
    assert sheet["C3"].value == "pagebreak"
    assert sheet["A2"].hyperlink.target == "/documents/1/"
    assert sheet["C2"].hyperlink.target == "/d/1/#s9" and sheet["C2"].font.u == "single"
    assert sheet["B2"].hyperlink is None and sheet["A3"].hyperlink is None
    assert sheet.freeze_panes == "C2" and sheet["C2"].alignment.wrap_text
    other = loaded["Quotations"]
    assert other.freeze_panes is None and other.auto_filter.ref == "A1:A2"
    assert other.column_dimensions["D"].width == 70
    assert other["A2"].value == "“the laws of the State of New York”"


def test_rows_are_kept_on_disk_not_in_the_sheet():
    """A sheet's rows, links and targets go to its files as they are appended: nothing the
    sheet holds grows with them."""
    book = xlsx.Book()
    sheet = book.sheet("Grid")
    before = {k: v for k, v in vars(sheet).items() if not k.startswith("_")}
    for n in range(1, 2001):
        sheet.append([(f"D{n}", f"/documents/{n}/"), ("x" * 50, "")])
    after = {k: v for k, v in vars(sheet).items() if not k.startswith("_")}
    assert after["rows"] == 2000 and after["links"] == 2000
    counts = ("rows", "columns", "links")
    assert {k: v for k, v in after.items() if k not in counts} == {
        k: v for k, v in before.items() if k not in counts
    }
    assert sheet._rows.tell() > 2000 * 50  # the rows are in the file
    data = _saved(book)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        rels = zf.read("xl/worksheets/_rels/sheet1.xml.rels").decode()
    assert rels.count("<Relationship ") == 2000
    loaded = load_workbook(io.BytesIO(data), read_only=True)
    assert loaded["Grid"].max_row == 2000 and loaded["Grid"].max_column == 2


def test_column_letters():
    assert [xlsx.column_letter(n) for n in (1, 26, 27, 52, 53, 123, 702, 703)] == [
        "A", "Z", "AA", "AZ", "BA", "DS", "ZZ", "AAA",
    ]  # fmt: skip
