"""Write a matter's handover zip: ``manage.py handover_matter ID --out FILE.zip``.

The same zip as the page's and the API's (``matters.actions.matter_handover``): documents in their
folders, answers with citations and PDF memos, grids as XLSX, the audit trail and members as
CSV. Audited as the system's, via "command". The file is written next to its final name and
moved into place once complete, so a stopped export never leaves a half zip under that name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.matters import actions
from legalnav.matters.models import Matter


class Command(BaseCommand):
    help = "Write a matter's handover zip (documents, answers, memos, grids, audit trail)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("matter_id", type=int)
        parser.add_argument("--out", default="", help="the zip to write (default: its own name)")

    def handle(self, *args: Any, **opts: Any) -> None:
        matter = Matter.objects.filter(pk=opts["matter_id"]).first()
        if matter is None:
            raise CommandError(f"No matter with id {opts['matter_id']}.")
        try:
            handover = actions.matter_handover(matter=matter, user=None, via="command")
        except actions.MatterLifeError as exc:
            raise CommandError(exc.message) from None
        out = Path(opts["out"] or handover.filename)
        if out.is_dir():
            out = out / handover.filename
        partial = out.with_name(out.name + ".part")
        try:
            with partial.open("wb") as fh:
                for chunk in handover.chunks:
                    fh.write(chunk)
            os.replace(partial, out)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(f"Cannot write {out}: {exc.strerror or exc}") from None
        counts = handover.counts
        self.stdout.write(
            f"Wrote {out} ({out.stat().st_size:,} bytes): {counts.files} files of “{matter.name}”."
        )
