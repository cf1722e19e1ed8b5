"""Ask a question of a matter from the command line: manage.py ask --matter 1 "question" [--json].

``--json`` prints the answer report (legalnav.answers.report), the same object the API and MCP
return for the question."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser, OutputWrapper

from legalnav.answers import report
from legalnav.answers.management.commands._asking import ask_here, matter_or_error
from legalnav.answers.models import Question


class Command(BaseCommand):
    help = "Answer a question in a matter (offline unless ANTHROPIC_API_KEY is set)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--matter", required=True, help="Matter id or exact name.")
        parser.add_argument("--mode", default="auto", choices=Question.Mode.values)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        matter = matter_or_error(opts["matter"])
        query = ask_here(matter=matter, question=str(opts["question"]), mode=str(opts["mode"]))
        out = report.query_report(query)
        if opts["json"]:
            # The answer report, exactly as the API and MCP give it.
            self.stdout.write(json.dumps(out.model_dump(mode="json"), indent=2, ensure_ascii=False))
            return
        print_answer(self.stdout, out)


def print_answer(stdout: OutputWrapper, out: report.QuestionOut) -> None:
    """The answer report as text: the answer, the citation check and the cost line."""
    answer = out.answer
    assert answer is not None
    stdout.write(answer.text)
    stdout.write("")
    validation = answer.validation
    valid = (
        "all citations check out"
        if validation.get("ok")
        else "CITATION PROBLEMS: " + "; ".join(validation.get("problems", []))
    )
    stdout.write(f"— {answer.answerer}, mode {out.mode_used}; {valid}")
    cost = answer.cost
    stdout.write(
        f"— ${float(cost.dollars):.6f}; footprint {cost.token_footprint:,} tokens; answering "
        f"context {cost.context_tokens:,} tokens; inject would read {cost.inject_tokens:,} "
        f"tokens (${float(cost.inject_dollars):.6f} warm)"
    )
