"""One module owns the splits, and every fitted file says what it was fitted on: an evaluation
that scores documents a shipped model was fitted on says it is in-sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse

from legalnav.evaluation import gold, splits
from legalnav.evaluation.models import EvaluationItem, EvaluationRun
from legalnav.evaluation.services import run_summarise
from legalnav.retrieval import topics
from legalnav.review import calibration, fill
from tests.conftest import UserFactory


def test_cuad_dev_and_train_are_disjoint_and_a_41st_dev_contract_is_refused():
    names = splits.cuad_names(gold.data_dir())
    dev, train = splits.cuad_dev(names), splits.cuad_train(names)
    assert len(dev) == 40 and len(train) == len(names) - 40 and not set(dev) & set(train)
    assert splits.cuad_dev(names, 5) == dev[:5]
    with pytest.raises(ValueError, match="40 CUAD dev contracts"):
        splits.cuad_dev(names, 41)
    # the grid's constants were fitted on exactly the dev contracts
    assert set(calibration.FITTED_ON) == set(dev)


def test_every_fitted_file_records_the_documents_it_was_fitted_on():
    names = splits.cuad_names(gold.data_dir())
    train = splits.cuad_train(names)
    files = splits.fitted_files()
    assert files["retrieval/topic_models/cuad.json"] == set(train)
    nli = json.loads((gold.data_dir() / "contractnli" / "dev.json").read_text(encoding="utf-8"))
    assert files["retrieval/topic_models/contractnli.json"] == {
        f"{d['id']}.txt" for d in nli["documents"]
    }
    votes = json.loads(fill.TOPIC_YES_FILE.read_text(encoding="utf-8"))
    assert set(votes["fitted_ids"]) == set(train)  # the yes/no votes never saw a dev contract
    assert files["review/unit_models.json"] == set(train)  # nor did the sentence-level models
    for name, fitted in files.items():
        assert fitted, f"{name} records no documents"
    # each file's count in words agrees with its list
    for path in (topics.MODEL_DIR / "cuad.json", topics.MODEL_DIR / "contractnli.json"):
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        assert data["trained_on"].startswith(f"{len(data['trained_ids'])} ")


def test_in_sample_names_the_files_that_saw_the_scored_documents():
    names = splits.cuad_names(gold.data_dir())
    dev, train = splits.cuad_dev(names), splits.cuad_train(names)
    assert splits.in_sample(dev, among="retrieval/topic_models/") == {}
    assert splits.in_sample(dev) == {"review/calibration.py": 40}
    seen = splits.in_sample(train[:3])
    assert seen["retrieval/topic_models/cuad.json"] == 3
    assert seen["review/topic_thresholds.json"] == 3
    assert seen["review/unit_models.json"] == 3
    ids = [f"cuad:{dev[0]}:Governing Law", "cnli:17:nda-2", "aila:cases:AILA_Q1"]
    assert splits.scored_documents(ids) == {dev[0], "17.txt"}


@pytest.mark.django_db
def test_a_run_over_documents_a_topic_model_saw_says_in_sample_in_its_json_and_page(client):
    user = UserFactory()
    run = EvaluationRun.objects.create(
        name="nli", gold_set="contractnli", modes=["navembed"], status="done", created_by=user
    )
    nli = json.loads((gold.data_dir() / "contractnli" / "dev.json").read_text(encoding="utf-8"))
    doc = nli["documents"][0]["id"]
    EvaluationItem.objects.create(run=run, item_id=f"cnli:{doc}:nda-1", mode="navembed")
    run.summary = run_summarise(run=run)
    run.save()
    assert run.summary["in_sample"] == {"retrieval/topic_models/contractnli.json": 1}
    client.force_login(user)
    html = client.get(reverse("evaluation-run", args=[run.pk])).content.decode()
    assert 'data-testid="in-sample"' in html and "contractnli.json" in html

    held = EvaluationRun.objects.create(
        name="cuad", gold_set="cuad", modes=["navembed"], status="done", created_by=user
    )
    dev = splits.cuad_dev(splits.cuad_names(gold.data_dir()))
    EvaluationItem.objects.create(run=held, item_id=f"cuad:{dev[0]}:Parties", mode="navembed")
    held.summary = run_summarise(run=held)
    held.save()
    assert held.summary["in_sample"] == {}
    html = client.get(reverse("evaluation-run", args=[held.pk])).content.decode()
    assert 'data-testid="in-sample"' not in html
