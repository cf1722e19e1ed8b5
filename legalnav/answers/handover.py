"""The answers' part of a matter's handover zip: every question with its answer and each cited
provision as it read when the answer was given, as Markdown and as the PDF memo, plus an index
(registered in ``AnswersConfig.ready``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from legalnav.answers import selectors
from legalnav.answers.memo import memo_render
from legalnav.answers.models import Answer, Citation, Question
from legalnav.matters.apphooks import HandoverPart
from legalnav.matters.handover import Entry, csv_bytes
from legalnav.matters.models import Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _markdown(query: Question, answer: Answer | None, citations: list[Citation]) -> str:
    asked_by = query.asked_by.get_username() if query.asked_by else "a command"
    lines = [
        f"# Q{query.pk}: {query.question}",
        "",
        f"Asked by {asked_by} on {query.created_at:%Y-%m-%d %H:%M} UTC; mode "
        f"{query.mode_used or query.mode}; {query.get_status_display().lower()}.",
        "",
    ]
    if answer is None:
        why = f": {query.error_message}" if query.error_message else ""
        return "\n".join([*lines, f"No answer{why}.", ""])
    lines += ["## Answer", "", answer.text, "", "## Citations", ""]
    if not citations:
        lines.append("None.")
    for c in citations:
        title = c.document.title if c.document else "(document deleted since the answer)"
        check = "verified" if c.valid else f"not verified: {c.problem}"
        lines += [f"- [{c.doc_key}:{c.node_ref}] {title} ({check})"]
        quoted = c.cited_text or c.quote
        if quoted:
            lines += ["", *(f"  > {line}" for line in quoted.splitlines()), ""]
    lines += ["", f"Cost: ${answer.dollars:.4f} ({answer.answerer}).", ""]
    return "\n".join(lines)


def answers_part(matter: Matter, user: User) -> Iterator[Entry]:
    queries = Question.objects.filter(matter=matter).select_related("asked_by").order_by("pk")
    rows = []
    for query in queries.iterator(chunk_size=200):
        answer = selectors.answer_of(query)
        citations = selectors.answer_citations(answer=answer) if answer else []
        yield f"answers/Q{query.pk}.md", _markdown(query, answer, citations).encode("utf-8")
        memo = ""
        if answer is not None and query.status == Question.Status.ANSWERED:
            try:
                pdf = memo_render(matter=matter, query=query, user=user).pdf
            except Exception as exc:  # noqa: BLE001 - one memo must not stop the handover
                memo = f"(the memo could not be made: {type(exc).__name__})"
            else:
                memo = f"memos/Q{query.pk}.pdf"
                yield memo, pdf
        rows.append(
            (
                f"Q{query.pk}",
                query.question,
                query.get_status_display(),
                query.mode_used or query.mode,
                query.asked_by.get_username() if query.asked_by else "",
                query.created_at,
                len(citations),
                sum(1 for c in citations if not c.valid),
                f"{answer.dollars:.6f}" if answer else "",
                memo,
            )
        )
    yield (
        "answers/index.csv",
        csv_bytes(
            [
                "question",
                "text",
                "status",
                "mode",
                "asked by",
                "asked at",
                "citations",
                "citations not verified",
                "dollars",
                "memo",
            ],
            rows,
        ),
    )


# The line of the zip's README that describes this part, and its place there.
PART = HandoverPart(
    20,
    "answers/: each question with its answer and cited provisions (Markdown); memos/: the PDF memo of each answered question; answers/index.csv",
    answers_part,
)
