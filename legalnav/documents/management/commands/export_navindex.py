"""Write the navindex files of a document or of every indexed document in a matter."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.documents.actions import document_write_navindex
from legalnav.documents.models import Document


class Command(BaseCommand):
    help = "Write <doc>.index.json / <doc>.full.json (readable and .min.json token-optimised)."

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--document", type=int)
        group.add_argument("--matter", type=int)
        parser.add_argument("--out", help="Folder to write to (default: NAVINDEX_DIR/matter-<id>).")

    def handle(self, *args: object, **opts: object) -> None:
        if opts["document"]:
            docs = list(Document.objects.filter(pk=opts["document"]))
            if not docs:
                raise CommandError(f"No document with id {opts['document']}.")
        else:
            docs = list(Document.objects.filter(matter_id=opts["matter"]))
            if not docs:
                raise CommandError(f"Matter {opts['matter']} has no documents (or does not exist).")
        out = Path(str(opts["out"])) if opts["out"] else None
        for doc in docs:
            if doc.status != Document.Status.INDEXED:
                self.stderr.write(f"{doc.key} “{doc.title}” is {doc.status}; skipped.")
                continue
            for path in document_write_navindex(document=doc, out_dir=out):
                self.stdout.write(f"{path} ({path.stat().st_size:,} bytes)")
