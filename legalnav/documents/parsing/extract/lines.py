"""Line building shared by the HTML and DOCX extractors.

Both render a document to a list of lines with :data:`_PB` sentinels for page
breaks, then :func:`_assemble` joins them using the one page-break convention
(:data:`PAGE_BREAK_LINE`) that the structure parser recognises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from .errors import PAGE_BREAK_LINE

#: Sentinel line for a page break inside the line builders; NUL never survives
#: into text lines (it is stripped from the input), so it cannot collide.
_PB: Final = "\x00"

_WS_RE: Final = re.compile(r"\s+")


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
