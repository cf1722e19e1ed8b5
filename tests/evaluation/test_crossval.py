"""Cross-validated choice of retrieval settings: folds, selection, equal-text floor, a real run."""

from __future__ import annotations

import os

import pytest

from legalnav.evaluation import crossval, gold, metrics
from legalnav.evaluation.crossval import (
    CrossValError,
    assign_folds,
    choose,
    config_key,
    cross_validate,
    equal_text,
    item_folds,
)
from legalnav.evaluation.gold import GoldItem


def _item(n: int, doc: str) -> GoldItem:
    return GoldItem(
        id=f"q{n}", dataset="test", question=f"question {n}", documents=[doc], spans=[(0, 0, 10)]
    )


def test_folds_are_deterministic_balanced_and_disjoint_by_document():
    docs = [f"/data/contract-{n:02d}.txt" for n in range(23)]
    folds = assign_folds(docs, 5)
    assert folds == assign_folds(list(reversed(docs)), 5)  # the order they come in is irrelevant
    assert folds == assign_folds(docs * 2, 5)
    sizes = [list(folds.values()).count(f) for f in range(5)]
    assert sorted(sizes) == [4, 4, 5, 5, 5]
    assert assign_folds(docs, 5, seed="other") != folds

    items = [_item(n, docs[n % len(docs)]) for n in range(100)]
    by_item = item_folds(items, 5)
    for f in range(5):
        held = {i.documents[0] for i in items if by_item[i.id] == f}
        rest = {i.documents[0] for i in items if by_item[i.id] != f}
        assert held and not held & rest
    with pytest.raises(CrossValError):
        assign_folds(docs[:3], 5)


def test_the_named_matter_folds_by_the_named_contract():
    paths = ["/m/a.txt", "/m/b.txt", "/m/c.txt"]
    items = [
        GoldItem(id=f"q{n}", dataset="t", question="q", documents=paths, spans=[(n % 3, 0, 5)])
        for n in range(9)
    ]
    folds = item_folds(items, 3)
    for item in items:
        same_doc = [i for i in items if i.spans[0][0] == item.spans[0][0]]
        assert {folds[i.id] for i in same_doc} == {folds[item.id]}
    assert len(set(folds.values())) == 3


def _table(rows: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, dict[str, float]]]:
    """config -> per question (mrr, share) -> the table shape the harness keeps."""
    return {
        key: {
            f"q{n}": {"mrr@10": m, "hit@1": float(m == 1.0), "hit@10": float(m > 0), "share": s}
            for n, (m, s) in enumerate(values)
        }
        for key, values in rows.items()
    }


def test_selection_takes_the_best_config_within_the_share_budget():
    table = _table(
        {
            "wide": [(1.0, 0.20), (1.0, 0.20), (0.5, 0.20)],  # best MRR, over the budget
            "lean": [(0.5, 0.05), (0.5, 0.05), (0.5, 0.05)],
            "good": [(1.0, 0.06), (0.5, 0.06), (0.5, 0.06)],  # best within 0.065
            "tie": [(0.5, 0.06), (1.0, 0.064), (0.5, 0.064)],  # as good, with more text
        }
    )
    keys = list(table)
    ids = ["q0", "q1", "q2"]
    chosen = choose(table, keys, ids, max_share=0.065)
    assert chosen.key == "good" and chosen.feasible
    assert choose(table, keys, ids).key == "wide"  # no budget
    assert choose(table, keys, ["q2"], max_share=0.065).key == "lean"  # ties: smaller share
    squeezed = choose(table, keys, ids, max_share=0.01)
    assert squeezed.key == "lean" and not squeezed.feasible
    assert choose(table, keys, ids, objective="hit@1", max_share=0.065).key == "good"
    with pytest.raises(CrossValError):
        choose(table, keys, ids, objective="precision")


def test_each_fold_is_scored_by_the_config_chosen_on_the_others():
    docs = [f"/d/{n}.txt" for n in range(4)]
    items = [_item(n, docs[n]) for n in range(4)]
    fold_of = item_folds(items, 2)
    # "a" is perfect on fold 0's questions, "b" on fold 1's: each fold must get the other one.
    table = {
        key: {
            i.id: {
                "mrr@10": float((fold_of[i.id] == 0) == (key == "a")),
                "hit@1": 0.0,
                "hit@10": 0.0,
                "share": 0.05,
                "payload_share": 0.05,
            }
            for i in items
        }
        for key in ("a", "b")
    }
    report = cross_validate(table, items, ["a", "b"], folds=2, max_share=0.065)
    for f in report["folds"]:
        assert f["chosen"] == (1 if f["fold"] == 0 else 0)
        assert f["held_out"]["mrr@10"] == 0.0 and f["train_objective"] == 1.0
    assert report["spread"]["mrr@10"] == {"mean": 0.0, "sd": 0.0, "min": 0.0, "max": 0.0}
    assert report["chosen_counts"] == {0: 1, 1: 1}


def test_equal_text_returns_no_more_characters_than_the_budget():
    ranked = [metrics.Range(0, s, s + 500) for s in range(0, 5000, 400)]
    for budget in (0, 1, 499, 500, 501, 1234, 4000, 10**6):
        kept = equal_text(ranked, budget)
        size = sum(r.end - r.start for r in kept)
        assert size <= budget
        assert size == min(budget, sum(r.end - r.start for r in ranked))
        whole = max(0, len(kept) - 1)
        assert kept[:whole] == ranked[:whole]  # only the last one may be cut
    assert equal_text(ranked, 1234)[-1] == metrics.Range(0, 800, 1034)
    item = _item(0, "/d/x.txt")
    item.spans = [(0, 900, 950)]
    assert crossval.score_equal_text(item, ranked, 1000, 10000)["hit@10"] == 0.0
    scored = crossval.score_equal_text(item, ranked, 1234, 10000)
    assert scored["hit@10"] == 1.0 and scored["mrr@10"] == pytest.approx(1 / 3)
    assert scored["share"] == pytest.approx(0.1234)


def test_the_grid_is_parsed_capped_and_checked(tmp_path):
    grid = crossval.parse_grid('{"LEGALNAV_FUSION_ALPHA": [0.3, 0.7], "LEGALNAV_DENSE_WEIGHT": 1}')
    configs = crossval.expand_grid(grid)
    assert configs == [
        {"LEGALNAV_FUSION_ALPHA": 0.3, "LEGALNAV_DENSE_WEIGHT": 1},
        {"LEGALNAV_FUSION_ALPHA": 0.7, "LEGALNAV_DENSE_WEIGHT": 1},
    ]
    path = tmp_path / "grid.json"
    path.write_text('{"LEGALNAV_FUSION_ALPHA": [0.1, 0.2, 0.3]}')
    assert len(crossval.expand_grid(crossval.parse_grid(str(path)))) == 3
    with pytest.raises(CrossValError):
        crossval.expand_grid(crossval.parse_grid(str(path)), cap=2)
    assert crossval.unread_settings(["LEGALNAV_FUSION_ALPHA", "LEGALNAV_NO_SUCH_THING"]) == [
        "LEGALNAV_NO_SUCH_THING"
    ]


def test_a_small_real_run_gives_per_fold_figures(tmp_path, settings):
    """Two small dev CUAD contracts, two fusion weights, two folds: the whole path, with the
    real embedder and the naive floor."""
    settings.VAR_DIR = tmp_path
    sample = gold.cuad_items(contracts=40)
    smallest = sorted({i.documents[0] for i in sample}, key=os.path.getsize)[:2]
    items = [i for i in sample if i.documents[0] in smallest]
    grid = {"LEGALNAV_FUSION_ALPHA": [0.3, 0.7]}
    evaluator = crossval.Evaluator(
        index_dir=tmp_path / "index", results_dir=tmp_path / "results", progress=lambda _: None
    )
    report = crossval.fit(items, grid, evaluator=evaluator, folds=2, max_share=0.9)
    assert report["n_questions"] == len(items) and report["n_documents"] == 2
    assert len(report["folds"]) == 2 and sum(f["n"] for f in report["folds"]) == len(items)
    for f in report["folds"]:
        for fig in (f["held_out"], f["naive"]):
            assert 0.0 <= fig["hit@1"] <= fig["hit@10"] <= 1.0
            assert 0.0 <= fig["share"] <= 1.0
        # the floor gets no more text than legalnav returned
        assert f["naive"]["share"] <= f["held_out"]["share"] + 1e-9
    assert report["per_config"][0]["errors"] == 0
    assert sum(report["chosen_counts"].values()) == 2
    table_text = crossval.format_report(report)
    assert "pooled" in table_text and "chosen across folds: #" in table_text

    # A second run reads every result back instead of answering again.
    again = crossval.Evaluator(
        index_dir=tmp_path / "index", results_dir=tmp_path / "results", progress=lambda _: None
    )
    table = again.run(items, crossval.expand_grid(grid))
    assert again.timings["retrieve_s"] == 0.0
    assert all(set(rows) == {i.id for i in items} for rows in table.values())
    assert table[config_key({"LEGALNAV_FUSION_ALPHA": 0.3})][items[0].id]["error"] == 0.0

    # A grid with one new value answers only that one (the cached ones are read, whatever
    # their order in the grid).
    third = crossval.Evaluator(
        index_dir=tmp_path / "index", results_dir=tmp_path / "results", progress=lambda _: None
    )
    wider = [{"LEGALNAV_FUSION_ALPHA": 0.5}] + crossval.expand_grid(grid)
    third.run(items, wider)
    assert third.timings["answered"] == len(items)
