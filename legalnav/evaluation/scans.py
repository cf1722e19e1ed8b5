"""Scans made from text, for measuring OCR: a document typeset as a PDF, each page rasterised as
a scanner would (grey, a set resolution), with speckle noise, a slight skew and, on a chosen
page, a quarter turn; the pages bound again into an image-only PDF, or kept as images.

Used by ``manage.py bench_ocr`` and by the OCR tests, so that both read the same kind of scan.
"""

from __future__ import annotations

import html
import io
import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ScanStyle:
    dpi: int = 200
    #: Share of pixels flipped to black or white (speckle).
    noise: float = 0.002
    #: Skew in degrees; each page gets a random skew of up to this, either way.
    skew: float = 1.5
    #: Pages (1-based) fed in sideways (a quarter turn).
    rotated: tuple[int, ...] = ()
    seed: int = 0


def typeset(text: str, *, font_pt: float = 11.0) -> bytes:
    """``text`` as a PDF with a text layer, one paragraph per line of the text, US Letter."""
    import weasyprint

    paragraphs = "".join(
        f"<p>{html.escape(line)}</p>" if line.strip() else "" for line in text.splitlines()
    )
    page = (
        "<html><head><style>@page { size: letter; margin: 1in } "
        f"body {{ font-family: 'DejaVu Serif', serif; font-size: {font_pt}pt; line-height: 1.35 }}"
        " p { margin: 0 0 0.5em 0 }</style></head>"
        f"<body>{paragraphs}</body></html>"
    )
    return weasyprint.HTML(string=page).write_pdf()


def rasterise(pdf: bytes, style: ScanStyle) -> list[bytes]:
    """Each page of ``pdf`` as a grey PNG at ``style.dpi``, with noise, skew and turns."""
    import pypdfium2
    from PIL import Image

    rng = random.Random(style.seed)
    document = pypdfium2.PdfDocument(pdf)
    out: list[bytes] = []
    try:
        for number in range(1, len(document) + 1):
            bitmap = document[number - 1].render(scale=style.dpi / 72, grayscale=True)
            image = bitmap.to_pil().convert("L")
            if style.skew:
                angle = rng.uniform(-style.skew, style.skew)
                image = image.rotate(angle, resample=Image.Resampling.BILINEAR, fillcolor=255)
            if style.noise:
                pixels = image.load()
                for _ in range(int(image.width * image.height * style.noise)):
                    x, y = rng.randrange(image.width), rng.randrange(image.height)
                    pixels[x, y] = rng.choice((0, 255))
            if number in style.rotated:
                image = image.rotate(90, expand=True, fillcolor=255)
            buf = io.BytesIO()
            image.save(buf, "PNG", dpi=(style.dpi, style.dpi))
            out.append(buf.getvalue())
    finally:
        document.close()
    return out


def bind(pages: Sequence[bytes]) -> bytes:
    """Page images bound into a PDF with no text layer, as a scanner writes it."""
    import img2pdf

    return img2pdf.convert(list(pages))


def scan(text: str, style: ScanStyle | None = None) -> bytes:
    """``text`` typeset, printed and scanned: an image-only PDF."""
    return bind(rasterise(typeset(text), style or ScanStyle()))
