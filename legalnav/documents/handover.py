"""The documents' part of a matter's handover zip: every source file in the folder it was
uploaded in, and an index of them (registered in ``DocumentsConfig.ready``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from legalnav.documents.models import Document
from legalnav.documents.parsing.extract.archive import FOLDER_SEPARATOR
from legalnav.matters.apphooks import HandoverPart
from legalnav.matters.handover import Entry, csv_bytes, safe_name
from legalnav.matters.models import Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User

PIECE = 1 << 20


def _path(document: Document) -> str:
    folders = [safe_name(f) for f in document.folder.split(FOLDER_SEPARATOR) if f.strip()]
    return "/".join(["documents", *folders, safe_name(document.original_filename)])


def _reader(document: Document):  # type: ignore[no-untyped-def]
    def pieces() -> Iterable[bytes]:
        with document.source_file.open("rb") as fh:
            while piece := fh.read(PIECE):
                yield piece

    return pieces


def documents_part(matter: Matter, user: User) -> Iterator[Entry]:
    documents = list(
        Document.objects.filter(matter=matter)
        .select_related("amends")
        .order_by("folder", "original_filename", "pk")
        .defer("text")
    )
    rows = []
    seen: set[str] = set()
    for document in documents:
        path = _path(document)
        if path in seen:  # the same name twice in a folder: the second says which document
            stem, dot, ext = path.rpartition(".")
            path = f"{stem} ({document.key}).{ext}" if dot else f"{path} ({document.key})"
        seen.add(path)
        stored = bool(document.source_file.name) and document.source_file.storage.exists(
            document.source_file.name
        )
        if stored:
            yield path, _reader(document)
        rows.append(
            (
                document.key,
                document.title,
                document.get_kind_display(),
                document.folder.replace(FOLDER_SEPARATOR, "/"),
                document.original_filename,
                path.split("/", 1)[1] if stored else "(file missing)",
                document.effective_date,
                document.amends.key if document.amends else "",
                document.get_status_display(),
                document.node_count,
                document.sha256,
            )
        )
    yield (
        "documents/index.csv",
        csv_bytes(
            [
                "document",
                "title",
                "kind",
                "folder",
                "file name",
                "file in this zip",
                "effective date",
                "amends",
                "status",
                "clauses",
                "sha256",
            ],
            rows,
        ),
    )


# The line of the zip's README that describes this part, and its place there.
PART = HandoverPart(
    10,
    "documents/: every document in the folder it was uploaded in; documents/index.csv lists them",
    documents_part,
)
