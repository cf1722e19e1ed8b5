"""OCR: scanned PDFs, pages without a text layer, and TIFF/PNG/JPEG images, read by OCRmyPDF
with Tesseract.

OCRmyPDF runs as a child process (``python -m ocrmypdf``) so that a file it cannot read costs a
bounded time and memory and never hangs the worker: the process group is killed at the time
limit, its address space is capped, and its own decompression-bomb check
(``--max-image-mpixels``) refuses a page whose image is too large before it is decoded. Pages
are deskewed and turned upright (``--deskew``, ``--rotate-pages``); only the pages without text
are read (``--skip-text``), or every page when the PDF is a scan with a stray text layer
(``--force-ocr``). Everything is offline: Tesseract's English model is a Debian package.

The text comes from OCRmyPDF's sidecar (Tesseract's own reading order), one page per form feed,
so page numbers are kept. The mean word confidence of each page comes from the hOCR files
Tesseract wrote (``x_wconf`` of each word), kept by ``--keep-temporary-files`` in a folder of our
own that is removed afterwards.

Like the rest of this package the module knows nothing of Django: the caller passes
:class:`OcrOptions` built from settings.
"""

from __future__ import annotations

import functools
import io
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from .errors import ExtractionError

IMAGE_EXTENSIONS: Final = (".tif", ".tiff", ".png", ".jpg", ".jpeg")
MEDIA_TYPE_TIFF: Final = "image/tiff"
MEDIA_TYPE_PNG: Final = "image/png"
MEDIA_TYPE_JPEG: Final = "image/jpeg"
#: Resolution assumed for an image that does not say its own (a phone photo, a screenshot):
#: Tesseract reads text best when it knows the size of a printed letter.
ASSUMED_DPI: Final = 300
_PIL_FORMATS: Final = {"TIFF": MEDIA_TYPE_TIFF, "PNG": MEDIA_TYPE_PNG, "JPEG": MEDIA_TYPE_JPEG}
_WCONF: Final = re.compile(r"x_wconf (\d+)")
_HOCR_PAGE: Final = re.compile(r"(\d{6})_ocr_hocr\.hocr$")
_EXIT: Final = {
    2: ("corrupt", "The file could not be read as a PDF or an image."),
    8: ("encrypted", "The PDF is password-protected; remove the password and upload it again."),
}


@dataclass(frozen=True)
class OcrOptions:
    """How OCR may run: on or off, its language, its bounds."""

    enabled: bool = True
    language: str = "eng"
    #: Wall-clock seconds for the whole file; the indexing job's own time limit is longer.
    timeout_s: int = 900
    #: Address-space cap of the OCR process (bytes).
    memory_bytes: int = 4 * 1024**3
    #: Largest page image, in pixels (a decompression bomb is refused before it is decoded).
    max_pixels: int = 120_000_000
    #: Most pages one file may send to OCR.
    max_pages: int = 500
    #: Pages read at once (one Tesseract each).
    jobs: int = 1
    #: A page whose mean word confidence is below this (0-100) is flagged for a person.
    confidence_floor: float = 80.0


@dataclass(frozen=True)
class OcrPage:
    number: int
    confidence: float | None  # mean word confidence, 0-100; None when no word was read
    words: int

    def to_json(self) -> dict[str, object]:
        return {"page": self.number, "confidence": self.confidence, "words": self.words}


@dataclass(frozen=True)
class OcrReport:
    """What OCR read: each page it read with its confidence, and the floor it was held to."""

    engine: str
    floor: float
    pages: tuple[OcrPage, ...] = field(default_factory=tuple)

    @property
    def mean_confidence(self) -> float | None:
        weighted = [(p.confidence, p.words) for p in self.pages if p.confidence is not None]
        words = sum(w for _, w in weighted)
        return round(sum(c * w for c, w in weighted) / words, 1) if words else None

    @property
    def low_pages(self) -> list[int]:
        """Pages a person should check: below the floor, or with no word read."""
        return [p.number for p in self.pages if p.confidence is None or p.confidence < self.floor]

    def to_json(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "floor": self.floor,
            "mean_confidence": self.mean_confidence,
            "low_pages": self.low_pages,
            "pages": [p.to_json() for p in self.pages],
        }


def missing() -> str | None:
    """Why OCR cannot run on this machine, or None when it can."""
    if shutil.which("tesseract") is None:
        return "Tesseract is not installed (Debian: tesseract-ocr tesseract-ocr-eng)"
    try:
        import ocrmypdf  # noqa: F401
    except ImportError:
        return "OCRmyPDF is not installed (pip install ocrmypdf)"
    return None


@functools.cache
def _engine() -> str:
    """The OCR engine's name and versions (asked once per process)."""
    import ocrmypdf

    try:
        out = subprocess.run(
            ["tesseract", "--version"], capture_output=True, text=True, timeout=10, check=False
        )
        tess = (out.stdout or out.stderr).split("\n", 1)[0].strip()
    except (OSError, subprocess.SubprocessError):
        tess = "tesseract"
    return f"OCRmyPDF {ocrmypdf.__version__}, {tess.capitalize()}"


def image_media_type(data: bytes) -> str | None:
    """The media type of a TIFF, PNG or JPEG by its first bytes, or None."""
    if data.startswith((b"II*\x00", b"MM\x00*")):
        return MEDIA_TYPE_TIFF
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return MEDIA_TYPE_PNG
    if data.startswith(b"\xff\xd8\xff"):
        return MEDIA_TYPE_JPEG
    return None


def image_to_pdf(data: bytes, options: OcrOptions) -> bytes:
    """A TIFF (every frame), PNG or JPEG as a PDF of one page per frame, after checking each
    frame's pixel count from its header (nothing larger is decoded) and the frame count."""
    import img2pdf
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
    except (UnidentifiedImageError, OSError, ValueError):
        raise ExtractionError("corrupt", "The image is damaged and could not be read.") from None
    except Image.DecompressionBombError:
        raise _too_many_pixels(options) from None
    if image.format not in _PIL_FORMATS:
        raise ExtractionError("corrupt", "The file is not a TIFF, PNG or JPEG image.")
    frames = getattr(image, "n_frames", 1)
    if frames > options.max_pages:
        raise ExtractionError(
            "too_large",
            f"The image has {frames:,} pages, over the OCR limit of {options.max_pages:,}; "
            "split it and upload the parts.",
        )
    pages: list[bytes] = []
    try:
        for n in range(frames):
            image.seek(n)
            if image.width * image.height > options.max_pixels:
                raise _too_many_pixels(options)
            dpi = image.info.get("dpi") or (ASSUMED_DPI, ASSUMED_DPI)
            x_dpi, y_dpi = (int(round(float(d))) or ASSUMED_DPI for d in dpi[:2])
            if min(x_dpi, y_dpi) < 72:  # a dpi of 1 (some scanners) would make a huge page
                x_dpi = y_dpi = ASSUMED_DPI
            frame = image.convert("L" if image.mode in ("1", "L", "LA", "I;16") else "RGB")
            out = io.BytesIO()
            frame.save(out, "PNG", dpi=(x_dpi, y_dpi))
            pages.append(out.getvalue())
    except ExtractionError:
        raise
    except Image.DecompressionBombError:
        raise _too_many_pixels(options) from None
    except (OSError, ValueError, EOFError):
        raise ExtractionError("corrupt", "The image is damaged and could not be read.") from None
    try:
        return img2pdf.convert(pages)
    except Exception:  # noqa: BLE001 - img2pdf raises its own and Pillow's errors
        raise ExtractionError("corrupt", "The image could not be turned into pages.") from None


def _too_many_pixels(options: OcrOptions) -> ExtractionError:
    return ExtractionError(
        "too_large",
        f"A page image is over {options.max_pixels / 1e6:.0f} million pixels, too large to read "
        "safely; scan it again at 300 dpi.",
    )


def _limit_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def ocr_pdf(
    pdf: bytes, *, page_count: int, only: Sequence[int] | None, options: OcrOptions
) -> tuple[list[str], OcrReport]:
    """Each page's text (every page of the PDF, in order) and the report of the pages read.

    ``only``: the pages without a text layer (the others keep theirs and are not read); None
    reads every page, the text layer a scanner left being a stray page number at best.
    """
    why = missing()
    if why:
        raise ExtractionError(
            "no_text",
            f"The PDF has pages without text and OCR is not available on this server ({why}).",
        )
    wanted = sorted(set(only)) if only is not None else list(range(1, page_count + 1))
    if len(wanted) > options.max_pages:
        raise ExtractionError(
            "too_large",
            f"{len(wanted):,} pages need OCR, over the limit of {options.max_pages:,}; split the "
            "file and upload the parts.",
        )
    with tempfile.TemporaryDirectory(prefix="legalnav-ocr-") as tmp:
        folder = Path(tmp)
        (folder / "work").mkdir()
        src, dst, sidecar = folder / "in.pdf", folder / "out.pdf", folder / "sidecar.txt"
        src.write_bytes(pdf)
        command = [
            sys.executable,
            "-m",
            "ocrmypdf",
            "--force-ocr" if only is None else "--skip-text",
            "--rotate-pages",
            "--deskew",
            "--language",
            options.language,
            "--output-type",
            "pdf",
            "--optimize",
            "0",
            "--jobs",
            str(max(1, options.jobs)),
            "--max-image-mpixels",
            str(max(1, options.max_pixels // 1_000_000)),
            "--sidecar",
            str(sidecar),
            "--keep-temporary-files",
            "--quiet",
        ]
        if only is not None:
            command += ["--pages", ",".join(str(p) for p in wanted)]
        command += [str(src), str(dst)]
        env = {
            **os.environ,
            "TMPDIR": str(folder / "work"),
            "OMP_THREAD_LIMIT": "1",
            "PYTHONWARNINGS": "ignore",
        }
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and fixed arguments
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
            preexec_fn=lambda: _limit_memory(options.memory_bytes),  # noqa: PLW1509
        )
        try:
            _, err = proc.communicate(timeout=options.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise ExtractionError(
                "unreadable",
                f"OCR did not finish within {options.timeout_s} s; split the file or retry "
                "when the server is less busy.",
            ) from None
        if proc.returncode != 0:
            raise _failure(proc.returncode, err.decode("utf-8", "replace"))
        pages = sidecar.read_text(encoding="utf-8", errors="replace").split("\f")
        confidences = _confidences(folder / "work")
    texts = [pages[n - 1].strip("\n").rstrip() if n - 1 < len(pages) else "" for n in wanted]
    by_page = dict(zip(wanted, texts, strict=True))
    report = OcrReport(
        engine=_engine(),
        floor=options.confidence_floor,
        pages=tuple(OcrPage(n, *confidences.get(n, (None, 0))) for n in wanted),
    )
    return [by_page.get(n, "") for n in range(1, page_count + 1)], report


def _failure(code: int, stderr: str) -> ExtractionError:
    if code in _EXIT:
        return ExtractionError(*_EXIT[code])
    if code < 0 or "MemoryError" in stderr or "Cannot allocate" in stderr:
        return ExtractionError(
            "too_large", "OCR ran out of memory on this file; split it or scan it at 300 dpi."
        )
    if "DecompressionBomb" in stderr or "max-image-mpixels" in stderr:
        return ExtractionError("too_large", "A page image is too large to read safely.")
    last = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "")
    return ExtractionError(
        "unreadable", f"OCR could not read the file (OCRmyPDF exit {code}: {last[:200]})."
    )


def _confidences(work: Path) -> dict[int, tuple[float | None, int]]:
    """(mean word confidence, words) per page number, from the hOCR files Tesseract wrote."""
    out: dict[int, tuple[float | None, int]] = {}
    for path in work.rglob("*_ocr_hocr.hocr"):
        match = _HOCR_PAGE.search(path.name)
        if not match:
            continue
        scores = [
            int(x) for x in _WCONF.findall(path.read_text(encoding="utf-8", errors="replace"))
        ]
        mean = round(sum(scores) / len(scores), 1) if scores else None
        out[int(match.group(1))] = (mean, len(scores))
    return out
