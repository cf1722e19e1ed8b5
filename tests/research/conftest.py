"""Research tests read real judgments from ../shared/data at test time (never copied here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.llm.conftest import replay  # noqa: F401  (the replay server fixture)

SHARED_DATA = Path(settings.DATA_DIR)
AILA = SHARED_DATA / "judgments" / "aila2019"
UK = SHARED_DATA / "judgments" / "uk-ewca-civ-2020"


def shared(path: Path) -> Path:
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: the research tests read real judgments from ../shared/data"
        )
    return path


def aila_path(case: str) -> Path:
    return shared(AILA / "casedocs" / f"{case}.txt")


def aila_text(case: str) -> str:
    return aila_path(case).read_bytes().decode("utf-8")


def uk_text(doc_id: str) -> str:
    return shared(UK / "txt" / f"{doc_id}.txt").read_bytes().decode("utf-8")


@pytest.fixture
def research_matter(db):
    from legalnav.matters.models import Matter
    from tests.conftest import MatterFactory

    return MatterFactory(kind=Matter.Kind.RESEARCH, name="Precedent research")


def add_judgments(matter, cases: list[str]) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Add real AILA judgments to ``matter`` and index them here; their documents by case."""
    from legalnav.documents.models import Document
    from legalnav.documents.services import document_add, document_index

    docs = {}
    for case in cases:
        doc, _ = document_add(
            matter=matter,
            filename=f"{case}.txt",
            data=aila_path(case).read_bytes(),
            kind=Document.Kind.JUDGMENT,
            enqueue=False,
        )
        assert document_index(document_id=doc.pk).status == "indexed"
        doc.refresh_from_db()
        docs[case] = doc
    return docs
