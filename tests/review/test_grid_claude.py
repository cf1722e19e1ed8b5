"""Filling a grid with Claude, through the local Messages-API replay server and the real
``anthropic`` client: one call per document per batch of columns over navigated provisions,
every value's quotation checked verbatim against the provision it names, the offline answer kept
(and the reason said) wherever Claude's cannot be verified, the cost summed on the grid, and an
API outage failing the grid with its cells kept and Resume going on."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from legalnav.documents.models import Node
from legalnav.llm.models import LLMCall
from legalnav.review import actions, services
from legalnav.review.models import Cell, Grid
from legalnav.review.services import ColumnSpec
from tests.conftest import index_bioamber_pair
from tests.llm.conftest import replay  # noqa: F401  (the replay server fixture)
from tests.llm.replay import error, message

COLUMNS = [
    ColumnSpec("Governing Law", "Which law governs this agreement?", "text"),
    ColumnSpec("Agreement Date", "When was it made?", "date"),
]


def _make(matter, owner, base):
    grid = actions.grid_create(
        matter=matter,
        user=owner,
        title="With Claude",
        columns=COLUMNS,
        document_ids=[base.pk],
        mode="claude",
        via="page",
    )
    assert grid.mode == Grid.Mode.CLAUDE and grid.status == Grid.Status.QUEUED
    return grid


@pytest.mark.django_db
def test_claude_cells_are_verified_and_unverifiable_ones_fall_back(
    matter,
    owner,
    client,
    replay,  # noqa: F811
):
    base, _ = index_bioamber_pair(matter)
    law = Node.objects.get(document=base, text__contains="13.2 Governing Law")
    quote = (
        "shall be governed by and construed in accordance with the laws of the State of Minnesota"
    )
    replay.queue(
        message(
            json.dumps(
                {
                    "cells": [
                        {
                            "key": "Governing Law",
                            "found": True,
                            "value": "Minnesota",
                            "quote": quote,
                            "node": law.node_id,
                            "confidence": 0.95,
                        },
                        {  # an invented quotation: not used, the offline cell stays
                            "key": "Agreement Date",
                            "found": True,
                            "value": "1 April 2019",
                            "quote": "made and entered into on the first day of April 2019",
                            "node": law.node_id,
                            "confidence": 0.9,
                        },
                    ]
                }
            ),
            input_tokens=3000,
            output_tokens=160,
            cache_write=700,
        )
    )
    grid = _make(matter, owner, base)
    done = services.grid_fill(grid_id=grid.pk)
    assert done.status == Grid.Status.DONE, done.error_message
    assert len(replay.requests) == 1  # two columns, one batch, one call
    sent = replay.requests[0].body
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral"}
    user = sent["messages"][0]["content"]
    assert f'node_id="{law.node_id}"' in user and "Which law governs this agreement?" in user

    cells = {c.column.key: c for c in Cell.objects.filter(grid=grid).select_related("column")}
    governing = cells["Governing Law"]
    assert governing.value == "Minnesota" and governing.found and governing.confidence == 0.95
    assert governing.verdict == "verified" and governing.citation == f"[{base.key}:{law.node_id}]"
    assert "State of Minnesota" in governing.quotation
    dated = cells["Agreement Date"]
    assert dated.searched.startswith(
        f"Claude's quotation is not verbatim in [{base.key}:{law.node_id}]; the offline filler's "
        "answer is shown."
    )
    assert dated.value != "1 April 2019"  # Claude's unverified value was not kept
    assert not dated.found or dated.verdict == "verified"

    calls = LLMCall.objects.filter(purpose="grid", matter_id=matter.pk)
    assert calls.count() == 1 and done.llm_calls == 1
    assert done.dollars == sum((c.dollars for c in calls), Decimal(0)) > 0
    client.force_login(owner)
    page = client.get(f"/matters/{matter.pk}/grids/{grid.pk}/").content.decode()
    assert f"Cost so far: ${done.dollars.normalize():f}"[:18] in page and "in 1 Claude call" in page


@pytest.mark.django_db
def test_an_api_outage_fails_the_grid_with_a_reason_and_resume_goes_on(
    matter,
    owner,
    replay,  # noqa: F811
):
    base, _ = index_bioamber_pair(matter)
    replay.queue(*[error(529) for _ in range(4)])  # overloaded past every retry
    grid = _make(matter, owner, base)
    failed = services.grid_fill(grid_id=grid.pk)
    assert failed.status == Grid.Status.FAILED and failed.error_code == "llm"
    assert failed.error_message.startswith(f"Claude could not be reached while filling {base.key}")
    assert not Cell.objects.filter(grid=grid).exists()
    # The API is back: Resume fills the grid; a reply that cannot be read keeps offline cells.
    replay.queue(message("I am not able to help with that.", input_tokens=2000, output_tokens=9))
    assert actions.grid_retry(matter=matter, user=owner, grid=failed, via="page")
    done = services.grid_fill(grid_id=grid.pk)
    assert done.status == Grid.Status.DONE and done.cells_done == 2
    for cell in Cell.objects.filter(grid=grid):
        assert cell.searched.startswith("Claude's reply could not be read; the offline filler's")
    assert done.llm_calls == 1  # the failed call is in the ledger as an error, not a cost
    assert LLMCall.objects.filter(purpose="grid", status="error").count() == 1


@pytest.mark.django_db
def test_a_verbatim_quotation_does_not_vouch_for_a_value_it_does_not_contain(
    matter,
    owner,
    replay,  # noqa: F811
):
    base, _ = index_bioamber_pair(matter)
    law = Node.objects.get(document=base, text__contains="13.2 Governing Law")
    quote = (
        "shall be governed by and construed in accordance with the laws of the State of Minnesota"
    )
    cells = [
        {
            "key": "Governing Law",
            "found": True,
            "value": "Delaware",
            "quote": quote,
            "node": law.node_id,
            "confidence": 0.99,
        },
        {
            "key": "Agreement Date",
            "found": True,
            "value": "2010",
            "quote": "x " * 1500,
            "node": law.node_id,
            "confidence": 0.99,
        },
    ]
    replay.queue(message(json.dumps({"cells": cells}), input_tokens=3000, output_tokens=90))
    grid = _make(matter, owner, base)
    assert services.grid_fill(grid_id=grid.pk).status == Grid.Status.DONE
    got = {c.column.key: c for c in Cell.objects.filter(grid=grid).select_related("column")}
    assert got["Governing Law"].value != "Delaware"
    assert got["Governing Law"].searched.startswith(
        "Claude's value 'Delaware' is not in its quotation; the offline filler's answer is shown."
    )
    assert got["Agreement Date"].searched.startswith(
        "Claude's quotation is longer than 2000 characters"
    )


def _one_costly_call_grid(replay, matter, owner, documents, *, title, mode="claude"):  # noqa: F811
    """A one-column grid over ``documents``; the replay server answers one call of 20,000
    input tokens (about $0.06, past a one-cent cap)."""
    if mode == "claude":
        replay.queue(
            message(
                json.dumps({"cells": [{"key": "Governing Law", "found": False}]}),
                input_tokens=20_000,
                output_tokens=100,
            )
        )
    return actions.grid_create(
        matter=matter,
        user=owner,
        title=title,
        columns=COLUMNS[:1],
        document_ids=[d.pk for d in documents],
        mode=mode,
        via="page",
    )


@pytest.mark.django_db
def test_spending_caps_hold_while_a_claude_grid_runs_and_before_it_starts(
    matter,
    owner,
    settings,
    replay,  # noqa: F811
):
    base, amendment = index_bioamber_pair(matter)
    settings.LEGALNAV_SPEND_CAP_MATTER_DAY = 0.01  # dollars: the first call passes it
    grid = _one_costly_call_grid(replay, matter, owner, [base, amendment], title="Capped")
    stopped = services.grid_fill(grid_id=grid.pk)
    assert stopped.status == Grid.Status.FAILED and stopped.error_code == "spend_capped"
    assert f"The grid stopped before {amendment.key}" in stopped.error_message
    assert stopped.cells_done == 1 and stopped.llm_calls == 1 and len(replay.requests) == 1
    # Past the cap, no new Claude grid is made; an offline one still is.
    with pytest.raises(actions.RateLimited):
        _make(matter, owner, base)
    offline = _one_costly_call_grid(replay, matter, owner, [base], title="Offline", mode="offline")
    assert offline.mode == Grid.Mode.OFFLINE


@pytest.mark.django_db
def test_a_claude_grids_calls_count_toward_its_makers_own_cap(
    matter,
    owner,
    settings,
    replay,  # noqa: F811
):
    from legalnav.answers.spend import spend_overview, spend_status

    base, _ = index_bioamber_pair(matter)
    settings.LEGALNAV_SPEND_CAP_USER_DAY = 0.01  # dollars: the grid's one call passes it
    grid = _one_costly_call_grid(replay, matter, owner, [base], title="Mine")
    services.grid_fill(grid_id=grid.pk)
    call = LLMCall.objects.get(purpose=LLMCall.Purpose.GRID)
    assert call.user_id == owner.pk and call.query_id is None and call.dollars > 0
    (day,) = [line for line in spend_status(matter=matter, user=owner) if line.scope == "user"][:1]
    assert day.period == "day" and day.spent == call.dollars and day.capped
    # The maker's next Claude grid is refused by their own cap, as a question would be.
    with pytest.raises(actions.RateLimited, match="your"):
        _make(matter, owner, base)
    assert [r["username"] for r in spend_overview()["by_user"]] == [owner.username]
