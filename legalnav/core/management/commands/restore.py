"""``manage.py restore FILE.tar.gz``: put a backup back into an empty deployment (a new database,
empty data folders), migrate it, re-store its vectors, and check every table came back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.core.backup import BackupError, read_manifest, restore


class Command(BaseCommand):
    help = "Restore a backup made by manage.py backup into an empty deployment."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("backup", help="the .tar.gz written by manage.py backup")

    def handle(self, *args: Any, **opts: Any) -> None:
        path = Path(opts["backup"])
        if not path.is_file():
            raise CommandError(f"No such file: {path}.")
        try:
            manifest = read_manifest(path)
            self.stdout.write(
                f"Restoring a {manifest['engine']} backup of {manifest['created_at'][:19]}…"
            )
            report = restore(
                path, migrate=lambda: call_command("migrate", verbosity=0, interactive=False)
            )
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        counts = report.counts
        self.stdout.write(
            f"Restored {counts.get('matters.Matter', 0)} matters, "
            f"{counts.get('documents.Document', 0)} documents, "
            f"{counts.get('answers.Answer', 0)} answers and {counts.get('review.Grid', 0)} grids; "
            f"{report.files} files."
        )
        for note in report.notes:
            self.stdout.write(note)
