"""The evaluation pages: login required, staff or the run's creator only, metrics with
intervals, the SVG chart drawn on the server, the drill-down with both answers escaped."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from django.urls import reverse

from legalnav.evaluation.models import EvaluationItem, EvaluationRun, EvaluationVerdict
from legalnav.evaluation.runner import Workbench
from legalnav.evaluation.services import (
    evaluation_run_create,
    evaluation_run_execute,
    run_summarise,
)
from tests.conftest import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _var(settings, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path


@pytest.fixture
def creator():
    return UserFactory()


@pytest.fixture
def run(creator, tmp_path) -> EvaluationRun:
    created = evaluation_run_create(
        name="QA offline",
        gold_set="qa",
        modes=["navembed:bm25", "inject", "naive:bm25"],
        limit=4,
        answerer="offline",
        user=creator,
    )
    evaluation_run_execute(
        run=created, bench=Workbench(cache_dir=tmp_path / "c", use_embedder=False)
    )
    created.refresh_from_db()
    return created


def test_anonymous_users_are_sent_to_sign_in(client, run):
    for url in (
        reverse("evaluation-list"),
        reverse("evaluation-run", args=[run.pk]),
        reverse("evaluation-item", args=[run.pk]) + "?id=x",
        reverse("evaluation-compare") + f"?runs={run.pk}",
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_other_users_do_not_see_the_run(client, run):
    client.force_login(UserFactory())
    assert client.get(reverse("evaluation-run", args=[run.pk])).status_code == 404
    assert client.get(reverse("evaluation-compare") + f"?runs={run.pk}").status_code == 404
    item = EvaluationItem.objects.filter(run=run).first()
    url = reverse("evaluation-item", args=[run.pk]) + f"?id={quote(item.item_id)}"
    assert client.get(url).status_code == 404
    listing = client.get(reverse("evaluation-list"))
    assert listing.status_code == 200 and "QA offline" not in listing.content.decode()


def test_the_creator_sees_metrics_with_intervals_and_the_chart(client, run, creator):
    client.force_login(creator)
    listing = client.get(reverse("evaluation-list")).content.decode()
    assert "QA offline" in listing
    page = client.get(reverse("evaluation-run", args=[run.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Retrieval, span level" in html and "Retrieval, node level" in html
    span = run.summary["modes"]["inject"]["span"]["hit@10"]
    assert f"[{span['low']:.2f}, {span['high']:.2f}]" in html  # the exact interval is shown
    assert html.count("<svg") == 1
    assert html.count("<circle") == len(run.modes)  # one point per mode
    assert "Answers, judge-free" in html
    for mode in run.modes:
        assert mode in html


def test_staff_see_every_run_and_can_compare(client, run):
    client.force_login(UserFactory(is_staff=True))
    other = EvaluationRun.objects.create(
        name="second", gold_set="qa", modes=run.modes, summary=run.summary
    )
    page = client.get(reverse("evaluation-compare") + f"?runs={run.pk}&runs={other.pk}")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"#{run.pk} QA offline" in html and f"#{other.pk} second" in html
    assert html.count("<circle") == 2 * len(run.modes)


def test_drill_down_shows_every_mode_and_escapes_document_text(client, run, creator):
    client.force_login(creator)
    item = EvaluationItem.objects.filter(run=run, mode="navembed:bm25", out_of_scope=False).first()
    item.answer = 'The answer <script>alert("x")</script> [D1:s1]'
    item.hits = [
        {
            "doc": 0,
            "start": 0,
            "end": 9,
            "score": 1.0,
            "node": "s1",
            "text": "<img src=x onerror=1>",
        }
    ]
    item.save()
    EvaluationVerdict.objects.create(
        run=run,
        item_id=item.item_id,
        mode_a="navembed:bm25",
        mode_b="inject",
        outcome="tie",
        reason="the orders disagree (position bias), so neither wins",
        forward={"raw": "A", "hedged": False, "rationale": "A gives <b>$25,000,000</b>"},
        reverse={"raw": "A", "hedged": False, "rationale": "A again"},
    )
    url = reverse("evaluation-item", args=[run.pk]) + f"?id={quote(item.item_id)}"
    html = client.get(url).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html
    assert "<img src=x" not in html and "&lt;img src=x" in html
    assert "<b>$25,000,000</b>" not in html and "&lt;b&gt;$25,000,000&lt;/b&gt;" in html
    assert "position bias" in html
    for mode in run.modes:
        assert f"<h2>{mode}" in html
    assert item.reference in html.replace("&#x27;", "'")
    missing = client.get(reverse("evaluation-item", args=[run.pk]) + "?id=nope")
    assert missing.status_code == 404


def test_question_list_pages_with_htmx_and_filters_misses(client, run, creator):
    client.force_login(creator)
    url = reverse("evaluation-run", args=[run.pk])
    fragment = client.get(url, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="questions">') and "<html" not in body
    misses = client.get(url + "?only=misses").content.decode()
    assert "All questions" in misses


def test_summary_is_stable_when_recomputed(run):
    assert run_summarise(run=run) == run.summary


def _summary(points: dict[str, tuple[float, int, int]]) -> dict:
    return {
        "modes": {
            mode: {
                "footprint_tokens": tokens,
                "span": {
                    "hit@10": {
                        "rate": k / n,
                        "low": max(0, k / n - 0.1),
                        "high": min(1, k / n + 0.1),
                        "k": k,
                        "n": n,
                    }
                },
            }
            for mode, (tokens, k, n) in points.items()
        }
    }


def test_chart_places_modes_on_a_log_footprint_axis_without_overlapping_labels():
    from legalnav.evaluation.selectors import LABEL_HEIGHT, recall_chart

    run = EvaluationRun(
        pk=1,
        gold_set="cuad",
        summary=_summary(
            {
                "inject": (20000, 100, 100),
                "navembed": (1800, 87, 100),
                "navembed:bm25": (1400, 74, 100),
                "naive:bm25": (1037, 66, 100),
                "naive:dense": (1037, 64, 100),
                "naive:rrf": (1037, 69, 100),
            }
        ),
    )
    chart = recall_chart(runs=[run])
    assert chart is not None
    by = {p.label: p for p in chart.points}
    assert by["naive:bm25"].x < by["navembed:bm25"].x < by["navembed"].x < by["inject"].x
    # log scale: 1,037 -> 20,000 is ~1.29 decades; 1,800 -> 20,000 ~1.05
    span = by["inject"].x - by["naive:bm25"].x
    assert (by["inject"].x - by["navembed"].x) / span == pytest.approx(
        (4.30103 - 3.25527) / (4.30103 - 3.01578), abs=0.01
    )
    assert by["inject"].y == chart.top and by["inject"].y_high == chart.top  # rate 1.0 on top
    assert by["naive:dense"].y_low > by["naive:dense"].y > by["naive:dense"].y_high
    shown = [p for p in chart.points if p.show_label]
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            apart_x = (
                a.label_x + 6.2 * len(a.label) < b.label_x
                or b.label_x + 6.2 * len(b.label) < a.label_x
            )
            assert apart_x or abs(a.label_y - b.label_y) >= LABEL_HEIGHT
    assert all(chart.left <= p.label_x for p in shown)
    assert recall_chart(runs=[EvaluationRun(pk=2, gold_set="cuad", summary={})]) is None
