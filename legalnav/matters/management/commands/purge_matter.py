"""Purge a matter from a script: ``manage.py purge_matter ID --yes``.

Closes the matter first if it is open (refused while work still runs in it), then destroys every
trace of its content exactly as the page and the API do (``matters.actions.matter_purge``), with
the audit row written outside the matter ("purged", by the system, via "command"). The owner's
request and staff confirmation of the page and API are for people; whoever runs this command on
the server can change the database directly anyway.

``--due`` lists the matters whose retention date has come or whose purge was asked for.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.matters import actions
from legalnav.matters.models import Matter

VIA = "command"


class Command(BaseCommand):
    help = "Destroy a matter's content (documents, files, indexes, vectors, answers, grids)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("matter_id", nargs="?", type=int, help="the matter's id")
        parser.add_argument("--yes", action="store_true", help="really purge (for scripts)")
        parser.add_argument("--due", action="store_true", help="list the matters due for purge")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["due"]:
            for m in actions.matters_due_for_purge():
                asked = (
                    f"purge asked {m.purge_requested_at:%Y-%m-%d}" if m.purge_requested_at else ""
                )
                keep = f"keep until {m.retain_until:%Y-%m-%d}" if m.retain_until else ""
                line = "  ".join(x for x in (keep, asked) if x)
                self.stdout.write(f"{m.pk}\t{m.get_status_display()}\t{m.name}\t{line}")
            return
        if opts["matter_id"] is None:
            raise CommandError("Name the matter's id (or --due to list the matters due).")
        matter = Matter.objects.filter(pk=opts["matter_id"]).first()
        if matter is None:
            raise CommandError(f"No matter with id {opts['matter_id']}.")
        if matter.is_purged:
            raise CommandError(f"Matter {matter.pk} ({matter.name}) was already purged.")
        if not opts["yes"]:
            raise CommandError(
                f"This destroys every document, answer and grid of “{matter.name}” for good. "
                "Run it again with --yes to do it."
            )
        try:
            if matter.is_open:
                actions.matter_close(matter=matter, user=None, via=VIA)
            removed = actions.matter_purge(
                matter=matter, user=None, typed_name=matter.name, via=VIA
            )
        except actions.MatterLifeError as exc:
            raise CommandError(exc.message) from None
        except actions.PurgeFailed as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Purged matter {matter.pk} ({matter.name}): {actions.purge_counts_in_words(removed)}."
        )
