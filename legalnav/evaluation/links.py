"""How well legalnav proposes what an amendment amends: ``manage.py evaluate_links``.

Every CUAD contract and EDGAR 2020 agreement in ../shared/data is one matter (a 502-document
data room); each document is read for the instrument it names (documents/parsing/amends.py) and
a link is proposed among all the others. The gold (gold/amendment_links.json) was built by hand
from the documents' own words: 16 links whose target is in the set, 15 amendments whose target
is not (no link is right), and every other document amends nothing.

Reported: precision of the links proposed, recall of the gold links, and the wrong links by
kind (to the wrong document; for an amendment whose target is absent; for a document that
amends nothing). The proposer's rules were written while reading these documents: the figures
are in-sample.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from legalnav.documents.parsing.amends import Candidate, propose
from legalnav.documents.parsing.values import extract_title
from legalnav.evaluation import gold

GOLD = Path(__file__).resolve().parent / "gold" / "amendment_links.json"


@dataclass
class LinkFigures:
    documents: int
    gold_links: int
    proposed: int
    right: int
    wrong_target: list[tuple[str, str, str]] = field(default_factory=list)
    absent_target: list[tuple[str, str]] = field(default_factory=list)
    not_an_amendment: list[tuple[str, str]] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.right / self.proposed if self.proposed else float("nan")

    @property
    def recall(self) -> float:
        return self.right / self.gold_links if self.gold_links else float("nan")

    def table(self) -> str:
        lines = [
            f"{self.documents} documents (CUAD 408 + EDGAR 2020), one matter; {self.gold_links} "
            "gold links (in-sample: the rules were written reading these documents)",
            f"proposed {self.proposed}, right {self.right}: precision {self.precision:.3f}, "
            f"recall {self.recall:.3f}",
            f"wrong target {len(self.wrong_target)}, linked though the amended document is "
            f"absent {len(self.absent_target)}, linked though it amends nothing "
            f"{len(self.not_an_amendment)}, missed {len(self.missed)}",
        ]
        for doc, got, want in self.wrong_target:
            lines.append(f"  wrong: {doc} -> {got} (gold {want})")
        for doc, got in self.absent_target + self.not_an_amendment:
            lines.append(f"  spurious: {doc} -> {got}")
        for doc in self.missed:
            lines.append(f"  missed: {doc}")
        return "\n".join(lines)


def _documents(data: Path) -> dict[str, str]:
    paths = sorted((data / "cuad" / "contracts").glob("*.txt")) + sorted(
        (data / "agreements" / "edgar2020").glob("ud*.txt")
    )
    return {
        str(p.relative_to(data)): p.read_text(encoding="utf-8", errors="replace") for p in paths
    }


def run(data: Path | None = None) -> LinkFigures:
    data = data or gold.data_dir()
    spec = json.loads(GOLD.read_text(encoding="utf-8"))
    truth = {row["document"]: row["amends"] for row in spec["links"]}
    undecidable = set(spec.get("undecidable", []))
    texts = _documents(data)
    candidates = {}
    for key, text in texts.items():
        title = extract_title(text)
        candidates[key] = Candidate.of(key, text, title.display if title else "")
    figures = LinkFigures(
        documents=len(texts),
        gold_links=sum(1 for v in truth.values() if v),
        proposed=0,
        right=0,
    )
    for key, text in texts.items():
        if key in undecidable:
            continue
        got = propose(text, [c for k, c in candidates.items() if k != key])
        want = truth.get(key)
        if got is not None:
            figures.proposed += 1
            if got.key == want:
                figures.right += 1
            elif want:
                figures.wrong_target.append((key, got.key, want))
            elif key in truth:
                figures.absent_target.append((key, got.key))
            else:
                figures.not_an_amendment.append((key, got.key))
        if (
            want
            and (got is None or got.key != want)
            and not any(w[0] == key for w in figures.wrong_target)
        ):
            figures.missed.append(key)
    return figures
