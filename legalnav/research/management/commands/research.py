"""Ask a research question of a matter of judgments: manage.py research --matter 1 "question".

Prints the route and why, the answer, the evidence in its supporting, adverse and neutral
buckets, what validation removed, and the trace (each step with its time and cost); --json
writes all of it as one object.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.answers import report
from legalnav.answers.management.commands._asking import ask_here, matter_or_error
from legalnav.matters.models import Matter


class Command(BaseCommand):
    help = "Research a question over a matter of judgments (offline unless ANTHROPIC_API_KEY)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--matter", required=True, help="Matter id or exact name.")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        matter = matter_or_error(opts["matter"])
        if matter.kind != Matter.Kind.RESEARCH:
            raise CommandError(
                f"“{matter.name}” is not a research matter; use manage.py ask for its documents."
            )
        answered = ask_here(matter=matter, question=str(opts["question"]))
        out = report.query_report(answered)
        if opts["json"]:
            self.stdout.write(json.dumps(out.model_dump(mode="json"), indent=2, ensure_ascii=False))
            return
        answer, research = out.answer, out.answer.research if out.answer else None
        assert answer is not None
        if research is not None:
            self.stdout.write(
                f"Route: {research.route} — {research.route_reason} ({research.routed_by})"
            )
        self.stdout.write("")
        self.stdout.write(answer.text)
        self.stdout.write("")
        for bucket in ("supporting", "adverse", "neutral"):
            rows = getattr(answer.evidence, bucket)
            if rows:
                self.stdout.write(f"{bucket.capitalize()} evidence:")
                for row in rows:
                    self.stdout.write(
                        f"  [{row.document.key}:{row.node_id or ''}] {row.case} {row.parent} — "
                        f"{row.reason}"
                    )
        if research is None:
            return
        for removed in research.removed:
            self.stdout.write(
                f"REMOVED {removed['citation']} {removed['problem']}: {removed['quotes']}"
            )
        self.stdout.write("")
        self.stdout.write("Trace:")
        for step in research.trace:
            cost = f", ${float(step.dollars):.6f}" if step.llm_calls else ""
            note = f" — {step.note}" if step.note else ""
            self.stdout.write(
                f"  {step.order}. {step.name} [{step.status}] {step.ms} ms{cost}{note}"
            )
        self.stdout.write(f"Total {research.total_ms} ms, ${float(research.dollars):.6f}")
