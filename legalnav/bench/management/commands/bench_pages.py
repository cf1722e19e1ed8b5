"""Server time and SQL queries of the main pages for a matter of real documents.

    manage.py bench_pages [FILES ...] [--repeat 15] [--json]

Builds a scratch matter (default: the six demo agreements and four EDGAR agreements from
../shared/data, ten documents), indexes it, asks one question offline, then requests the matters
list, the matter page, the reader of every document and the answer page through Django's test
client (the full middleware stack, no network), and prints the median and p95 time and the query
count of each. The scratch matter and its user are deleted afterwards unless --keep.
"""

from __future__ import annotations

import json
import statistics
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from legalnav.answers.services import query_answer, query_create
from legalnav.documents.models import Document
from legalnav.documents.services import document_add, document_delete, document_index
from legalnav.matters.models import Matter, Membership

QUESTION = "Which state's law governs the agreement?"
EDGAR = ("ud00.txt", "ud01.txt", "ud02.txt", "ud03.txt")


class Command(BaseCommand):
    help = "Median server time and SQL queries of the matter, reader and answer pages."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*")
        parser.add_argument("--repeat", type=int, default=15)
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        files = [Path(str(f)) for f in opts["files"]] or self._default_files()
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise CommandError(f"No such file: {', '.join(missing)}")
        settings.EMBED_ON_INDEX = False  # page times do not depend on vectors
        user = get_user_model().objects.create_user(f"bench-{uuid.uuid4().hex[:8]}")
        matter = Matter.objects.create(name=f"Page bench {uuid.uuid4().hex[:6]}")
        Membership.objects.create(matter=matter, user=user, role=Membership.Role.OWNER)
        try:
            report = self._measure(matter, user, files, int(opts["repeat"]))  # type: ignore[call-overload]
        finally:
            if not opts["keep"]:
                for doc in Document.objects.filter(matter=matter):
                    document_delete(document=doc)
                matter.delete()
                user.delete()
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(
            f"{report['documents']} documents, {report['clauses']:,} clauses; "
            f"{report['repeat']} requests per page (reader: per document)"
        )
        self.stdout.write(f"{'page':<14}{'median ms':>11}{'p95 ms':>9}{'queries':>9}")
        for name, row in report["pages"].items():
            self.stdout.write(
                f"{name:<14}{row['median_ms']:>11}{row['p95_ms']:>9}{row['queries']:>9}"
            )

    @staticmethod
    def _default_files() -> list[Path]:
        demo = sorted((Path(settings.BASE_DIR) / "demo" / "documents").glob("*.txt"))
        edgar = Path(settings.DATA_DIR) / "agreements" / "edgar2020"
        return demo + [edgar / name for name in EDGAR if (edgar / name).is_file()]

    def _measure(self, matter: Matter, user, files: list[Path], repeat: int) -> dict:  # type: ignore[no-untyped-def]
        docs = []
        for path in files:
            doc, _ = document_add(
                matter=matter, filename=path.name, data=path.read_bytes(), enqueue=False
            )
            outcome = document_index(document_id=doc.pk)
            if outcome.status not in ("indexed", "unchanged"):
                raise CommandError(f"{path.name} was not indexed: {outcome}")
            docs.append(doc)
        query = query_answer(
            query_id=query_create(
                matter=matter, user=user, question=QUESTION, mode="navindex", enqueue=False
            ).pk
        )
        client = Client(SERVER_NAME="localhost")
        client.force_login(user)
        pages = {
            "matters list": [reverse("matter-list")],
            "matter": [reverse("matter-detail", args=[matter.pk])],
            "reader": [reverse("document-detail", args=[d.pk]) for d in docs],
            "answer": [reverse("answer-detail", args=[matter.pk, query.pk])],
        }
        report: dict = {
            "documents": len(docs),
            "clauses": sum(d.node_count for d in Document.objects.filter(matter=matter)),
            "repeat": repeat,
            "pages": {},
        }
        for name, urls in pages.items():
            times, queries = [], []
            for url in urls:
                client.get(url)  # warm: templates compiled, caches filled
                for _ in range(repeat):
                    with CaptureQueriesContext(connection) as captured:
                        started = time.perf_counter()
                        response = client.get(url)
                        times.append((time.perf_counter() - started) * 1000)
                    if response.status_code != 200:
                        raise CommandError(f"{url} answered {response.status_code}")
                    queries.append(len(captured.captured_queries))
            ordered = sorted(times)
            report["pages"][name] = {
                "median_ms": round(statistics.median(times), 1),
                "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
                "queries": max(queries),
            }
        return report
