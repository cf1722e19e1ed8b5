"""Retrieval parameters fitted by k-fold cross-validation on the dev data, not picked by eye.

Retrieval parameters (fusion weights, cut-offs, boosts) are Django settings read at query time
(``LEGALNAV_FUSION_ALPHA``, ``LEGALNAV_DENSE_WEIGHT``, ...). A grid maps setting names to lists
of values; each combination is a config. Every question of a gold set is answered once per
config, in-process (the engine the measurement door calls, under ``override_settings``), and
scored by the door's rule (``door.score_door``): hit@1, hit@10, MRR@10 and the share of the
documents' characters returned in the top 10. Those per-question results are cached on disk per
config, so choosing among them is cheap.

The questions are split into k folds by document (the contract a question is about; for the
named matter, the contract it names), so no document is in both the fold that chooses and the
fold that is scored. For each fold the config with the best objective (MRR@10 by default) whose
mean share stays within a budget is chosen on the other folds and scored on this one. The spread
of those held-out figures (mean ± sd, min–max) is what the dev figure can be expected to do on
documents it has not seen; the config chosen on all the data, scored on the same data, is the
optimistic figure beside it.

The naive floor (``baselines.py``: 500-character chunks overlapping by 100, BM25 and MiniLM
fused by RRF, k = 60) is scored at equal text: per question it returns its chunks best-first
until it has returned as many characters as legalnav's top 10 did for that question under the
chosen config (the last chunk cut to fit). Its hit@10 and MRR@10 are therefore "within that
text", whatever the number of chunks.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.test import override_settings

from legalnav.core.lru import LruCache
from legalnav.evaluation import gold, metrics
from legalnav.evaluation.gold import GoldItem

if TYPE_CHECKING:
    from legalnav.retrieval.engine import Retriever

logger = logging.getLogger(__name__)

K = 10
NAIVE_DEPTH = 100  # chunks of the naive floor kept per question (enough for any budget here)
MAX_CONFIGS = 64
OBJECTIVES = ("mrr@10", "hit@1", "hit@10")
REPORTED = ("hit@1", "hit@10", "mrr@10", "share", "payload_share")
GOLD_CHOICES = ("cuad", "contractnli", "named")
_MISS = ("hit@1", "hit@10", "mrr@10", "share", "returned_chars", "payload_share")
# Settings read when a document is indexed rather than when a question is asked: a config that
# changes them needs indexes of its own (IndexCache's key includes them).
INDEX_SETTINGS = frozenset({"LEGALNAV_PASSAGE_TARGET", "LEGALNAV_PASSAGE_MAX"})
_PACKAGE = Path(__file__).resolve().parents[1]
# Code whose change changes the per-question results (the cached results are keyed by it).
_RESULT_SOURCES = (
    "retrieval",
    "documents/parsing",
    "evaluation/metrics.py",
    "evaluation/crossval.py",
)

Config = dict[str, Any]
Record = dict[str, Any]  # metric -> value, and "q": the digest of the question it answers
Table = dict[str, dict[str, Record]]  # config key -> item id -> per-question result


class CrossValError(ValueError):
    """A grid, fold count or objective that cannot be used; the message says why."""


# --- gold sets -------------------------------------------------------------------------------


def _parties(answer: str) -> list[str]:
    """'Array BioPharma Inc., ("Array"); Ono Pharmaceutical Co., Ltd. ("Ono"); …' -> names."""
    out = []
    for part in re.split(r";|\n", answer):
        name = re.sub(r"\([^)]*\)|“[^”]*”|\"[^\"]*\"", " ", part)
        name = " ".join(name.split()).strip(" ,.")
        if name and not re.search(r"\b(?:party|parties)\b", name, re.I):
            out.append(name)
    return out[:2]


def named_matter_items(contracts: int | None = 40, limit: int | None = None) -> list[GoldItem]:
    """The named matter: the dev CUAD contracts in one matter, and each clause question naming
    its contract the way a lawyer would, from the contract's own Document Name and Parties gold
    answers ("In the SUPPLY AGREEMENT between A and B: …"). Used by scripts/eval_named_matter.py
    and by the cross-validation here."""
    rows = [
        json.loads(line)
        for line in (gold.data_dir() / "cuad" / "spans.jsonl").open(encoding="utf-8")
        if line.strip()
    ]
    title = {r["doc"]: r["answer"] for r in rows if r["category"] == "Document Name"}
    parties = {r["doc"]: _parties(r["answer"]) for r in rows if r["category"] == "Parties"}
    items = gold.cuad_items(contracts=contracts)
    paths = sorted({i.documents[0] for i in items})
    for item in items:
        name = Path(item.documents[0]).name
        named = title.get(name, "the agreement").strip()
        who = parties.get(name, [])
        if len(who) >= 2:
            named += f" between {who[0]} and {who[1]}"
        elif who:
            named += f" with {who[0]}"
        position = paths.index(item.documents[0])
        item.question = f"In the {named}: {item.question}"
        item.documents = paths
        item.spans = [(position, s, e) for _, s, e in item.spans]
    return gold._stride_sample(items, limit)


def gold_items(
    name: str, *, contracts: int | None = 40, limit: int | None = None
) -> list[GoldItem]:
    """cuad (the 40-contract dev sample), contractnli (all dev hypotheses with evidence) or
    named (the CUAD dev contracts as one matter, each question naming its contract)."""
    if name == "cuad":
        items = gold._stride_sample(gold.cuad_items(contracts=contracts), limit)
    elif name == "contractnli":
        items = gold.contractnli_items(limit=limit)
    elif name == "named":
        items = named_matter_items(contracts, limit)
    else:
        raise CrossValError(f"unknown gold set {name!r}; use one of {', '.join(GOLD_CHOICES)}")
    return [i for i in items if i.spans]


def document_of(item: GoldItem) -> str:
    """The document a question is about: the one holding its gold spans (for the named matter,
    the contract the question names)."""
    return item.documents[item.spans[0][0]]


# --- grid ------------------------------------------------------------------------------------


def parse_grid(spec: str | dict[str, Any]) -> dict[str, list[Any]]:
    """A grid from a dict, a JSON object, or the path of a JSON file: setting -> values (a single
    value counts as a list of one)."""
    if isinstance(spec, str):
        text = spec
        if not spec.lstrip().startswith("{"):
            text = Path(spec).read_text(encoding="utf-8")
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CrossValError(f"the grid is not JSON: {exc.msg}") from exc
    if not isinstance(spec, dict) or not spec:
        raise CrossValError("the grid must be a JSON object: setting name -> list of values")
    grid: dict[str, list[Any]] = {}
    for name, values in spec.items():
        if not isinstance(name, str) or not name.isupper():
            raise CrossValError(f"{name!r} is not a setting name (upper case)")
        values = values if isinstance(values, list) else [values]
        if not values:
            raise CrossValError(f"{name} has no values")
        grid[name] = values
    return grid


def unread_settings(names: Iterable[str]) -> list[str]:
    """The names that neither settings nor any module of the project mentions: a typo would
    otherwise give configs that all answer alike."""
    sources = None
    missing = []
    for name in names:
        if hasattr(settings, name):
            continue
        if sources is None:
            sources = "\n".join(
                p.read_text(encoding="utf-8", errors="replace") for p in _PACKAGE.rglob("*.py")
            )
        if name not in sources:
            missing.append(name)
    return missing


def expand_grid(grid: dict[str, list[Any]], *, cap: int = MAX_CONFIGS) -> list[Config]:
    """The cartesian product of the grid, in grid order; more than ``cap`` configs is an error."""
    size = 1
    for values in grid.values():
        size *= len(values)
    if size > cap:
        raise CrossValError(f"the grid makes {size} configs, more than the cap of {cap}")
    names = list(grid)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grid.values())]


def config_key(config: Config) -> str:
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def config_label(config: Config) -> str:
    return " ".join(f"{k.removeprefix('LEGALNAV_')}={v}" for k, v in config.items()) or "(none)"


# --- folds -----------------------------------------------------------------------------------


def assign_folds(documents: Iterable[str], k: int, *, seed: str = "") -> dict[str, int]:
    """Document -> fold in 0..k-1: documents ordered by a hash of their file name (and the
    seed), then dealt round-robin, so folds differ in size by at most one document and the
    assignment depends neither on the machine nor on the order the documents come in."""
    names = sorted(set(documents))
    if k < 2:
        raise CrossValError("cross-validation needs at least 2 folds")
    if len(names) < k:
        raise CrossValError(f"{len(names)} documents cannot make {k} folds")
    order = sorted(
        names,
        key=lambda d: (hashlib.sha256(f"{seed}|{Path(d).name}".encode()).hexdigest(), d),
    )
    return {d: i % k for i, d in enumerate(order)}


def item_folds(items: Sequence[GoldItem], k: int, *, seed: str = "") -> dict[str, int]:
    """Item id -> fold, by the document each question is about."""
    by_doc = assign_folds((document_of(i) for i in items), k, seed=seed)
    return {i.id: by_doc[document_of(i)] for i in items}


def topic_fold_settings(
    items: Sequence[GoldItem], k: int, seed: str = ""
) -> tuple[Callable[[GoldItem], Config], str]:
    """For a gold set whose topic models were trained on its own documents (ContractNLI): each
    question is answered with the model trained without its fold
    (``scripts/train_topics.py contractnli --folds k --write``), so the held-out folds are held
    out from the topic model too. Returns the per-item settings and their fingerprint label."""
    folder = Path(settings.VAR_DIR) / "evaluation" / "topic-folds"
    fold_of = item_folds(items, k, seed=seed)
    models = {f: folder / f"contractnli-fold{f}.json" for f in range(k)}
    missing = [str(p) for p in models.values() if not p.exists()]
    if seed or missing:
        raise CrossValError(
            "topic fold models need the default fold assignment and "
            f"scripts/train_topics.py contractnli --folds {k} --write"
            + (f" (missing: {', '.join(missing)})" if missing else "")
        )

    def per_item(item: GoldItem) -> Config:
        return {"LEGALNAV_TOPIC_MODELS": ["cuad", str(models[fold_of[item.id]])]}

    label = _digest(*(p.read_text(encoding="utf-8") for p in models.values()))[:12]
    return per_item, f"topic-folds:{label}"


# --- scoring ---------------------------------------------------------------------------------


def score_ranges(
    item: GoldItem, returned: Sequence[metrics.Range], total_chars: int, k: int = K
) -> Record:
    """One question's figures, by score_door's rule: a returned range hits a gold span when
    they overlap in the same document; share = characters of the top k over all characters."""
    gold_ranges = [metrics.Range(d, s, e) for d, s, e in item.spans]
    covers = metrics.span_covers(list(returned[:k]), gold_ranges)
    measured = metrics.ranking_metrics(covers, len(gold_ranges))
    return {
        "hit@1": measured["hit@1"],
        "hit@10": measured["hit@10"],
        "mrr@10": measured["mrr@10"],
        "share": metrics.footprint(list(returned), total_chars, k),
        "returned_chars": float(sum(r.end - r.start for r in returned[:k])),
    }


def equal_text(ranked: Sequence[metrics.Range], budget: int) -> list[metrics.Range]:
    """Ranges best-first until ``budget`` characters: the last one is cut to fit, and none is
    returned for a budget of zero."""
    out: list[metrics.Range] = []
    left = max(0, int(budget))
    for r in ranked:
        if left <= 0:
            break
        size = r.end - r.start
        if size <= 0:
            continue
        if size > left:
            r = metrics.Range(r.doc, r.start, r.start + left)
            size = left
        out.append(r)
        left -= size
    return out


def score_equal_text(
    item: GoldItem, ranked: Sequence[metrics.Range], budget: int, total_chars: int
) -> Record:
    """The naive floor for one question at ``budget`` characters: hit@1 on its first chunk,
    hit@10 and MRR@10 over all the chunks that fit the budget (however many)."""
    kept = equal_text(ranked, budget)
    gold_ranges = [metrics.Range(d, s, e) for d, s, e in item.spans]
    covers = metrics.span_covers(kept, gold_ranges)
    n = max(1, len(kept))
    return {
        "hit@1": float(metrics.hit_at_k(covers, 1)),
        "hit@10": float(metrics.hit_at_k(covers, n)),
        "mrr@10": metrics.reciprocal_rank(covers, n),
        "share": sum(r.end - r.start for r in kept) / total_chars,
        "chunks": float(len(kept)),
    }


# --- selection -------------------------------------------------------------------------------


@dataclass(slots=True)
class Choice:
    key: str  # the chosen config's key
    objective: float  # its mean objective on the questions it was chosen on
    share: float  # its mean share there
    feasible: bool  # whether it met the share budget (False: no config did; the leanest chosen)
    ranking: list[tuple[str, float, float]] = field(default_factory=list)  # (key, obj, share)


def _mean(table: Table, key: str, ids: Sequence[str], metric: str) -> float:
    rows = table[key]
    return statistics.fmean(rows[i][metric] for i in ids) if ids else 0.0


def choose(
    table: Table,
    keys: Sequence[str],
    ids: Sequence[str],
    *,
    objective: str = "mrr@10",
    max_share: float | None = None,
) -> Choice:
    """The config (of ``keys``, in grid order) with the best mean objective over the questions
    ``ids`` among those whose mean share is within ``max_share``; ties go to the smaller share,
    then to the earlier config. When none is within the budget, the one with the smallest share
    is chosen and marked infeasible."""
    if objective not in OBJECTIVES:
        raise CrossValError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")
    if not keys or not ids:
        raise CrossValError("nothing to choose from")
    ranking = [(k, _mean(table, k, ids, objective), _mean(table, k, ids, "share")) for k in keys]
    budget = float("inf") if max_share is None else max_share + 1e-12
    feasible = [r for r in ranking if r[2] <= budget]
    if feasible:
        best = min(feasible, key=lambda r: (-r[1], r[2], keys.index(r[0])))
        return Choice(best[0], best[1], best[2], True, ranking)
    best = min(ranking, key=lambda r: (r[2], -r[1], keys.index(r[0])))
    return Choice(best[0], best[1], best[2], False, ranking)


def _figures(rows: Sequence[Record], names: Sequence[str] = REPORTED) -> dict[str, float]:
    return {m: round(statistics.fmean(r[m] for r in rows), 4) if rows else 0.0 for m in names}


def _spread(values: Sequence[float]) -> dict[str, float]:
    return {
        "mean": round(statistics.fmean(values), 4),
        "sd": round(statistics.stdev(values), 4) if len(values) > 1 else 0.0,
        "min": round(min(values), 4),
        "max": round(max(values), 4),
    }


def cross_validate(
    table: Table,
    items: Sequence[GoldItem],
    keys: Sequence[str],
    *,
    folds: int = 5,
    objective: str = "mrr@10",
    max_share: float | None = None,
    seed: str = "",
    baseline: Callable[[str, str], Record] | None = None,
) -> dict[str, Any]:
    """Choose on k-1 folds, score on the held-out one, for each fold; plus the choice on all
    the data. ``table`` holds every (config, question) result; ``baseline(key, item_id)``, when
    given, scores the naive floor for a question at the text that config returned for it."""
    fold_of = item_folds(items, folds, seed=seed)
    all_ids = [i.id for i in items]
    docs_in: dict[int, set[str]] = defaultdict(set)
    for item in items:
        docs_in[fold_of[item.id]].add(document_of(item))
    per_fold = []
    held_rows: list[Record] = []
    held_naive: list[Record] = []
    for f in range(folds):
        test = [i for i in all_ids if fold_of[i] == f]
        train = [i for i in all_ids if fold_of[i] != f]
        chosen = choose(table, keys, train, objective=objective, max_share=max_share)
        rows = [table[chosen.key][i] for i in test]
        held_rows += rows
        entry: dict[str, Any] = {
            "fold": f,
            "documents": len(docs_in[f]),
            "n": len(test),
            "chosen": keys.index(chosen.key),
            "train_objective": round(chosen.objective, 4),
            "train_share": round(chosen.share, 4),
            "feasible": chosen.feasible,
            "held_out": _figures(rows),
        }
        if baseline is not None:
            naive = [baseline(chosen.key, i) for i in test]
            held_naive += naive
            entry["naive"] = _figures(naive, REPORTED[:4])
        per_fold.append(entry)
    on_all = choose(table, keys, all_ids, objective=objective, max_share=max_share)
    report: dict[str, Any] = {
        "folds": per_fold,
        "spread": {m: _spread([f["held_out"][m] for f in per_fold]) for m in REPORTED},
        "pooled": _figures(held_rows),
        "chosen_on_all": {
            "config": keys.index(on_all.key),
            "feasible": on_all.feasible,
            "in_sample": _figures([table[on_all.key][i] for i in all_ids]),
        },
        "chosen_counts": dict(Counter(f["chosen"] for f in per_fold).most_common()),
        "per_config": [
            {
                "config": n,
                "figures": _figures([table[k][i] for i in all_ids]),
                "errors": int(sum(table[k][i].get("error", 0.0) for i in all_ids)),
                "within_budget": max_share is None
                or _mean(table, k, all_ids, "share") <= max_share + 1e-12,
            }
            for n, k in enumerate(keys)
        ],
    }
    if baseline is not None:
        report["naive_spread"] = {
            m: _spread([f["naive"][m] for f in per_fold]) for m in REPORTED[:4]
        }
        report["naive_pooled"] = _figures(held_naive, REPORTED[:4])
        report["chosen_on_all"]["naive"] = _figures(
            [baseline(on_all.key, i) for i in all_ids], REPORTED[:4]
        )
    return report


# --- running the configs ---------------------------------------------------------------------


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def _source_digest(paths: Iterable[Path]) -> str:
    files = sorted(
        f
        for p in paths
        for f in ([p] if p.is_file() else [*p.rglob("*.py"), *p.rglob("*.json")])
        if f.is_file()
    )
    return _digest(*(f"{f.relative_to(_PACKAGE)}:{f.read_text(encoding='utf-8')}" for f in files))


def _item_digest(item: GoldItem) -> str:
    return _digest(item.question, json.dumps(item.documents), json.dumps(item.spans))[:16]


class Evaluator:
    """Answers gold questions once per config, in-process, as the measurement door would
    (``manage.py retrieve``: an IndexCache over settings.LEGALNAV_RETRIEVE_CACHE, the configured
    embedder and reranker, one Retriever per document set), and keeps the per-question results
    on disk per config under ``results_dir`` (None: in memory only)."""

    def __init__(
        self,
        *,
        mode: str = "navembed",
        k: int = K,
        index_dir: Path | None = None,
        results_dir: Path | None = None,
        embedder: Any = "default",
        progress: Callable[[str], None] | None = None,
        item_settings: Callable[[GoldItem], Config] | None = None,
        item_settings_label: str = "",
    ) -> None:
        from legalnav.evaluation.runner import Workbench
        from legalnav.retrieval.embeddings import get_embedder
        from legalnav.retrieval.engine import normalise_mode

        normalise_mode(mode)
        self.mode, self.k = mode, k
        self.index_dir = Path(index_dir or settings.LEGALNAV_RETRIEVE_CACHE)
        inner = get_embedder() if embedder == "default" else embedder
        # The evaluation runner's bench: the index cache, the file texts, the reranker and the
        # embedder, which computes the question's embedding once for every config and the floor.
        self.bench = Workbench(
            cache_dir=self.index_dir, embedder=inner, use_embedder=inner is not None
        )
        self.cache, self.embedder = self.bench.cache, self.bench.embedder
        self.results_dir = results_dir
        # Settings that depend on the question (a model trained without its fold), applied
        # over each config; the label names them in the results' fingerprint.
        self.item_settings = item_settings
        self.item_settings_label = item_settings_label
        self.progress = progress or (lambda line: print(line, file=sys.stderr, flush=True))
        # One retriever per (document set, index settings): the settings change the indexes.
        self._retrievers: LruCache[tuple[Any, ...], Retriever] = LruCache(4)
        self.timings: dict[str, float] = defaultdict(float)

    # -- fingerprints and the on-disk results --

    def fingerprint(self, grid_names: Iterable[str]) -> str:
        """What besides the config and the question decides a result: the retrieval and
        parsing code, the metrics, the models, the mode and k, and every other LEGALNAV_
        setting."""
        skip = set(grid_names)
        others = {
            name: repr(getattr(settings, name))
            for name in dir(settings)
            if name.startswith("LEGALNAV_") and name not in skip
        }
        return _digest(
            _source_digest(_PACKAGE / p for p in _RESULT_SOURCES),
            self.embedder.name if self.embedder is not None else "no-embedder",
            str(getattr(settings, "RERANKER_MODEL", "")),
            self.mode,
            str(self.k),
            json.dumps(others, sort_keys=True),
            self.item_settings_label,
        )[:20]

    def _results_path(self, key: str, fingerprint: str) -> Path | None:
        if self.results_dir is None:
            return None
        return self.results_dir / f"{_digest(key, fingerprint)[:24]}.json"

    def _load(self, path: Path | None) -> dict[str, Record]:
        if path is None or not path.exists():
            return {}
        try:
            return json.loads(path.read_text(encoding="utf-8"))["results"]
        except (OSError, ValueError, KeyError):
            return {}  # a damaged file is recomputed

    def _save(self, path: Path | None, payload: dict[str, Any]) -> None:
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, path)

    # -- documents and retrievers --

    def text(self, path: str) -> str:
        return self.bench.text(path)

    def _retriever(self, paths: list[str], index_config: Config) -> Retriever:
        def build() -> Retriever:
            with override_settings(**index_config):
                docs = self.bench.docs(paths)
            return self.bench.corpus_retriever(docs, paths)

        return self._retrievers.get_or_make((tuple(paths), config_key(index_config)), build)

    # -- the work --

    def run(self, items: Sequence[GoldItem], configs: Sequence[Config]) -> Table:
        """Every (config, question) result, computing only those not cached."""
        names = sorted({n for c in configs for n in c})
        fingerprint = self.fingerprint(names)
        keys = [config_key(c) for c in configs]
        paths = {k: self._results_path(k, fingerprint) for k in keys}
        stored = {k: self._load(paths[k]) for k in keys}
        digests = {i.id: _item_digest(i) for i in items}
        table: Table = {k: {} for k in keys}
        todo: dict[tuple[str, ...], list[GoldItem]] = defaultdict(list)
        for item in items:
            missing_any = False
            for k in keys:  # every cached result is taken, so that only what is new is computed
                row = stored[k].get(item.id)
                if row is not None and row.get("q") == digests[item.id]:
                    table[k][item.id] = row
                else:
                    missing_any = True
            if missing_any:
                todo[tuple(item.documents)].append(item)
        cached = sum(len(v) for v in table.values())
        missing = len(items) * len(keys) - cached
        self.progress(
            f"{len(configs)} configs x {len(items)} questions: {cached} results cached, "
            f"{missing} to compute over {len(todo)} document sets"
        )
        started = time.perf_counter()
        for n, (docset, group) in enumerate(todo.items(), 1):
            texts_total = sum(len(self.text(p)) for p in docset)
            # Question outer, config inner: the question is embedded once for all configs.
            for item in group:
                for config, k in zip(configs, keys, strict=True):
                    if table[k].get(item.id, {}).get("q") == digests[item.id]:
                        continue
                    index_config = {s: v for s, v in config.items() if s in INDEX_SETTINGS}
                    t0 = time.perf_counter()
                    retriever = self._retriever(list(docset), index_config)
                    table[k][item.id] = self._answer(
                        retriever, item, config, texts_total, digests[item.id]
                    )
                    self.timings["retrieve_s"] += time.perf_counter() - t0
                    self.timings["answered"] += 1
            self.cache.flush()
            for k in keys:
                stored[k].update(table[k])
                self._save(
                    paths[k],
                    {"config": json.loads(k), "fingerprint": fingerprint, "results": stored[k]},
                )
            if n == len(todo) or n % 5 == 0:
                self.progress(
                    f"  {n}/{len(todo)} document sets, {time.perf_counter() - started:.0f}s"
                )
        return table

    def _answer(
        self, retriever: Retriever, item: GoldItem, config: Config, total: int, digest: str
    ) -> Record:
        from legalnav.retrieval.engine import retrieve

        if self.item_settings is not None:
            config = {**config, **self.item_settings(item)}
        try:
            with override_settings(**config):
                result = retrieve(retriever, item.question, self.mode, self.k)
        except Exception as exc:  # a config that breaks the engine scores a miss, and says so
            logger.warning("retrieve failed for %s under %s: %s", item.id, config, exc)
            return {**dict.fromkeys(_MISS, 0.0), "error": 1.0, "q": digest}
        returned = [metrics.Range(h.doc, h.start, h.end) for h in result.hits[: self.k]]
        row: dict[str, Any] = score_ranges(item, returned, total, self.k)
        row["payload_share"] = result.payload_chars / total
        row["error"] = 0.0
        row["q"] = digest
        return row

    def naive_rankings(self, items: Sequence[GoldItem]) -> dict[str, list[metrics.Range]]:
        """The naive floor's ranked chunks (RRF of BM25 and MiniLM) per question, best first,
        cached on disk beside the per-config results."""
        from legalnav.evaluation import baselines

        fingerprint = _digest(
            Path(baselines.__file__).read_text(encoding="utf-8"),
            self.embedder.name if self.embedder is not None else "no-embedder",
            str(NAIVE_DEPTH),
        )
        path = self._results_path("naive:rrf", fingerprint)
        stored = self._load(path)
        out: dict[str, list[metrics.Range]] = {}
        todo: dict[tuple[str, ...], list[GoldItem]] = defaultdict(list)
        for item in items:
            row: Any = stored.get(item.id)
            if row is not None and row.get("q") == _item_digest(item):
                out[item.id] = [metrics.Range(*r) for r in row["ranges"]]
            else:
                todo[tuple(item.documents)].append(item)
        if todo:
            self.progress(f"naive floor: {sum(len(g) for g in todo.values())} questions to rank")
        t0 = time.perf_counter()
        for n, (docset, group) in enumerate(todo.items(), 1):
            if n % 5 == 0:
                self.progress(f"  {n}/{len(todo)} document sets, {time.perf_counter() - t0:.0f}s")
            corpus = baselines.NaiveCorpus(
                [self.text(p) for p in docset], embedder=self.embedder, cache_dir=self.index_dir
            )
            for item in group:
                hits = corpus.search(item.question, "naive:rrf", NAIVE_DEPTH)
                ranges = [(h.doc, h.start, h.end) for h in hits]
                out[item.id] = [metrics.Range(*r) for r in ranges]
                stored[item.id] = {"q": _item_digest(item), "ranges": ranges}
        self.timings["naive_s"] += time.perf_counter() - t0
        if todo:
            self._save(path, {"config": "naive:rrf", "fingerprint": fingerprint, "results": stored})
        return out


# --- the whole fit ---------------------------------------------------------------------------


def fit(
    items: Sequence[GoldItem],
    grid: dict[str, list[Any]],
    *,
    evaluator: Evaluator,
    folds: int = 5,
    objective: str = "mrr@10",
    max_share: float | None = None,
    seed: str = "",
    naive: bool = True,
    max_configs: int = MAX_CONFIGS,
    name: str = "",
) -> dict[str, Any]:
    """Run the grid over the questions and cross-validate the choice: the report that
    ``format_report`` prints and ``scripts/fit_retrieval.py --json`` writes."""
    if objective not in OBJECTIVES:
        raise CrossValError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")
    unknown = unread_settings(grid)
    if unknown:
        raise CrossValError(f"no settings and no code of the project read {', '.join(unknown)}")
    items = [i for i in items if i.spans]
    configs = expand_grid(grid, cap=max_configs)
    keys = [config_key(c) for c in configs]
    started = time.perf_counter()
    table = evaluator.run(items, configs)
    run_s = time.perf_counter() - started
    baseline: Callable[[str, str], Record] | None = None
    naive_s = 0.0
    if naive:
        t0 = time.perf_counter()
        ranked = evaluator.naive_rankings(items)
        naive_s = time.perf_counter() - t0
        by_id = {i.id: i for i in items}
        totals = {i.id: sum(len(evaluator.text(p)) for p in i.documents) for i in items}

        def at_equal_text(key: str, item_id: str) -> Record:
            budget = int(table[key][item_id]["returned_chars"])
            return score_equal_text(by_id[item_id], ranked[item_id], budget, totals[item_id])

        baseline = at_equal_text
    report = cross_validate(
        table,
        items,
        keys,
        folds=folds,
        objective=objective,
        max_share=max_share,
        seed=seed,
        baseline=baseline,
    )
    report.update(
        {
            "gold": name or "/".join(sorted({i.dataset for i in items})),
            "n_questions": len(items),
            "n_documents": len({document_of(i) for i in items}),
            "mode": evaluator.mode,
            "k": evaluator.k,
            "k_folds": folds,
            "objective": objective,
            "max_share": max_share,
            "seed": seed,
            "grid": grid,
            "configs": configs,
            "timings_s": {
                "answer_configs": round(run_s, 1),
                "naive_floor": round(naive_s, 1),
                "answered": int(evaluator.timings["answered"]),
            },
        }
    )
    return report


# --- the readable table ----------------------------------------------------------------------


def format_report(report: dict[str, Any]) -> str:
    """The report as a table: every config in-sample, then each fold's held-out figures for the
    config chosen on the other folds (and the naive floor at the same text), then their spread."""
    configs, naive, cols = report["configs"], "naive_pooled" in report, REPORTED[:4]
    head = "".join(f"{h:>8}" for h in ("R@1", "R@10", "MRR", "share"))

    def cells(fig: dict[str, float]) -> str:
        return "".join(f"{fig[m]:>8.{4 if m == 'share' else 3}f}" for m in cols)

    def floor(fig: dict[str, float] | None) -> str:
        return f"  |{cells(fig)}" if naive and fig is not None else ""

    budget = report["max_share"]
    lines = [
        f"{report['gold']}: {report['n_questions']} questions, {report['n_documents']} "
        f"documents, {report['k_folds']} folds by document; mode {report['mode']}, k={report['k']}",
        f"chosen by {report['objective']}"
        + (f" with mean share <= {budget}" if budget is not None else "")
        + f", among {len(configs)} configs",
        "",
        "configs on all questions (in-sample)",
        f"{'#':>3}  {'config':<40}{head}{'payload':>9}{'err':>5}",
    ]
    for row in report["per_config"]:
        fig = row["figures"]
        lines.append(
            f"{row['config']:>3}  {config_label(configs[row['config']]):<40}{cells(fig)}"
            f"{fig['payload_share']:>9.3f}{row['errors']:>5}"
            + ("" if row["within_budget"] else "  over budget")
        )
    lines += [
        "",
        "each fold scored with the config chosen on the other folds"
        + (" | the naive floor at the same text" if naive else ""),
        f"{'fold':>4}{'docs':>5}{'n':>5}{'#':>3}{'train':>8}{head}"
        + (f"  |{head}" if naive else ""),
    ]
    for f in report["folds"]:
        lines.append(
            f"{f['fold']:>4}{f['documents']:>5}{f['n']:>5}{f['chosen']:>3}"
            f"{f['train_objective']:>8.3f}{cells(f['held_out'])}{floor(f.get('naive'))}"
            + ("" if f["feasible"] else "  (no config within budget)")
        )
    for stat in ("mean", "sd", "min", "max"):
        ours = {m: report["spread"][m][stat] for m in cols}
        theirs = {m: report["naive_spread"][m][stat] for m in cols} if naive else None
        lines.append(f"{stat:>25}{cells(ours)}{floor(theirs)}")
    lines.append(f"{'pooled':>25}{cells(report['pooled'])}{floor(report.get('naive_pooled'))}")
    on_all = report["chosen_on_all"]
    counts = ", ".join(f"#{c} x{n}" for c, n in report["chosen_counts"].items())
    t = report["timings_s"]
    lines += [
        "",
        f"chosen on all questions: #{on_all['config']} {config_label(configs[on_all['config']])}"
        + ("" if on_all["feasible"] else " (none within budget: the leanest)"),
        f"{'in-sample':>25}{cells(on_all['in_sample'])}{floor(on_all.get('naive'))}",
        f"chosen across folds: {counts}",
        f"time: configs {t['answer_configs']}s ({t['answered']} answered, the rest cached; "
        f"indexing and embedding included), naive floor {t['naive_floor']}s",
    ]
    return "\n".join(lines)
