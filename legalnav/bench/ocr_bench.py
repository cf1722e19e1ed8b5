"""How well and how fast OCR reads scans: ``manage.py bench_ocr``.

CUAD dev contracts (the 40-contract stride sample, the first N) are typeset as PDFs, rasterised
at 200 dpi with speckle noise, a slight skew and their second page fed in sideways
(:mod:`legalnav.evaluation.scans`), and read back through the product's own extraction with OCR.
Reported:

- **character error rate**: edit distance between the recovered text and the contract's text,
  both with runs of whitespace made one space, over the length of the contract's text;
- **navembed recall@10** on the contracts' CUAD clause questions, asked of the scanned text (the
  gold spans carried over by aligning the two texts) and of the original text;
- **throughput**: pages per minute with one worker (files one after another) and with two (two
  files at once, as two Celery workers would), and the peak resident memory of the OCR process
  tree's largest process.
"""

from __future__ import annotations

import bisect
import re
import resource
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from legalnav.documents.parsing.extract import OcrOptions, extract_text
from legalnav.evaluation import gold, scans

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def cer(truth: str, read: str) -> float:
    """Character error rate of ``read`` against ``truth``, whitespace runs made one space."""
    from rapidfuzz.distance import Levenshtein

    a, b = normalise(truth), normalise(read)
    return Levenshtein.distance(a, b) / max(1, len(a))


def offset_map(source: str, target: str) -> Callable[[int], int]:
    """A function taking an offset in ``source`` to the matching offset in ``target``, from the
    edit script between them (equal and replaced stretches map position by position; a deleted
    stretch maps to where it would have been)."""
    from rapidfuzz.distance import Levenshtein

    starts: list[int] = []
    rows: list[tuple[int, int, int, int]] = []
    for op in Levenshtein.opcodes(source, target):
        if op.src_start == op.src_end:
            continue  # an insertion: no source offset lands in it
        starts.append(op.src_start)
        rows.append((op.src_start, op.src_end, op.dest_start, op.dest_end))

    def to_target(offset: int) -> int:
        i = bisect.bisect_right(starts, offset) - 1
        if i < 0:
            return 0
        s0, s1, d0, d1 = rows[i]
        if offset >= s1:
            return d1
        if d1 == d0:
            return d0
        return d0 + min(d1 - d0, round((offset - s0) * (d1 - d0) / (s1 - s0)))

    return to_target


@dataclass
class ContractRun:
    name: str
    pages: int
    seconds: float
    cer: float
    mean_confidence: float | None
    low_pages: list[int]
    text: str = field(repr=False)


@dataclass
class OcrBench:
    contracts: list[ContractRun]
    one_worker_ppm: float
    two_workers_ppm: float
    peak_rss_mb: float
    recall_text: float
    recall_scanned: float
    questions: int

    def table(self) -> str:
        pages = sum(c.pages for c in self.contracts)
        chars = sum(len(normalise(c.text)) for c in self.contracts)
        errors = sum(c.cer * len(normalise(c.text)) for c in self.contracts)
        lines = [
            f"{len(self.contracts)} CUAD dev contracts, {pages} pages scanned at 200 dpi "
            "(noise, skew up to 1.5 degrees, page 2 sideways)",
            f"character error rate: {errors / max(1, chars):.4f} pooled, "
            f"median {sorted(c.cer for c in self.contracts)[len(self.contracts) // 2]:.4f}, "
            f"worst {max(c.cer for c in self.contracts):.4f}",
            f"navembed recall@10 on {self.questions} CUAD questions: text "
            f"{self.recall_text:.3f}, scanned {self.recall_scanned:.3f} "
            f"(difference {self.recall_scanned - self.recall_text:+.3f})",
            f"throughput: {self.one_worker_ppm:.1f} pages/min with one worker, "
            f"{self.two_workers_ppm:.1f} with two; peak OCR process memory "
            f"{self.peak_rss_mb:.0f} MB",
            "per contract: pages, seconds, CER, mean word confidence, pages flagged",
        ]
        for c in self.contracts:
            conf = f"{c.mean_confidence:.1f}" if c.mean_confidence is not None else "-"
            lines.append(
                f"  {c.name[:60]:60} {c.pages:3d} {c.seconds:6.1f} {c.cer:.4f} {conf:>5} "
                f"{','.join(map(str, c.low_pages)) or '-'}"
            )
        return "\n".join(lines)


def _read(path: Path, pdf: bytes, options: OcrOptions) -> ContractRun:
    truth = path.read_text(encoding="utf-8")
    started = time.perf_counter()
    result = extract_text(pdf, f"{path.stem}.pdf", max_bytes=1 << 31, ocr=options)
    seconds = time.perf_counter() - started
    report = result.ocr
    return ContractRun(
        name=path.name,
        pages=result.pages or 0,
        seconds=seconds,
        cer=cer(truth, result.text),
        mean_confidence=report.mean_confidence if report else None,
        low_pages=report.low_pages if report else [],
        text=result.text,
    )


def _recall(items: list[gold.GoldItem], cache: Path) -> float:
    from legalnav.evaluation.runner import Workbench, evaluate_item

    bench = Workbench(cache_dir=cache)
    scores = []
    for item in items:
        result = evaluate_item(bench, item, "navembed", k=10)
        span = result.metrics.get("span", {}) if result.metrics else {}
        scores.append(float(span.get("recall@10", 0.0)))  # type: ignore[union-attr]
    return sum(scores) / len(scores) if scores else float("nan")


def run(
    *,
    contracts: int = 20,
    sequential: int = 3,
    style: scans.ScanStyle | None = None,
    cache: Path,
    progress: Callable[[str], None] = print,
) -> OcrBench:
    style = style or scans.ScanStyle(rotated=(2,), seed=1)
    items = gold.cuad_items(contracts=40)
    names: list[str] = []
    for item in items:
        if item.documents[0] not in names:
            names.append(item.documents[0])
    paths = [Path(p) for p in names[:contracts]]
    one = OcrOptions(jobs=1)
    progress(f"scanning {len(paths)} contracts")
    pdfs = {p: scans.scan(p.read_text(encoding="utf-8"), style) for p in paths}

    # Two workers: two files at once, one Tesseract each (as two Celery workers would).
    started = time.perf_counter()
    runs: list[ContractRun] = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        for run_ in pool.map(lambda p: _read(p, pdfs[p], one), paths):
            runs.append(run_)
            progress(f"  {run_.name[:60]}: {run_.pages} pages, CER {run_.cer:.4f}")
    two_ppm = sum(r.pages for r in runs) / ((time.perf_counter() - started) / 60)

    # One worker: the first few files again, one after another.
    seq = [_read(p, pdfs[p], one) for p in paths[:sequential]]
    one_ppm = sum(r.pages for r in seq) / (sum(r.seconds for r in seq) / 60)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    # Recall: the same questions asked of the original text and of the scanned text.
    wanted = {str(p) for p in paths}
    asked = [i for i in items if i.documents[0] in wanted]
    by_path = {str(p): r for p, r in zip(paths, runs, strict=True)}
    with tempfile.TemporaryDirectory(prefix="legalnav-ocr-bench-") as tmp:
        scanned_items = []
        maps: dict[str, Callable[[int], int]] = {}
        for path in paths:
            out = Path(tmp) / path.name
            out.write_text(by_path[str(path)].text, encoding="utf-8")
            maps[str(path)] = offset_map(path.read_text(encoding="utf-8"), by_path[str(path)].text)
        for item in asked:
            to = maps[item.documents[0]]
            scanned_items.append(
                replace(
                    item,
                    documents=[str(Path(tmp) / Path(item.documents[0]).name)],
                    spans=[(d, to(s), max(to(s) + 1, to(e))) for d, s, e in item.spans],
                )
            )
        progress(f"recall@10 on {len(asked)} questions, text and scanned")
        recall_text = _recall(asked, cache)
        recall_scanned = _recall(scanned_items, cache)
    return OcrBench(
        contracts=runs,
        one_worker_ppm=one_ppm,
        two_workers_ppm=two_ppm,
        peak_rss_mb=peak,
        recall_text=recall_text,
        recall_scanned=recall_scanned,
        questions=len(asked),
    )
