"""Measurements for precedent research: AILA 2019 prior-case retrieval, the offline stance
classifier, and routing accuracy on the gold file. Used by ``manage.py research_eval``; it lives
with the other measurement, in the bench app.

Metrics follow trec_eval's definitions: average precision over all relevant documents (a
relevant one never retrieved counts as precision 0), P@10, recall at 100 and the reciprocal rank
of the first relevant document; each is averaged over the queries that have at least one
relevant document.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

# The research app's gold files (hand-labelled questions, routes and stances).
GOLD_DIR = Path(__file__).resolve().parents[1] / "research" / "gold"
GOLD_ROUTING = GOLD_DIR / "routing.jsonl"


# --- retrieval metrics -------------------------------------------------------------------------


def average_precision(ranking: list[str], relevant: set[str]) -> float:
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for i, doc in enumerate(ranking, 1):
        if doc in relevant:
            hits += 1
            total += hits / i
    return total / len(relevant)


def precision_at(ranking: list[str], relevant: set[str], k: int) -> float:
    return sum(1 for d in ranking[:k] if d in relevant) / k


def recall_at(ranking: list[str], relevant: set[str], k: int) -> float:
    if not relevant:
        return 0.0
    return sum(1 for d in ranking[:k] if d in relevant) / len(relevant)


def reciprocal_rank(ranking: list[str], relevant: set[str]) -> float:
    for i, doc in enumerate(ranking, 1):
        if doc in relevant:
            return 1.0 / i
    return 0.0


def retrieval_metrics(
    rankings: dict[str, list[str]], qrels: dict[str, set[str]]
) -> dict[str, float | int]:
    queries = [q for q in qrels if qrels[q]]
    n = len(queries) or 1

    def mean(fn: Callable[[list[str], set[str]], float]) -> float:
        return round(sum(fn(rankings.get(q, []), qrels[q]) for q in queries) / n, 4)

    return {
        "queries": len(queries),
        "relevant": sum(len(qrels[q]) for q in queries),
        "MAP": mean(average_precision),
        "P@10": mean(lambda r, rel: precision_at(r, rel, 10)),
        "Recall@100": mean(lambda r, rel: recall_at(r, rel, 100)),
        "MRR": mean(reciprocal_rank),
    }


# --- AILA 2019 --------------------------------------------------------------------------------


@dataclass(slots=True)
class AilaDev:
    queries: dict[str, str]
    qrels: dict[str, set[str]]
    casedocs: list[Path]


def aila_dev(folder: Path) -> AilaDev:
    """The dev queries (``ID||text``), the prior-case qrels (relevance > 0) and the case files."""
    queries: dict[str, str] = {}
    for line in (folder / "queries_dev.txt").read_text(encoding="utf-8").splitlines():
        if "||" in line:
            qid, text = line.split("||", 1)
            queries[qid.strip()] = text.strip()
    qrels: dict[str, set[str]] = {q: set() for q in queries}
    for line in (folder / "qrels_priorcases_dev.txt").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 4 and int(parts[3]) > 0:
            qrels.setdefault(parts[0], set()).add(parts[2])
    casedocs = sorted((folder / "casedocs").glob("C*.txt"), key=lambda p: int(p.stem[1:]))
    return AilaDev(queries, qrels, casedocs)


# --- stance ---------------------------------------------------------------------------------


@dataclass(slots=True)
class LabelScores:
    n: int = 0
    accuracy: float = 0.0
    macro_f1: float = 0.0
    per_label: dict[str, dict[str, float]] = field(default_factory=dict)
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def label_scores(gold: list[str], predicted: list[str], labels: Iterable[str]) -> LabelScores:
    labels = list(labels)
    out = LabelScores(n=len(gold))
    if not gold:
        return out
    out.accuracy = round(sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold), 4)
    f1s = []
    for label in labels:
        tp = sum(1 for g, p in zip(gold, predicted, strict=True) if g == label and p == label)
        fp = sum(1 for g, p in zip(gold, predicted, strict=True) if g != label and p == label)
        fn = sum(1 for g, p in zip(gold, predicted, strict=True) if g == label and p != label)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out.per_label[label] = {
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "support": sum(1 for g in gold if g == label),
        }
        if any(g == label for g in gold):
            f1s.append(f1)
    out.macro_f1 = round(sum(f1s) / len(f1s), 4) if f1s else 0.0
    out.confusion = {
        g: {
            p: sum(1 for a, b in zip(gold, predicted, strict=True) if a == g and b == p)
            for p in labels
        }
        for g in labels
    }
    return out


def overruling_rows(path: Path) -> list[tuple[str, str]]:
    """(label "Yes"/"No", sentence) from LegalBench's overruling ``train.tsv``."""
    import csv

    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        return [(row["label"].strip(), row["text"]) for row in reader]


def silver_rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def sample(rows: list, n: int, seed: int = 5) -> list:  # type: ignore[type-arg]
    rng = random.Random(seed)
    picked = sorted(rng.sample(range(len(rows)), min(n, len(rows))))
    return [rows[i] for i in picked]


# --- routing --------------------------------------------------------------------------------


def routing_gold(path: Path = GOLD_ROUTING) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# --- running the measurements ---------------------------------------------------------------


def missing_vectors(docs: list, embedder_name: str) -> int:  # type: ignore[type-arg]
    """Passages without a cached vector for this embedder (dense runs need none missing)."""
    import numpy as np

    missing = 0
    for d in docs:
        if d.vectors is None or d.embedder != embedder_name:
            missing += len(d.passages)
        elif len(d.passages):
            missing += int(np.isnan(d.vectors[:, 0]).sum())
    return missing


def aila_rankings(
    dev: AilaDev,
    *,
    modes: list[str],
    cache_folder: Path,
    depth: int = 1000,
    engine: bool = False,
) -> dict[str, object]:
    """Rank the AILA case documents for each dev query in each mode; returns metrics per mode
    (and, with ``engine``, the engine's own one-result-per-document ranking for comparison)."""
    import time

    from legalnav.research.search import JudgmentSearch
    from legalnav.retrieval.embeddings import get_embedder
    from legalnav.retrieval.engine import Corpus, Retriever, rank_documents
    from legalnav.retrieval.index import IndexCache

    cache = IndexCache(cache_folder, keep=len(dev.casedocs) + 10)
    started = time.perf_counter()
    docs = [cache.get(p.read_bytes().decode("utf-8")) for p in dev.casedocs]
    names = [p.stem for p in dev.casedocs]
    load_s = time.perf_counter() - started
    wants_dense = any(m in ("dense", "hybrid") for m in modes)
    embedder = get_embedder() if wants_dense else None
    if embedder is not None:
        missing = missing_vectors(docs, embedder.name)
        if missing:
            raise RuntimeError(
                f"{missing} passages have no cached vector yet: dense runs would embed them now. "
                "Wait for the embedding run to finish (or run the bm25 mode only)."
            )
    corpus = Corpus(docs, embedder=embedder)
    search = JudgmentSearch(corpus)
    single = JudgmentSearch(corpus, windows=False)  # the question as one (truncated) query
    passage = JudgmentSearch(corpus, facts=False)  # lexically by best passage, as before
    out: dict[str, object] = {
        "documents": len(docs),
        "passages": corpus.size,
        "load_seconds": round(load_s, 1),
    }

    def scored(rank: Callable[[str], list[str]]) -> dict[str, float | int]:
        """Each dev query ranked by ``rank``, scored, with the seconds a query took."""
        t = time.perf_counter()
        rankings = {q: rank(text) for q, text in dev.queries.items()}
        metrics = retrieval_metrics(rankings, dev.qrels)
        metrics["seconds_per_query"] = round((time.perf_counter() - t) / len(dev.queries), 2)
        return metrics

    def by(searcher: JudgmentSearch, mode: str) -> Callable[[str], list[str]]:
        searcher._matrix = search._matrix  # noqa: SLF001 - the same vectors, stacked once
        return lambda text: [
            names[h.doc] for h in searcher.judgments(text, mode=mode, k=depth, per_doc=1)
        ]

    retriever = Retriever(corpus) if engine else None
    for mode in modes:
        out[f"research:{mode}"] = scored(by(search, mode))
        if mode in ("bm25", "hybrid"):
            out[f"research:{mode}:best-passage"] = scored(by(passage, mode))
        if mode in ("dense", "hybrid"):
            out[f"research:{mode}:one-window"] = scored(by(single, mode))
        if retriever is not None:
            strategy = {"bm25": "navembed:bm25", "dense": "navembed:dense", "hybrid": "navembed"}[
                mode
            ]
            out[f"engine:{mode}"] = scored(
                lambda text, s=strategy, r=retriever: [
                    names[h.doc] for h in rank_documents(r, text, s, depth).hits
                ]
            )
    return out


# --- reading research questions (issue 17's gold file) ------------------------------------------

GOLD_QUESTIONS = GOLD_DIR / "research_questions.jsonl"
GOLD_AILA_STANCE = GOLD_DIR / "aila_stance.jsonl"


def side_is_right(gold: dict[str, object], side: object) -> bool:
    """Whether a read side matches the gold one. A side may be named by its role or by where it
    sits ("the respondent State" is right for gold "respondent" and for "prosecution")."""
    expected = gold.get("side")
    role, label, position, party = (
        str(getattr(side, "role", "")),
        str(getattr(side, "label", "")),
        str(getattr(side, "position", "")),
        str(getattr(side, "party", "")),
    )
    if expected is None:
        return not role
    if expected == "named party":
        wanted = str(gold.get("party") or "").lower()
        return bool(party) and party.lower().removeprefix("m/s ").split()[0] in wanted
    names = {role, label, position} | ({"prosecution"} if role == "state" else set())
    return expected in names


def reading_scores(split: str, path: Path = GOLD_QUESTIONS) -> dict[str, object]:
    """Route and side accuracy of the offline reading on one half of the gold questions, with
    every miss and every proposition read (for the hand check)."""
    from legalnav.research.reading import read_question
    from legalnav.research.router import route_offline

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    rows = [r for r in rows if split in ("all", r["split"])]
    route_right = side_right = 0
    misses: list[dict[str, object]] = []
    propositions: list[dict[str, str]] = []
    clarify_choices = 0
    clarify_with_choices = 0
    for r in rows:
        route = route_offline(r["question"])
        reading = read_question(r["question"])
        ok_route = route.route == r["route"]
        ok_side = side_is_right(r, reading.side)
        route_right += ok_route
        side_right += ok_side
        if r.get("choices"):
            clarify_choices += 1
            clarify_with_choices += all(
                any(f"for the {c}." in o for o in route.options) for c in r["choices"]
            )
        if not (ok_route and ok_side):
            misses.append(
                {
                    "id": r["id"],
                    "route": [r["route"], route.route],
                    "side": [r["side"], reading.side.describe() if reading.side.known else None],
                }
            )
        if r["route"] == "deep":
            propositions.append(
                {
                    "id": r["id"],
                    "read": reading.proposition,
                    "by": reading.proposition_from,
                    "gold": str(r.get("proposition") or ""),
                }
            )
    n = len(rows) or 1
    return {
        "split": split,
        "n": len(rows),
        "route_accuracy": round(route_right / n, 4),
        "side_accuracy": round(side_right / n, 4),
        "side_missing_offered_the_right_choices": f"{clarify_with_choices}/{clarify_choices}",
        "misses": misses,
        "propositions": propositions,
    }


# --- stance on AILA briefs for the appellant -------------------------------------------------------

AILA_BRIEF = "Prepare a research brief for the appellant, with authorities for and against. {facts}"


def aila_stance_scores(
    folder: Path, path: Path = GOLD_AILA_STANCE, *, read: Callable[[str], object] | None = None
) -> dict[str, object]:
    """Each AILA dev query rewritten as a brief for its appellant; each hand-labelled judgment's
    offline stance for the side read from that brief, against the hand label (stance on the
    issue) and against who won (the outcome for a party in the appellant's position).

    ``read`` reads the side (default: today's reader), so an older reader can be scored too."""
    from legalnav.research.judgments import case_card
    from legalnav.research.reading import read_side
    from legalnav.research.stance import CardFacts, judgment_stance

    read = read or read_side
    dev = aila_dev(folder)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    cards: dict[str, CardFacts] = {}
    gold, by_outcome, predicted, reasons = [], [], [], []
    sides: dict[str, str] = {}
    for r in rows:
        question = AILA_BRIEF.format(facts=dev.queries[r["query"]])
        side = read(question)
        sides[r["query"]] = (
            side.describe()
            if getattr(side, "known", False) and hasattr(side, "describe")
            else str(getattr(side, "role", "")) or "not read"
        )
        if r["doc"] not in cards:
            text = (folder / "casedocs" / f"{r['doc']}.txt").read_text(encoding="utf-8")
            cards[r["doc"]] = CardFacts.of(case_card(text))
        stance = judgment_stance(side, cards[r["doc"]])  # type: ignore[arg-type]
        gold.append(r["stance"])
        by_outcome.append(
            {"won": "supporting", "lost": "adverse"}.get(r["outcome_for_same_party"], "neutral")
        )
        predicted.append(stance.bucket)
        reasons.append(
            {
                "query": r["query"],
                "doc": r["doc"],
                "gold": r["stance"],
                "got": stance.bucket,
                "reason": stance.reason,
            }
        )
    labels = ["supporting", "adverse", "neutral"]
    on_issue = label_scores(gold, predicted, labels)
    on_outcome = label_scores(by_outcome, predicted, labels)
    return {
        "pairs": len(rows),
        "sides_read": sides,
        "vs_hand_stance": on_issue.as_dict(),
        "adverse_recall_vs_hand": on_issue.per_label.get("adverse", {}).get("recall", 0.0),
        "vs_outcome_for_same_party": on_outcome.as_dict(),
        "adverse_recall_vs_outcome": on_outcome.per_label.get("adverse", {}).get("recall", 0.0),
        "reasons": reasons,
    }


# --- stance on the issue, by holdings: the old, tuning and blind sets ---------------------------

STANCE_SETS = {
    # Tuned on: the AILA pairs of the first stance work and the EWCA tuning set.
    "old": ("aila_stance.jsonl",),
    "tune": ("aila_stance.jsonl", "stance_tune_ewca.jsonl"),
    # The blind sets, each scored once the day it was frozen (2026-12-04, 2026-12-05, the third,
    # 2026-12-05b, and the fourth, 2026-12-05c): spent, so tuned on since.
    "spent": (
        "stance_blind_2026-12-04.jsonl",
        "stance_blind_2026-12-05.jsonl",
        "stance_blind_2026-12-05b.jsonl",
        "stance_blind_2026-12-05c.jsonl",
    ),
    # Everything a reader may be tuned on: the sets above together (458 pairs).
    "all-tune": (
        "aila_stance.jsonl",
        "stance_tune_ewca.jsonl",
        "stance_blind_2026-12-04.jsonl",
        "stance_blind_2026-12-05.jsonl",
        "stance_blind_2026-12-05b.jsonl",
        "stance_blind_2026-12-05c.jsonl",
    ),
    # The fourth blind set alone (2026-12-05c), frozen before any reader change was made against
    # it and scored once (docs/research.md): spent since.
    "blind": ("stance_blind_2026-12-05c.jsonl",),
}


def stance_pairs(name: str, folder: Path) -> list[dict[str, object]]:
    """The (brief, judgment, stance) pairs of a named set; an old AILA row gets its brief."""
    dev = aila_dev(folder / "aila2019")
    rows: list[dict[str, object]] = []
    for file in STANCE_SETS[name]:
        for line in (GOLD_DIR / file).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            r.setdefault("source", "aila")
            if "brief" not in r:
                r["brief"] = AILA_BRIEF.format(facts=dev.queries[r["query"]])
            rows.append(r)
    return rows


def judgment_text(folder: Path, source: str, doc: str) -> str:
    path = (
        folder / "aila2019" / "casedocs" / f"{doc}.txt"
        if source == "aila"
        else folder / "uk-ewca-civ-2020" / "txt" / f"{doc}.txt"
    )
    return path.read_text(encoding="utf-8")


def _document_share(folder: Path, source: str) -> tuple[Callable[[str], float], int]:
    """A token's share of the source's judgments (every AILA case document, or every EWCA 2020
    judgment): the matter research would run in."""
    from legalnav.retrieval.bm25 import tokenize

    files = sorted(
        (folder / "aila2019" / "casedocs").glob("*.txt")
        if source == "aila"
        else (folder / "uk-ewca-civ-2020" / "txt").glob("*.txt")
    )
    counts: dict[str, int] = {}
    for f in files:
        for token in set(tokenize(f.read_text(encoding="utf-8", errors="replace"))):
            counts[token] = counts.get(token, 0) + 1
    return lambda token: counts.get(token, 0) / max(1, len(files)), len(files)


def stance_set_scores(
    name: str, folder: Path, *, embedder: object | None = None
) -> dict[str, object]:
    """Each pair's stance on the issue as research gives it offline (side and issue read from
    the brief, the holding nearest the issue, the outcome's side), against the hand label;
    overall and per source (AILA, EWCA). ``folder`` is the shared data's judgments folder."""
    from legalnav.research.holding import issue_of, match_holdings
    from legalnav.research.judgments import case_card
    from legalnav.research.reading import read_question
    from legalnav.research.stance import CardFacts, holding_stance

    rows = stance_pairs(name, folder)
    shares = {src: _document_share(folder, src) for src in {str(r["source"]) for r in rows}}
    cards: dict[tuple[str, str], tuple[str, object]] = {}
    results: list[dict[str, object]] = []
    for r in rows:
        source, doc = str(r["source"]), str(r["doc"])
        if (source, doc) not in cards:
            text = judgment_text(folder, source, doc)
            cards[(source, doc)] = (text, case_card(text))
        text, card = cards[(source, doc)]
        reading = read_question(str(r["brief"]))
        issue = issue_of(str(r["brief"]), reading.proposition, reading.proposition_from)
        # As research runs in a matter of the source's judgments (the issue's own words test
        # included).
        share, in_matter = shares[source]
        match = match_holdings(
            issue.text,
            [(text, card.holdings)],  # type: ignore[attr-defined]
            embedder,
            share,
            in_matter,
        )[0]
        stance = holding_stance(reading.side, CardFacts.of(card), match, issue)
        results.append(
            {
                "source": source,
                "query": r["query"],
                "doc": doc,
                "gold": r["stance"],
                "got": stance.bucket,
                "stance_from": stance.source,
                "holding_score": match.score if match else None,
                "reason": stance.reason,
                "quotes_a_holding": bool(stance.quote) and stance.source == "holding",
            }
        )
    labels = ["supporting", "adverse", "neutral"]

    def scored(subset: list[dict[str, object]]) -> dict[str, object]:
        s = label_scores([str(x["gold"]) for x in subset], [str(x["got"]) for x in subset], labels)
        per = s.per_label
        decided = [x for x in subset if x["got"] in ("supporting", "adverse")]
        return {
            "pairs": len(subset),
            "accuracy": s.accuracy,
            "neutral_recall": per.get("neutral", {}).get("recall", 0.0),
            "adverse_recall": per.get("adverse", {}).get("recall", 0.0),
            "supporting_precision": per.get("supporting", {}).get("precision", 0.0),
            "decided_with_a_holding_quoted": f"{sum(1 for x in decided if x['quotes_a_holding'])}/{len(decided)}",
            "confusion": s.confusion,
        }

    return {
        "set": name,
        "files": list(STANCE_SETS[name]),
        "by": "embeddings" if embedder is not None else "words",
        "all": scored(results),
        "by_source": {
            src: scored([x for x in results if x["source"] == src])
            for src in sorted({str(x["source"]) for x in results})
        },
        "pairs": results,
    }
