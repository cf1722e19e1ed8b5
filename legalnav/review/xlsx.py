"""A spreadsheet (XLSX) written row by row, whose memory does not grow with its rows.

openpyxl's write-only mode writes each row to disk as it is appended, but keeps every hyperlink
in memory until the sheet is closed and then builds their XML in one piece: a grid whose every
value links to its provision grew by about 120 MB per 1,000 documents (41 columns and their
quotations; 657 MB at 5,000), about 1.3 GB at the 10,000 a grid takes. Here each sheet's rows,
hyperlinks and link targets go to three temporary files as they come, and are copied into the
zip file at the end: memory stays flat whatever the size, the disk holds the rest.

Only what the grid's exports use is written: text cells (inline strings: every value a string,
never a formula, whatever it starts with), three styles (plain, bold header, link; all wrapped
and top-aligned), column widths, frozen panes, an auto-filter and external hyperlinks.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from typing import IO
from xml.sax.saxutils import escape, quoteattr

MAX_CHARS = 32767  # a cell's limit in Excel
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # not allowed in XML 1.0
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_HYPERLINK = f"{_REL}/hyperlink"
PLAIN, BOLD, LINK = 0, 1, 2  # the styles (cellXfs) of styles.xml below


def column_letter(n: int) -> str:
    """1 -> A, 27 -> AA."""
    out = ""
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def _text(value: str) -> str:
    return escape(_ILLEGAL.sub("", value[:MAX_CHARS]))


class Sheet:
    def __init__(self, title: str) -> None:
        self.title = title[:31]
        self.rows = 0
        self.columns = 0  # the widest row's cells
        self.links = 0
        self.freeze = ""  # the top-left cell of the scrolling part ("C2": two columns, one row)
        self.widths: dict[int, float] = {}  # column number -> width
        self.auto_filter = ""  # a range ("A1:L40")
        self._rows: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by the book)
        self._links: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self._targets: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115

    def append(self, values: list[tuple[str, str]], *, style: int = PLAIN) -> None:
        """A row of (text, link) pairs: a link makes its cell a hyperlink (to the reader)."""
        self.rows += 1
        self.columns = max(self.columns, len(values))
        r = self.rows
        cells = []
        for i, (value, link) in enumerate(values, start=1):
            ref = f"{column_letter(i)}{r}"
            s = LINK if link and style == PLAIN else style
            if value:
                cells.append(
                    f'<c r="{ref}" s="{s}" t="inlineStr"><is><t xml:space="preserve">'
                    f"{_text(value)}</t></is></c>"
                )
            else:
                cells.append(f'<c r="{ref}" s="{s}"/>')
            if link:
                self.links += 1
                rid = f"rId{self.links}"
                self._links.write(f'<hyperlink ref="{ref}" r:id="{rid}"/>'.encode())
                target = quoteattr(_ILLEGAL.sub("", link))
                self._targets.write(
                    f'<Relationship Id="{rid}" Type="{_HYPERLINK}" Target={target} '
                    'TargetMode="External"/>'.encode()
                )
        self._rows.write(f'<row r="{r}">{"".join(cells)}</row>'.encode())

    def _write(self, zf: zipfile.ZipFile, number: int) -> None:
        with zf.open(f"xl/worksheets/sheet{number}.xml", "w", force_zip64=True) as out:
            out.write(
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                f'<worksheet xmlns="{_MAIN}" xmlns:r="{_REL}">'.encode()
            )
            if self.rows and self.columns:
                last = f"{column_letter(self.columns)}{self.rows}"
                out.write(f'<dimension ref="A1:{last}"/>'.encode())
            out.write(self._view().encode())
            out.write(b'<sheetFormatPr defaultRowHeight="15"/>')
            if self.widths:
                cols = "".join(
                    f'<col min="{n}" max="{n}" width="{w}" customWidth="1"/>'
                    for n, w in sorted(self.widths.items())
                )
                out.write(f"<cols>{cols}</cols>".encode())
            out.write(b"<sheetData>")
            _copy(self._rows, out)
            out.write(b"</sheetData>")
            if self.auto_filter:
                out.write(f'<autoFilter ref="{self.auto_filter}"/>'.encode())
            if self.links:
                out.write(b"<hyperlinks>")
                _copy(self._links, out)
                out.write(b"</hyperlinks>")
            out.write(b"</worksheet>")
        if self.links:
            with zf.open(f"xl/worksheets/_rels/sheet{number}.xml.rels", "w") as out:
                out.write(
                    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                    f'<Relationships xmlns="{_PKG_REL}">'.encode()
                )
                _copy(self._targets, out)
                out.write(b"</Relationships>")

    def _view(self) -> str:
        if not self.freeze or self.freeze == "A1":
            return '<sheetViews><sheetView workbookViewId="0"/></sheetViews>'
        letters = re.match(r"[A-Z]+", self.freeze)
        x = _column_number(letters.group(0)) - 1 if letters else 0
        y = int(self.freeze[letters.end() if letters else 0 :]) - 1
        pane = "bottomRight" if x and y else ("bottomLeft" if y else "topRight")
        split = (f' xSplit="{x}"' if x else "") + (f' ySplit="{y}"' if y else "")
        return (
            f'<sheetViews><sheetView workbookViewId="0"><pane{split} topLeftCell="{self.freeze}"'
            f' activePane="{pane}" state="frozen"/><selection pane="{pane}"/></sheetView>'
            "</sheetViews>"
        )

    def close(self) -> None:
        for f in (self._rows, self._links, self._targets):
            f.close()


def _column_number(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


def _copy(source: IO[bytes], out: IO[bytes]) -> None:
    source.seek(0)
    shutil.copyfileobj(source, out, 1024 * 1024)


class Book:
    """The workbook: ``sheet()`` as many as needed, ``append`` their rows, then ``save``."""

    def __init__(self) -> None:
        self.sheets: list[Sheet] = []

    def sheet(self, title: str) -> Sheet:
        made = Sheet(title)
        self.sheets.append(made)
        return made

    def save(self, out: IO[bytes]) -> None:
        try:
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
                zf.writestr("[Content_Types].xml", self._content_types())
                zf.writestr(
                    "_rels/.rels",
                    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                    f'<Relationships xmlns="{_PKG_REL}"><Relationship Id="rId1" '
                    f'Type="{_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
                )
                zf.writestr("xl/workbook.xml", self._workbook())
                zf.writestr("xl/_rels/workbook.xml.rels", self._workbook_rels())
                zf.writestr("xl/styles.xml", _STYLES)
                for n, sheet in enumerate(self.sheets, start=1):
                    sheet._write(zf, n)
        finally:
            for sheet in self.sheets:
                sheet.close()

    def _content_types(self) -> str:
        sheets = "".join(
            f'<Override PartName="/xl/worksheets/sheet{n}.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            for n in range(1, len(self.sheets) + 1)
        )
        return (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/styles.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
            f"{sheets}</Types>"
        )

    def _workbook(self) -> str:
        sheets = "".join(
            f'<sheet name={quoteattr(s.title)} sheetId="{n}" r:id="rId{n}"/>'
            for n, s in enumerate(self.sheets, start=1)
        )
        return (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets>{sheets}</sheets></workbook>'
        )

    def _workbook_rels(self) -> str:
        rels = "".join(
            f'<Relationship Id="rId{n}" Type="{_REL}/worksheet" Target="worksheets/sheet{n}.xml"/>'
            for n in range(1, len(self.sheets) + 1)
        )
        styles = len(self.sheets) + 1
        return (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<Relationships xmlns="{_PKG_REL}">{rels}<Relationship Id="rId{styles}" '
            f'Type="{_REL}/styles" Target="styles.xml"/></Relationships>'
        )


_STYLES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    f'<styleSheet xmlns="{_MAIN}">'
    '<fonts count="3">'
    '<font><sz val="11"/><name val="Calibri"/></font>'
    '<font><b/><sz val="11"/><name val="Calibri"/></font>'
    '<font><u/><sz val="11"/><color rgb="FF0563C1"/><name val="Calibri"/></font>'
    "</fonts>"
    '<fills count="2"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="3">'
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyAlignment="1">'
    '<alignment vertical="top" wrapText="1"/></xf>'
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1" '
    'applyAlignment="1"><alignment vertical="top" wrapText="1"/></xf>'
    '<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1" '
    'applyAlignment="1"><alignment vertical="top" wrapText="1"/></xf>'
    "</cellXfs>"
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    "</styleSheet>"
)
