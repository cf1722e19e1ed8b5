"""Indexing through a real Celery worker process talking to a real Redis broker.

The worker runs as a separate process with the same settings, pointed at this test's database,
media folder and a queue of its own, exactly as a deployed worker would run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import redis
from celery import Celery
from django.conf import settings

from legalnav.documents.models import Document, Node
from legalnav.documents.services import document_add
from tests.conftest import REPO, demo_bytes
from tests.procs import database_url

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def redis_broker():
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise AssertionError(
            f"Redis is not reachable at {REDIS_URL} ({exc}); start redis-server or set TEST_REDIS_URL"
        ) from exc
    return REDIS_URL


@pytest.fixture
def worker(redis_broker, tmp_path: Path):
    queue = f"legalnav-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "legalnav.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_broker,
        "CELERY_QUEUE": queue,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "NAVINDEX_DIR": str(settings.NAVINDEX_DIR),
        "INDEX_CACHE_DIR": str(settings.INDEX_CACHE_DIR),
        "EMBED_ON_INDEX": "0",
    }
    log = open(tmp_path / "worker.log", "w+")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "legalnav",
            "worker",
            "--pool=solo",
            "-Q",
            queue,
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    client = Celery(broker=redis_broker)
    yield client, queue, log
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def wait_for(doc: Document, statuses: set[str], log, timeout: float = 90) -> Document:
    deadline = time.monotonic() + timeout
    seen = set()
    while time.monotonic() < deadline:
        doc.refresh_from_db()
        seen.add((doc.status, doc.progress))
        if doc.status in statuses:
            return doc
        time.sleep(0.2)
    log.seek(0)
    raise AssertionError(
        f"document stayed {doc.status}; saw {sorted(seen)}\nworker log:\n{log.read()[-3000:]}"
    )


@pytest.mark.django_db(transaction=True)
def test_worker_indexes_a_document_from_the_redis_queue(matter, worker):
    client, queue, log = worker
    doc, _ = document_add(
        matter=matter,
        filename="bioamber-development-agreement.txt",
        data=demo_bytes("bioamber-development-agreement.txt"),
        enqueue=False,
    )
    client.send_task("legalnav.documents.tasks.index_document", args=[doc.pk], queue=queue)
    doc = wait_for(doc, {"indexed", "failed"}, log)
    assert doc.status == "indexed", doc.error_message
    assert Node.objects.filter(document=doc).count() == doc.node_count > 20
    assert (Path(settings.NAVINDEX_DIR) / f"matter-{matter.pk}" / f"{doc.key}.index.json").exists()

    # The same task delivered twice (a redelivery after a lost ack) changes nothing.
    ids = sorted(Node.objects.filter(document=doc).values_list("pk", flat=True))
    result_key = client.send_task(
        "legalnav.documents.tasks.index_document", args=[doc.pk], queue=queue
    )
    assert result_key.id
    time.sleep(3)
    doc.refresh_from_db()
    assert doc.status == "indexed"
    assert sorted(Node.objects.filter(document=doc).values_list("pk", flat=True)) == ids


@pytest.mark.django_db(transaction=True)
def test_worker_marks_a_broken_file_failed(matter, worker):
    client, queue, log = worker
    doc, _ = document_add(
        matter=matter, filename="scan.pdf", data=b"%PDF-1.4\nnot really", enqueue=False
    )
    client.send_task("legalnav.documents.tasks.index_document", args=[doc.pk], queue=queue)
    doc = wait_for(doc, {"indexed", "failed"}, log)
    assert doc.status == "failed" and doc.error_code == "corrupt"
    assert not Node.objects.filter(document=doc).exists()
