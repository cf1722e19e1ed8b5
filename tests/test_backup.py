"""A backup restored into an empty deployment holds every document (its file byte for byte),
answer and grid, and searches again with its vectors re-stored, not re-embedded.

The deployment under test is backed up with ``manage.py backup``; a second deployment (its own
database, on the same engine, and its own empty data folders) is restored with ``manage.py
restore`` and read back in a separate process, as an administrator moving to a new server would.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from legalnav.answers import actions as answer_actions
from legalnav.answers.models import Question
from legalnav.documents import actions as document_actions
from legalnav.documents.models import Document
from legalnav.retrieval import services as retrieval_services
from legalnav.retrieval.vectors import EdgeVectorStore
from legalnav.review import actions as review_actions
from legalnav.review.models import Cell, Grid
from legalnav.review.services import ColumnSpec
from tests.conftest import REPO, MembershipFactory, UserFactory, demo_bytes

pytestmark = pytest.mark.django_db(transaction=True)

READ_BACK = r"""
import hashlib, json, os, sys
import django
django.setup()
from legalnav.answers.models import Answer, Citation
from legalnav.documents.models import Document
from legalnav.matters.models import Matter
from legalnav.review.models import Cell, Grid
from legalnav.retrieval.services import matter_retriever, vector_store

out = {"documents": {}, "answers": {}, "cells": {}}
for d in Document.objects.all():
    with d.source_file.open("rb") as fh:
        data = fh.read()
    out["documents"][d.original_filename] = {
        "sha256_ok": hashlib.sha256(data).hexdigest() == d.sha256,
        "status": d.status,
        "folder": d.folder,
        "stored": bool(d.vector_collection),
    }
for a in Answer.objects.all():
    out["answers"][a.question.question] = [a.text, Citation.objects.filter(answer=a).count()]
for c in Cell.objects.select_related("grid", "column"):
    out["cells"][f"{c.grid.title}|{c.document_id}|{c.column.key}"] = c.value
matter = Matter.objects.get()
out["store"] = type(vector_store()).__name__
built = matter_retriever(matter=matter)
hits = built.retriever.ranked_passages("Which state's law governs the agreement?", "dense", 3)
out["dense_hits"] = len(hits)
print(json.dumps(out))
"""


@pytest.fixture
def edge(settings, tmp_path: Path, monkeypatch):
    store = EdgeVectorStore(tmp_path / "edge")
    settings.VECTOR_STORE = "edge"
    settings.EMBED_ON_INDEX = True
    monkeypatch.setattr(retrieval_services, "get_vector_store", lambda: store)
    yield store
    store.close()


def _build(settings) -> dict:
    settings.LEGALNAV_QUESTION_RATE_PER_MINUTE = 1000
    owner = UserFactory(username="olivia")
    matter = MembershipFactory(user=owner, matter__name="Atlas acquisition").matter
    for name, folder in (
        ("bioamber-development-agreement.txt", "Data room / Contracts"),
        ("bioamber-development-agreement-first-amendment.txt", "Data room / Amendments"),
    ):
        document_actions.document_upload(
            matter=matter,
            user=owner,
            filename=name,
            data=demo_bytes(name),
            folder=folder,
            here=True,
        )
    assert all(d.vector_collection for d in Document.objects.all())
    query = answer_actions.question_ask(
        matter=matter,
        user=owner,
        question="Which state's law governs the agreement?",
        mode="navembed",
        via="page",
        here=True,
    )
    query.refresh_from_db()
    assert query.status == Question.Status.ANSWERED, query.error_message
    grid = review_actions.grid_create(
        matter=matter,
        user=owner,
        title="Key terms",
        columns=[ColumnSpec("Governing Law", "Which law governs this agreement?", "text")],
        document_ids=None,
        mode="offline",
        via="page",
    )
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE, grid.error_message
    return {
        "answer": query.answer.text,
        "citations": query.answer.citations.count(),
        "cells": {
            f"{c.grid.title}|{c.document_id}|{c.column.key}": c.value
            for c in Cell.objects.select_related("grid", "column")
        },
    }


@pytest.fixture
def new_deployment(tmp_path: Path):
    """The environment of an empty deployment: a new database on the same engine, empty folders."""
    root = tmp_path / "new"
    root.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_URL", "MEDIA_ROOT", "NAVINDEX_DIR", "INDEX_CACHE_DIR"))
    }
    env.update(
        {
            "LEGALNAV_VAR_DIR": str(root / "var"),
            "MEDIA_ROOT": str(root / "media"),
            "NAVINDEX_DIR": str(root / "navindex"),
            "INDEX_CACHE_DIR": str(root / "index-cache"),
            "VECTOR_STORE": "edge",
            "TASK_RUNNER": "inline",
            "EMBEDDING_WARM_UP": "0",
            "HF_HUB_OFFLINE": "1",
            "DJANGO_SETTINGS_MODULE": "legalnav.settings",
        }
    )
    created = None
    if connection.vendor == "postgresql":
        import psycopg

        db = connection.settings_dict
        created = f"legalnav_restore_{os.getpid()}"
        params = dict(
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            dbname="postgres",
            autocommit=True,
        )
        with psycopg.connect(**params) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{created}"')
            admin.execute(f'CREATE DATABASE "{created}"')
        auth = quote(db.get("USER") or "")
        if db.get("PASSWORD"):
            auth += ":" + quote(db["PASSWORD"])
        host = f"{db.get('HOST') or 'localhost'}:{db.get('PORT') or 5432}"
        env["DATABASE_URL"] = f"postgres://{auth}@{host}/{created}"
    else:
        env["DATABASE_URL"] = f"sqlite:///{root / 'legalnav.sqlite3'}"
    yield env
    if created:
        with psycopg.connect(**params) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{created}" WITH (FORCE)')


def _manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_backup_restores_into_an_empty_deployment(settings, edge, tmp_path, new_deployment):
    before = _build(settings)
    out = tmp_path / "backup.tar.gz"
    call_command("backup", str(out))
    with tarfile.open(out) as tar:
        names = tar.getnames()
    manifest = json.loads(tarfile.open(out).extractfile("manifest.json").read())
    assert manifest["engine"] == connection.vendor
    assert manifest["counts"]["documents.Document"] == 2
    assert manifest["counts"]["review.Grid"] == 1 and manifest["counts"]["answers.Answer"] == 1
    assert any(n.startswith("media/") for n in names)
    assert any(n.startswith("navindex/") for n in names)
    assert "index-cache/passage-vectors.sqlite3" in names

    done = _manage(new_deployment, "restore", str(out))
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Restored 1 matters, 2 documents, 1 answers and 1 grids" in done.stdout
    assert "Vectors: 2 documents stored in the vector store." in done.stdout

    read = subprocess.run(
        [sys.executable, "-c", READ_BACK],
        cwd=REPO,
        env=new_deployment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert read.returncode == 0, read.stderr
    found = json.loads(read.stdout.strip().splitlines()[-1])
    assert found["documents"] == {
        "bioamber-development-agreement.txt": {
            "sha256_ok": True,
            "status": "indexed",
            "folder": "Data room / Contracts",
            "stored": True,
        },
        "bioamber-development-agreement-first-amendment.txt": {
            "sha256_ok": True,
            "status": "indexed",
            "folder": "Data room / Amendments",
            "stored": True,
        },
    }
    assert found["answers"] == {
        "Which state's law governs the agreement?": [before["answer"], before["citations"]]
    }
    assert found["cells"] == before["cells"] and any(
        "Minnesota" in v for v in before["cells"].values()
    )
    assert found["store"] == "EdgeVectorStore" and found["dense_hits"] == 3

    # Never over data: a second restore into the same deployment is refused, and changes nothing.
    again = _manage(new_deployment, "restore", str(out))
    assert again.returncode != 0 and "not empty" in again.stderr


def test_restore_refuses_what_is_not_a_backup(tmp_path):
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"not a backup")
    with pytest.raises(CommandError, match="not a legalnav backup"):
        call_command("restore", str(broken))
    with pytest.raises(CommandError, match="No such file"):
        call_command("restore", str(tmp_path / "missing.tar.gz"))


def test_restore_refuses_a_deployment_that_holds_data(tmp_path, matter):
    out = tmp_path / "backup.tar.gz"
    call_command("backup", str(out))
    with pytest.raises(CommandError, match="not empty"):
        call_command("restore", str(out))
    assert hashlib.sha256(out.read_bytes()).hexdigest()  # the file is left as it was
    assert django_settings.MEDIA_ROOT


def test_a_backup_from_before_a_model_moved_app_counts_it_under_its_label_now():
    """The case card moved from documents to research with its table: a backup made before
    counts it as documents.CaseCard, and the restore finds it as research.CaseCard."""
    from legalnav.core.backup import label_now

    assert label_now("documents.CaseCard") == "research.CaseCard"
    assert label_now("documents.Document") == "documents.Document"
    assert label_now("gone.Model") == "gone.Model"
