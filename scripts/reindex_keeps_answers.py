#!/usr/bin/env python
"""Measure that re-indexing never changes a past answer: answer every demo question offline on
a matter, read each answer's citation panels and its memo, force a re-index of every document
(new node rows), read them again and count what differs.

    DATABASE_URL=sqlite:////tmp/keep.sqlite3 .venv/bin/python scripts/reindex_keeps_answers.py --matter 1

Prints: answers, citations, panels identical, memos identical (the text of the PDF).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")

import django  # noqa: E402

django.setup()

from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from legalnav.answers.models import Citation  # noqa: E402
from legalnav.answers.services import query_answer, query_create  # noqa: E402
from legalnav.documents.models import Document  # noqa: E402
from legalnav.documents.services import document_index, document_reindex  # noqa: E402
from legalnav.matters.models import Matter, Membership  # noqa: E402

GOLD = REPO / "legalnav" / "evaluation" / "gold" / "demo_qa.jsonl"


def provision(html: str) -> str:
    found = re.search(r'<div class="provision"[^>]*>(.*?)</div>', html, re.S)
    return found.group(1) if found else ""


def pdf(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(p.extract_text() or "" for p in reader.pages).split())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matter", type=int, required=True)
    args = parser.parse_args()
    matter = Matter.objects.get(pk=args.matter)
    member = Membership.objects.filter(matter=matter).select_related("user").first()
    assert member is not None, "the matter needs a member (load_demo makes one)"
    client = Client(HTTP_HOST="localhost")
    client.force_login(member.user)
    questions = [json.loads(line)["question"] for line in GOLD.read_text().splitlines() if line]
    answered = []
    for q in questions:
        query = query_answer(
            query_id=query_create(
                matter=matter, user=member.user, question=q, mode="navembed", enqueue=False
            ).pk  # fmt: skip
        )
        if query is not None and query.status == "answered":
            answered.append(query)

    def read() -> tuple[dict[int, str], dict[int, str]]:
        panels, memos = {}, {}
        for query in answered:
            for c in Citation.objects.filter(answer__query=query):
                url = reverse("answer-citation", args=[matter.pk, query.pk, c.pk])
                panels[c.pk] = provision(client.get(url, HTTP_HX_REQUEST="true").content.decode())
            memo = client.get(reverse("answer-memo", args=[matter.pk, query.pk])).content
            # Everything but the export time, which is when the memo was made.
            text = pdf(memo).split("Mode and cost")[0]
            memos[query.pk] = re.sub(r"Date \d{1,2} \w+ \d{4}, \d\d:\d\d \w+", "", text)
        return panels, memos

    panels_before, memos_before = read()
    for doc in Document.objects.filter(matter=matter):
        document_reindex(document=doc, force=True)
        document_index(document_id=doc.pk)
    panels_after, memos_after = read()
    same_panels = sum(panels_before[k] == panels_after.get(k) for k in panels_before)
    same_memos = sum(memos_before[k] == memos_after.get(k) for k in memos_before)
    print(
        json.dumps(
            {
                "answers": len(answered),
                "citations": len(panels_before),
                "panels_identical_after_reindex": same_panels,
                "memos_identical_after_reindex": same_memos,
                "empty_panels": sum(1 for v in panels_before.values() if not v),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
