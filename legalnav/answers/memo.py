"""The PDF memo of one answered question: matter, date, question, answer, every cited provision
verbatim with its document and clause, the mode and what it cost, page numbers.

WeasyPrint is imported inside ``memo_render`` only: it pulls in Pango, fontTools and friends,
which the web process must not load just to render a page (tests/test_lazy_imports.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.text import slugify

from legalnav.answers import report, selectors
from legalnav.answers.models import Question
from legalnav.core.users import actor_name
from legalnav.matters.models import Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class MemoUnavailable(ValueError):
    """The question has no answer to export yet."""


@dataclass(frozen=True, slots=True)
class Memo:
    pdf: bytes
    filename: str


def memo_html(*, matter: Matter, query: Question, user: User) -> str:
    """The memo as HTML (what WeasyPrint lays out); every document and answer string escaped."""
    answer = selectors.answer_of(query)
    if query.status != Question.Status.ANSWERED or answer is None:
        raise MemoUnavailable("Only an answered question can be exported as a memo.")
    citations = selectors.answer_citations(answer=answer)
    out = report.answer_report(query=query, answer=answer, citations=citations)
    context = {
        "matter": matter,
        "query": query,
        "answer": out,
        "paragraphs": selectors.answer_paragraphs(text=answer.text, citations=citations),
        "provisions": selectors.memo_provisions(citations=citations),
        "cost": out.cost,
        "exported_at": timezone.now(),
        "exported_by": actor_name(user),
    }
    return render_to_string("memo/memo.html", context)


def memo_render(*, matter: Matter, query: Question, user: User) -> Memo:
    """Render the memo to PDF (nothing recorded: ``actions.memo_export`` audits the export)."""
    html = memo_html(matter=matter, query=query, user=user)
    from weasyprint import HTML  # heavy: only when a memo is actually exported

    pdf = HTML(string=html).write_pdf()
    name = slugify(matter.name)[:60] or "matter"
    return Memo(pdf=pdf, filename=f"legalnav-memo-{name}-Q{query.pk}.pdf")
