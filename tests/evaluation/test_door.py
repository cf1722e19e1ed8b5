"""The measurement door, scored from outside, agrees with the in-process evaluation."""

from __future__ import annotations

import os
from pathlib import Path

from legalnav.evaluation import gold
from legalnav.evaluation.door import door_requests, run_door, score_door
from legalnav.evaluation.runner import Workbench, evaluate_item
from tests.conftest import REPO


def test_door_scores_match_the_in_process_run(tmp_path, settings):
    settings.VAR_DIR = tmp_path
    items = gold.cuad_items(contracts=1)
    modes = ["navembed:bm25", "inject"]
    env = {**os.environ, "LEGALNAV_RETRIEVE_CACHE": str(tmp_path / "door-cache")}
    env.pop("DATABASE_URL", None)
    responses = run_door(door_requests(items, modes), repo=REPO, env=env)
    assert len(responses) == len(items) * len(modes)
    scores = score_door(items, responses, modes)
    bench = Workbench(cache_dir=tmp_path / "cache", use_embedder=False)
    for mode in modes:
        hits = [evaluate_item(bench, i, mode).metrics["span"]["hit@10"] for i in items]
        assert scores[mode]["hit@10"]["k"] == sum(int(h) for h in hits)
        assert scores[mode]["n"] == len(items) and scores[mode]["errors"] == 0
    assert scores["inject"]["share"] == 1.0 and scores["inject"]["hit@1"]["rate"] == 1.0


def test_a_missing_response_is_a_miss():
    items = [
        gold.GoldItem(
            id="x",
            dataset="qa",
            question="q",
            documents=[str(Path(REPO) / "demo/documents/bioamber-development-agreement.txt")],
            spans=[(0, 10, 20)],
        )
    ]
    scores = score_door(items, [], ["navembed"])
    assert scores["navembed"]["errors"] == 1 and scores["navembed"]["hit@10"]["k"] == 0
