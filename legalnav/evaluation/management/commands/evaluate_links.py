"""``manage.py evaluate_links``: precision and recall of the amendment links legalnav proposes,
against the hand-built gold over the CUAD and EDGAR documents (legalnav/evaluation/links.py)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Amendment links proposed on the CUAD + EDGAR data room, against the hand-built gold."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        from legalnav.evaluation import links

        figures = links.run()
        if opts["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "documents": figures.documents,
                        "gold_links": figures.gold_links,
                        "proposed": figures.proposed,
                        "right": figures.right,
                        "precision": figures.precision,
                        "recall": figures.recall,
                        "wrong_target": figures.wrong_target,
                        "absent_target": figures.absent_target,
                        "not_an_amendment": figures.not_an_amendment,
                        "missed": figures.missed,
                    },
                    indent=2,
                )
            )
        else:
            self.stdout.write(figures.table())
