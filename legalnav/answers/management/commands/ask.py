"""Ask a question of a matter from the command line: manage.py ask --matter 1 "question" [--json]."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.answers.models import Query
from legalnav.answers.services import QueryRejected, query_answer, query_create
from legalnav.matters.models import Matter


class Command(BaseCommand):
    help = "Answer a question in a matter (offline unless ANTHROPIC_API_KEY is set)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--matter", required=True, help="Matter id or exact name.")
        parser.add_argument("--mode", default="auto", choices=Query.Mode.values)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        ref = str(opts["matter"])
        matter = (
            Matter.objects.filter(pk=int(ref)).first()
            if ref.isdigit()
            else Matter.objects.filter(name=ref).first()
        )
        if matter is None:
            raise CommandError(f"No matter “{ref}”.")
        try:
            query = query_create(
                matter=matter,
                user=None,
                question=str(opts["question"]),
                mode=str(opts["mode"]),
                enqueue=False,
            )
        except QueryRejected as exc:
            raise CommandError(str(exc)) from exc
        query = query_answer(query_id=query.pk)
        assert query is not None
        if query.status != Query.Status.ANSWERED:
            raise CommandError(f"The question could not be answered: {query.error_message}")
        answer = query.answer
        data = {
            "query_id": query.pk,
            "matter": matter.name,
            "question": query.question,
            "mode": query.mode,
            "mode_used": query.mode_used,
            "answerer": answer.answerer,
            "answer": answer.text,
            "citations": [
                {
                    "document": c.doc_key,
                    "provision": c.node_ref,
                    "quote": c.quote,
                    "valid": c.valid,
                    "problem": c.problem,
                }
                for c in answer.citations.all()
            ],
            "validation": answer.validation,
            "cost": {
                "dollars": str(answer.dollars),
                "token_footprint": answer.token_footprint,
                "answering_context_tokens": answer.context_tokens,
                "payload_chars": answer.payload_chars,
                "inject_tokens": answer.inject_tokens,
                "inject_dollars_warm": str(answer.inject_dollars),
                "crossover": answer.crossover,
            },
        }
        if opts["json"]:
            self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False))
            return
        self.stdout.write(answer.text)
        self.stdout.write("")
        valid = (
            "all citations check out"
            if answer.validation.get("ok")
            else "CITATION PROBLEMS: " + "; ".join(answer.validation.get("problems", []))
        )
        self.stdout.write(f"— {answer.answerer}, mode {query.mode_used}; {valid}")
        self.stdout.write(
            f"— ${answer.dollars:.6f}; footprint {answer.token_footprint:,} tokens; answering context "
            f"{answer.context_tokens:,} tokens; inject would read {answer.inject_tokens:,} tokens "
            f"(${answer.inject_dollars:.6f} warm)"
        )
