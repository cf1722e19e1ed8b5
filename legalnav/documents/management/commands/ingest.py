"""Add files to a matter and index them: manage.py ingest --matter "Name" a.txt b.pdf …

A .zip is a data room: every file in it (and in zips inside it) is added with the folder it sat
in, files that are not documents are listed as left out. A folder is read the same way, its
sub-folders kept as the documents' folders.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.documents.actions import DocumentRejected, archive_limits, document_upload
from legalnav.documents.models import Document
from legalnav.documents.parsing.extract import SUPPORTED_EXTENSIONS, ExtractionError
from legalnav.documents.parsing.extract.archive import (
    FOLDER_SEPARATOR,
    ArchiveSkip,
    is_archive,
    walk_archive,
)
from legalnav.matters.management.options import add_matter_options, matter_from_options


class Command(BaseCommand):
    help = "Add documents to a matter (created if missing) and index them now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+")
        add_matter_options(parser)
        parser.add_argument("--kind", choices=[k for k, _ in Document.Kind.choices], default="")
        parser.add_argument("--title", default="", help="Title (only with a single file).")
        parser.add_argument("--amends", type=int, help="Id of the document these files amend.")
        parser.add_argument("--effective-date", type=date.fromisoformat)
        parser.add_argument(
            "--queue", action="store_true", help="Queue for a worker instead of indexing here."
        )

    def handle(self, *args: object, **opts: object) -> None:
        files = [Path(str(f)) for f in opts["files"]]  # type: ignore[attr-defined]
        if opts["title"] and (len(files) != 1 or files[0].is_dir() or is_archive(files[0].name)):
            raise CommandError("--title applies to a single file.")
        matter, _ = matter_from_options(opts)
        amends = None
        if opts["amends"]:
            amends = Document.objects.filter(pk=opts["amends"], matter=matter).first()
            if amends is None:
                raise CommandError(f"Document {opts['amends']} is not in matter “{matter.name}”.")
        failures = total = 0
        for label, name, data, folder in self._sources(files):
            total += 1
            if data is None:  # left out: ``folder`` holds the reason
                self.stderr.write(f"{label}: {folder}")
                failures += 1
                continue
            path = label
            try:
                outcome = document_upload(
                    matter=matter,
                    user=None,
                    filename=name,
                    data=data,
                    via="command",
                    here=not opts["queue"],
                    folder=folder,
                    title=str(opts["title"]),
                    kind=str(opts["kind"]),
                    amends=amends,
                    effective_date=opts["effective_date"],
                )
            except DocumentRejected as exc:
                self.stderr.write(f"{path}: {exc.message}")
                failures += 1
                continue
            doc = outcome.document
            assert doc is not None  # an accepted file has its document
            if not outcome.created:
                self.stdout.write(f"{path}: already in the matter as document {doc.pk}")
                continue
            if outcome.index is None:  # queued for a worker
                if outcome.error:
                    failures += 1
                    self.stderr.write(f"{path}: {outcome.error}")
                else:
                    self.stdout.write(f"{path}: queued as document {doc.pk}")
                continue
            index = outcome.index
            line = f"{path}: document {doc.pk} {index.status} ({index.nodes} clauses)"
            if index.status == "failed":
                failures += 1
                self.stderr.write(f"{line}: {index.message}")
            else:
                self.stdout.write(line)
        if failures:
            raise CommandError(f"{failures} of {total} file(s) could not be indexed.")

    def _sources(self, files: list[Path]) -> Iterator[tuple[str, str, bytes | None, str]]:
        """(label, file name, bytes, folder) of each file to add, from plain files, folders
        and zips; bytes None for a file left out, with the reason in place of the folder."""
        for path in files:
            if path.is_dir():
                for inner in sorted(p for p in path.rglob("*") if p.is_file()):
                    rel = inner.relative_to(path).parent.parts
                    folder = FOLDER_SEPARATOR.join((path.name, *rel))
                    yield from self._one(inner, folder)
            else:
                yield from self._one(path, "")

    def _one(self, path: Path, folder: str) -> Iterator[tuple[str, str, bytes | None, str]]:
        if is_archive(path.name):
            try:
                with path.open("rb") as fh:
                    for item in walk_archive(
                        fh, path.name, limits=archive_limits(), supported=SUPPORTED_EXTENSIONS
                    ):
                        label = f"{path}: {item.path}"
                        if isinstance(item, ArchiveSkip):
                            yield label, "", None, f"left out: {item.reason}"
                        else:
                            inner = FOLDER_SEPARATOR.join(p for p in (folder, item.folder) if p)
                            yield label, item.name, item.data, inner
            except OSError as exc:
                yield str(path), "", None, f"cannot read ({exc.strerror})"
            except ExtractionError as exc:
                yield str(path), "", None, exc.message
            return
        try:
            yield str(path), path.name, path.read_bytes(), folder
        except OSError as exc:
            yield str(path), "", None, f"cannot read ({exc.strerror})"
