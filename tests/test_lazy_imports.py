"""The web process must not import torch, sentence-transformers or the LLM SDK to render a page
(paperless-ngx's test_lazy_imports): checked in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

HEAVY = (
    "torch",
    "sentence_transformers",
    "transformers",
    "anthropic",
    "qdrant_client",
    "weasyprint",
)

SCRIPT = f"""
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
import django
django.setup()
import legalnav.urls, legalnav.documents.views, legalnav.documents.services, legalnav.documents.tasks
from django.test import Client
Client().get("/healthz")
print(",".join(m for m in {HEAVY!r} if m in sys.modules))
"""


def _run(script: str, **env: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    return out.stdout.strip()


def test_web_process_does_not_import_heavy_libraries():
    # The first request starts the job runner, which warms the embedding model on a thread of
    # its own (the next test): off here, so that what a page imports is seen alone.
    out = _run(SCRIPT, EMBEDDING_WARM_UP="0")
    assert out == "", f"imported at start-up: {out}"


# With the warm-up on, torch is imported by the warm-up thread only, never by the request, and
# the request does not wait for it. Who imports torch is recorded by an import hook.
WARM_SCRIPT = """
import os, sys, threading, time
importers = []
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "torch":
            importers.append(threading.current_thread().name)
        return None
sys.meta_path.insert(0, Spy())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)  # a database of its own (the test gives its path)
from django.test import Client
started = time.monotonic()
status = Client().get("/healthz", HTTP_HOST="localhost").status_code
took = time.monotonic() - started
from legalnav.retrieval import receivers
thread = receivers._warm_thread
thread.join(120)
from legalnav.retrieval.embeddings import get_embedder
print(status, round(took, 2), thread.name, thread.is_alive(), get_embedder()._model is not None,
      ",".join(sorted(set(importers))))
"""


def test_the_runner_warms_the_embedding_model_off_the_request_thread(tmp_path):
    status, took, name, alive, loaded, importers = _run(
        WARM_SCRIPT,
        EMBEDDING_WARM_UP="1",
        TASK_RUNNER="thread",
        DATABASE_URL=f"sqlite:///{tmp_path / 'warm.sqlite3'}",
    ).split()
    assert status == "200"
    assert float(took) < 5, "the request waited for the model"
    assert (name, alive, loaded) == ("embedding-warm-up", "False", "True")
    assert importers == "embedding-warm-up"
