"""Reads for the evaluation pages: which runs a user may see, the metric tables, the chart of
recall against token footprint, the question list and the per-question drill-down.

A run is visible to staff and to the user who created it; to anyone else it does not exist
(404). Nothing here marks text safe: answers, hits and rationales are plain strings, and the
templates escape them. The chart is numbers only; the template draws it as SVG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import Http404

from legalnav.core.lookup import row_or_404
from legalnav.evaluation.models import EvaluationItem, EvaluationRun, EvaluationVerdict
from legalnav.evaluation.services import primary_level
from legalnav.matters.access import is_admin

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

QUESTIONS_PAGE_SIZE = 50
LEVELS = ("span", "node", "document")


def runs_visible(*, user: User | AnonymousUser) -> QuerySet[EvaluationRun]:
    """The runs the user may see, and so retry or cancel: all for staff, their own otherwise
    (``run_visible_to`` is the same rule for a run already loaded)."""
    runs = EvaluationRun.objects.select_related("created_by")
    if is_admin(user):
        return runs
    if not getattr(user, "is_authenticated", False):
        return runs.none()
    return runs.filter(created_by=user)  # type: ignore[misc]


def run_visible_to(*, user: User | AnonymousUser, run: EvaluationRun) -> bool:
    if is_admin(user):
        return True
    user_id = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    return user_id is not None and run.created_by_id == user_id


def run_get(*, user: User | AnonymousUser, run_id: object) -> EvaluationRun:
    """The run if the user may see it; Http404 otherwise (ids of others' runs do not leak)."""
    return row_or_404(runs_visible(user=user), run_id, "No such evaluation run.")


# --- tables ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Cell:
    """A rate with its interval, or a plain number."""

    value: float | None
    low: float | None = None
    high: float | None = None
    k: int | None = None
    n: int | None = None

    @property
    def has_interval(self) -> bool:
        return self.low is not None


def _cell(raw: Any) -> Cell:
    if isinstance(raw, dict):
        return Cell(raw.get("rate"), raw.get("low"), raw.get("high"), raw.get("k"), raw.get("n"))
    if isinstance(raw, int | float):
        return Cell(float(raw))
    return Cell(None)


@dataclass(slots=True)
class MetricRow:
    run: EvaluationRun
    mode: str
    n: int
    cells: list[Cell]
    footprint_share: float | None
    tokens: float | None
    dollars: float | None
    latency_p50: float | None
    errors: int


@dataclass(slots=True)
class MetricTable:
    level: str
    columns: list[str]
    rows: list[MetricRow] = field(default_factory=list)


def _columns(level: str) -> list[tuple[str, str]]:
    if level == "document":
        ks = [("hit@1", "R@1"), ("hit@10", "R@10"), ("hit@100", "R@100")]
        return [*ks, ("mrr@100", "MRR"), ("ndcg@10", "nDCG@10"), ("average_precision", "AP")]
    ks = [("hit@1", "R@1"), ("hit@5", "R@5"), ("hit@10", "R@10")]
    out = [*ks, ("mrr@10", "MRR@10"), ("ndcg@10", "nDCG@10"), ("precision@10", "P@10")]
    out.append(("recall@10", "gold share@10"))
    if level == "span":
        out.append(("coverage", "span coverage"))
    return out


def metric_tables(*, runs: list[EvaluationRun]) -> list[MetricTable]:
    """One table per level present in any of the runs; a row per (run, mode)."""
    tables = []
    for level in LEVELS:
        columns = _columns(level)
        table = MetricTable(level=level, columns=[label for _, label in columns])
        for run in runs:
            for mode, entry in (run.summary.get("modes") or {}).items():
                measured = entry.get(level)
                if not measured:
                    continue
                table.rows.append(
                    MetricRow(
                        run=run,
                        mode=mode,
                        n=int(measured.get("n", 0)),
                        cells=[_cell(measured.get(key)) for key, _ in columns],
                        footprint_share=entry.get("footprint_share"),
                        tokens=entry.get("footprint_tokens"),
                        dollars=entry.get("dollars_per_query_estimate"),
                        latency_p50=(entry.get("latency_ms") or {}).get("p50"),
                        errors=int(entry.get("errors", 0)),
                    )
                )
        if table.rows:
            tables.append(table)
    return tables


@dataclass(slots=True)
class AnswerRow:
    run: EvaluationRun
    mode: str
    key_facts: float | None
    questions_with_facts: int
    all_facts: Cell
    false_declination: Cell
    controls_declined: Cell
    citations_valid: Cell
    must_contain: Cell
    must_not_claim: Cell


def answer_rows(*, runs: list[EvaluationRun]) -> list[AnswerRow]:
    rows = []
    for run in runs:
        for mode, entry in (run.summary.get("modes") or {}).items():
            a = entry.get("answers")
            if not a:
                continue
            rows.append(
                AnswerRow(
                    run=run,
                    mode=mode,
                    key_facts=a["in_scope"].get("key_fact_score"),
                    questions_with_facts=a["in_scope"].get("questions_with_key_facts", 0),
                    all_facts=_cell(a["in_scope"].get("all_key_facts")),
                    false_declination=_cell(a["in_scope"].get("false_declination")),
                    controls_declined=_cell(a["controls"].get("declined_correctly")),
                    citations_valid=_cell(a.get("citations_valid")),
                    must_contain=_cell(a.get("must_contain_all")),
                    must_not_claim=_cell(a.get("must_not_claim_violated")),
                )
            )
    return rows


@dataclass(slots=True)
class JudgedRow:
    run: EvaluationRun
    pair: str
    mode_a: str
    mode_b: str
    scope: str
    a_wins: int
    b_wins: int
    ties: int
    n: int
    tie_rate: Cell
    p_value: float
    needed: int | None
    disagreements: int
    hedged: int
    dollars: str


def judged_rows(*, runs: list[EvaluationRun]) -> list[JudgedRow]:
    rows = []
    for run in runs:
        for pair, j in (run.summary.get("judged") or {}).items():
            for scope in ("in_scope", "controls"):
                s = j[scope]
                if not s["n"]:
                    continue
                rows.append(
                    JudgedRow(
                        run=run,
                        pair=pair,
                        mode_a=j["mode_a"],
                        mode_b=j["mode_b"],
                        scope="questions" if scope == "in_scope" else "out-of-scope controls",
                        a_wins=s["a_wins"],
                        b_wins=s["b_wins"],
                        ties=s["ties"],
                        n=s["n"],
                        tie_rate=_cell(s["tie_rate"]),
                        p_value=s["binomial_p"],
                        needed=s.get("questions_needed_at_observed_rates"),
                        disagreements=j.get("order_disagreements", 0),
                        hedged=j.get("hedged", 0),
                        dollars=j.get("judge_dollars", "0"),
                    )
                )
    return rows


# --- the chart -------------------------------------------------------------------------------


@dataclass(slots=True)
class Point:
    label: str
    x: float
    y: float
    y_low: float
    y_high: float
    tokens: float
    rate: float
    colour: str
    label_x: float = 0.0
    label_y: float = 0.0
    show_label: bool = True  # False where it would cover another label (the legend names all)


LABEL_CHAR_WIDTH = 6.2  # px per character at the chart's 11px label size (approximate)
LABEL_HEIGHT = 13


def _place_labels(points: list[Point], left_edge: float, right_edge: float) -> None:
    """Put each point's label beside it without covering an earlier label: try above-right,
    then lower slots, then the left side; hide it when nothing fits (the legend still has it)."""
    placed: list[tuple[float, float, float, float]] = []
    for p in sorted(points, key=lambda q: (q.y, q.x)):
        width = LABEL_CHAR_WIDTH * len(p.label)
        candidates = [(p.x + 8, p.y - 6 + dy) for dy in (0, 13, -13, 26, -26)]
        candidates += [(p.x - 8 - width, p.y - 6 + dy) for dy in (0, 13, -13)]
        for lx, ly in candidates:
            box = (lx, ly - LABEL_HEIGHT + 3, lx + width, ly + 3)
            if box[2] > right_edge or box[0] < left_edge:
                continue
            if all(
                box[2] < b[0] or box[0] > b[2] or box[3] < b[1] or box[1] > b[3] for b in placed
            ):
                p.label_x, p.label_y = round(lx, 1), round(ly, 1)
                placed.append(box)
                break
        else:
            p.show_label = False


@dataclass(slots=True)
class Tick:
    at: float
    label: str


@dataclass(slots=True)
class Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    points: list[Point]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    metric: str

    @property
    def plot_right(self) -> int:
        return self.width - self.right

    @property
    def plot_bottom(self) -> int:
        return self.height - self.bottom


PALETTE = ["#1f4e8c", "#b42318", "#1d7a46", "#9a6700", "#6941c6", "#0e7490", "#c11574", "#4d5761"]


def recall_chart(*, runs: list[EvaluationRun], width: int = 720, height: int = 380) -> Chart | None:
    """Recall at 10 (the runs' primary level, with its 95% interval) against the mean token
    footprint per question, one point per (run, mode), on a logarithmic footprint axis."""
    left, right, top, bottom = 64, 24, 16, 48
    raw = []
    for run in runs:
        level = primary_level(run.gold_set)
        key = "hit@10" if level != "document" else "hit@100"
        for mode, entry in (run.summary.get("modes") or {}).items():
            rate = (entry.get(level) or {}).get(key)
            tokens = entry.get("footprint_tokens")
            if not isinstance(rate, dict) or rate.get("rate") is None or not tokens:
                continue
            label = mode if len(runs) == 1 else f"#{run.pk} {mode}"
            raw.append((label, float(tokens), rate))
    if not raw:
        return None
    lo = math.log10(min(t for _, t, _ in raw)) - 0.08
    hi = math.log10(max(t for _, t, _ in raw)) + 0.08
    if hi - lo < 0.5:  # a single footprint: give the axis some width
        lo, hi = lo - 0.25, hi + 0.25
    plot_w, plot_h = width - left - right, height - top - bottom

    def x_of(tokens: float) -> float:
        return round(left + (math.log10(tokens) - lo) / (hi - lo) * plot_w, 1)

    def y_of(value: float) -> float:
        return round(top + (1 - value) * plot_h, 1)

    points = [
        Point(
            label=label,
            x=x_of(tokens),
            y=y_of(rate["rate"]),
            y_low=y_of(rate["low"]),
            y_high=y_of(rate["high"]),
            tokens=tokens,
            rate=rate["rate"],
            colour=PALETTE[i % len(PALETTE)],
        )
        for i, (label, tokens, rate) in enumerate(raw)
    ]
    _place_labels(points, left_edge=left + 2, right_edge=width - 4)
    x_ticks = [
        Tick(x_of(m * 10**e), f"{m * 10**e:,}")
        for e in range(math.floor(lo), math.ceil(hi) + 1)
        for m in (1, 2, 5)
        if lo <= math.log10(m * 10**e) <= hi
    ]
    y_ticks = [Tick(y_of(v / 4), f"{v / 4:.2f}") for v in range(5)]
    metric = "R@10" if all(primary_level(r.gold_set) != "document" for r in runs) else "R@10/R@100"
    return Chart(width, height, left, right, top, bottom, points, x_ticks, y_ticks, metric)


# --- questions and drill-down ----------------------------------------------------------------


@dataclass(slots=True)
class QuestionRow:
    item_id: str
    question: str
    out_of_scope: bool
    by_mode: dict[str, dict[str, Any]]


def question_page(*, run: EvaluationRun, page: object = 1, only: str = "") -> Page:
    """A page of the run's questions, each with every mode's hit at 10 and key-fact score.
    ``only="misses"`` keeps questions some mode missed."""
    level = primary_level(run.gold_set)
    key = "hit@10" if level != "document" else "hit@100"
    rows: dict[str, QuestionRow] = {}
    items = EvaluationItem.objects.filter(run=run).only(
        "item_id", "question", "out_of_scope", "mode", "metrics", "scores", "error"
    )
    for item in items.order_by("item_id", "mode"):
        row = rows.setdefault(
            item.item_id, QuestionRow(item.item_id, item.question, item.out_of_scope, {})
        )
        measured = item.metrics.get(level) or {}
        facts = (item.scores or {}).get("key_facts") or {}
        row.by_mode[item.mode] = {
            "hit": measured.get(key),
            "facts": facts.get("score"),
            "declined": (item.scores or {}).get("declined"),
            "error": bool(item.error),
        }
    listed = list(rows.values())
    if only == "misses":
        listed = [r for r in listed if any(m["hit"] == 0.0 for m in r.by_mode.values())]
    return Paginator(listed, QUESTIONS_PAGE_SIZE).get_page(page)  # type: ignore[arg-type]


def item_detail(
    *, run: EvaluationRun, item_id: str
) -> tuple[list[EvaluationItem], list[EvaluationVerdict]]:
    """Every mode's result for one question (in the run's mode order) and its verdicts."""
    rows = list(EvaluationItem.objects.filter(run=run, item_id=item_id))
    if not rows:
        raise Http404("No such question in this run.")
    order = {m: i for i, m in enumerate(run.modes)}
    rows.sort(key=lambda r: order.get(r.mode, len(order)))
    verdicts = list(EvaluationVerdict.objects.filter(run=run, item_id=item_id))
    return rows, verdicts
