"""``manage.py backup FILE.tar.gz``: the database, uploaded files, navindex files and the
embedding cache in one file (see legalnav/core/backup.py for what is inside and why)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from legalnav.core.backup import BackupError, backup


class Command(BaseCommand):
    help = "Back up the whole deployment (database, files, navindex, embedding cache)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "out", nargs="?", default="", help="the .tar.gz to write, or a folder for it"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        name = f"legalnav-backup-{timezone.now():%Y%m%d-%H%M%S}.tar.gz"
        out = Path(opts["out"] or name)
        if out.is_dir():
            out = out / name
        try:
            report = backup(out)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        rows = sum(report.counts.values())
        self.stdout.write(
            f"Wrote {out} ({out.stat().st_size:,} bytes): {rows:,} rows, {report.files} files "
            f"({report.bytes:,} bytes)."
        )
