"""Add files to a matter and index them: manage.py ingest --matter "Name" a.txt b.pdf …"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.documents.models import Document
from legalnav.documents.services import DocumentRejected, document_add, document_index
from legalnav.matters.actions import matter_for_command


class Command(BaseCommand):
    help = "Add documents to a matter (created if missing) and index them now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+")
        parser.add_argument(
            "--matter", required=True, help="Matter id or name (created if a name is new)."
        )
        parser.add_argument(
            "--owner",
            default="",
            help="Make this user an owner of the matter, so it is on their list of matters.",
        )
        parser.add_argument("--kind", choices=[k for k, _ in Document.Kind.choices], default="")
        parser.add_argument("--title", default="", help="Title (only with a single file).")
        parser.add_argument("--amends", type=int, help="Id of the document these files amend.")
        parser.add_argument("--effective-date", type=date.fromisoformat)
        parser.add_argument(
            "--queue", action="store_true", help="Queue for a worker instead of indexing here."
        )

    def handle(self, *args: object, **opts: object) -> None:
        files = [Path(str(f)) for f in opts["files"]]  # type: ignore[attr-defined]
        if opts["title"] and len(files) != 1:
            raise CommandError("--title applies to a single file.")
        try:
            matter, _ = matter_for_command(ref=str(opts["matter"]), owner=str(opts["owner"]))
        except LookupError as exc:
            raise CommandError(str(exc)) from None
        amends = None
        if opts["amends"]:
            amends = Document.objects.filter(pk=opts["amends"], matter=matter).first()
            if amends is None:
                raise CommandError(f"Document {opts['amends']} is not in matter “{matter.name}”.")
        failures = 0
        for path in files:
            try:
                data = path.read_bytes()
            except OSError as exc:
                self.stderr.write(f"{path}: cannot read ({exc.strerror})")
                failures += 1
                continue
            try:
                doc, created = document_add(
                    matter=matter,
                    filename=path.name,
                    data=data,
                    title=str(opts["title"]),
                    kind=str(opts["kind"]),
                    amends=amends,
                    effective_date=opts["effective_date"],  # type: ignore[arg-type]
                    enqueue=bool(opts["queue"]),
                )
            except DocumentRejected as exc:
                self.stderr.write(f"{path}: {exc.message}")
                failures += 1
                continue
            if opts["queue"]:
                self.stdout.write(f"{path}: queued as document {doc.pk}")
                continue
            outcome = document_index(document_id=doc.pk)
            line = f"{path}: document {doc.pk} {outcome.status} ({outcome.nodes} clauses)"
            if outcome.status == "failed":
                failures += 1
                self.stderr.write(f"{line}: {outcome.message}")
            else:
                self.stdout.write(line)
        if failures:
            raise CommandError(f"{failures} of {len(files)} file(s) could not be indexed.")
