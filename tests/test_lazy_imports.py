"""The web process must not import torch, sentence-transformers or the LLM SDK to render a page
(paperless-ngx's test_lazy_imports): checked in a fresh interpreter."""

from __future__ import annotations

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


def test_web_process_does_not_import_heavy_libraries():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "", f"imported at start-up: {out.stdout.strip()}"
