"""Precedent research in a browser, as a lawyer meets it: a statement of facts that asks whether
a result holds, without saying whose side, is asked back with the two likely sides as buttons;
choosing one researches it for that side, with each judgment's stance and the reason in words;
the cost panel says when the matter's judgments could never fit the model's window."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from legalnav.answers.models import Question, ResearchRun
from legalnav.matters.models import Matter
from tests.browser.conftest import shot, sign_in
from tests.conftest import MatterFactory, MembershipFactory
from tests.research.conftest import add_judgments

pytestmark = pytest.mark.django_db(transaction=True)

# Real AILA judgments on dying declarations: two that went the accused's way, two against, a
# Constitution Bench reference with no winner.
CASES = ["C1252", "C1193", "C1932", "C1010", "C51"]
FACTS = (
    "The accused was convicted of murder on the basis of a dying declaration recorded by a "
    "magistrate without corroboration. Can the conviction stand?"
)


def test_facts_without_a_side_are_asked_back_then_researched_for_the_side_chosen(
    page, answering, monkeypatch
) -> None:
    # A window smaller than these five judgments: the cost panel must say inject cannot fit.
    monkeypatch.setattr("legalnav.answers.core.CONTEXT_WINDOW_TOKENS", 5_000)
    matter = MatterFactory(kind=Matter.Kind.RESEARCH, name="Dying declarations")
    owner = MembershipFactory(matter=matter).user
    add_judgments(matter, CASES)

    sign_in(page, owner.username)
    page.goto(f"/matters/{matter.pk}/ask/")
    page.get_by_role("textbox", name="Question").fill(FACTS)
    page.get_by_role("button", name="Ask", exact=True).click()
    live = page.locator("#answer-live[data-status=answered]")
    expect(live).to_be_visible(timeout=60_000)
    expect(live.locator(".answer-text")).to_contain_text("Which side do you act for?")
    asked = Question.objects.get(matter=matter)
    assert ResearchRun.objects.get(question=asked).route == "clarify"
    accused = live.get_by_role("button", name=f"I act for the accused. {FACTS}")
    expect(accused).to_be_visible()
    expect(live.get_by_role("button", name=f"I act for the prosecution. {FACTS}")).to_be_visible()
    panel = live.locator("section.research")
    expect(panel.locator(".clarify-options")).to_contain_text("Which side do you act for?")
    expect(panel.locator(".evidence-columns")).to_have_count(0)  # nothing was researched yet
    shot(page, "research-clarify")

    # The click submits the chosen side and waits for the new question's page: research runs
    # inline offline, which takes longer than a click's default wait on a loaded machine.
    accused.click(timeout=60_000)
    page.wait_for_url(
        lambda url: f"/questions/{asked.pk}/" not in url and "/questions/" in url, timeout=60_000
    )
    live = page.locator("#answer-live[data-status=answered]")
    expect(live).to_be_visible(timeout=60_000)
    brief = Question.objects.exclude(pk=asked.pk).get(matter=matter)
    assert brief.question == f"I act for the accused. {FACTS}"
    run = ResearchRun.objects.get(question=brief)
    assert run.route == "deep" and run.side == "the accused"
    text = live.locator(".answer-text")
    expect(text).to_contain_text("Acting for: the accused.")
    expect(text).to_contain_text("Proposition: the conviction cannot stand")

    panel = live.locator("section.research")
    supporting = panel.locator(".evidence-col.ev-supporting")
    adverse = panel.locator(".evidence-col.ev-adverse")
    expect(supporting.locator(".ev-row").first).to_contain_text("supports the accused")
    expect(adverse.locator(".ev-row").first).to_contain_text("adverse to the accused")
    # The stance rests on the court's holding on the issue, quoted verbatim above the reason.
    expect(adverse.locator(".ev-row").first).to_contain_text("stance from holding")
    expect(adverse.locator(".ev-row").first.locator("blockquote")).to_contain_text(
        "dying declaration"
    )

    cost = page.locator("body")
    expect(cost).to_contain_text("Inject cannot answer here at all")
    expect(cost).to_contain_text("exceed the model's context window (5,000 tokens)")
    shot(page, "research-brief")
    assert page.js_errors == []  # type: ignore[attr-defined]


# Issue 32: a matter of 150 real AILA judgments, the dying-declaration cases among 145 others on
# every kind of issue. The others are the corpus's shortest judgments, so that embedding the
# matter's passages (done at indexing in production, lazily in tests) stays within a minute.
def _aila_150() -> list[str]:
    from tests.research.conftest import aila_path

    folder = aila_path(CASES[0]).parent
    by_size = sorted(folder.glob("C*.txt"), key=lambda p: (p.stat().st_size, p.stem))
    others = [p.stem for p in by_size if p.stem not in CASES]
    return CASES + others[: 150 - len(CASES)]


def test_a_brief_over_150_judgments_keeps_judgments_off_the_issue_out_of_support_and_adverse(
    page, answering
) -> None:
    matter = MatterFactory(kind=Matter.Kind.RESEARCH, name="AILA 150")
    owner = MembershipFactory(matter=matter).user
    docs = add_judgments(matter, _aila_150())
    assert len(docs) == 150

    sign_in(page, owner.username)
    page.goto(f"/matters/{matter.pk}/ask/")
    page.get_by_role("textbox", name="Question").fill(f"I act for the accused. {FACTS}")
    page.get_by_role("button", name="Ask", exact=True).click()
    live = page.locator("#answer-live[data-status=answered]")
    expect(live).to_be_visible(timeout=300_000)
    panel = live.locator("section.research")
    by_key = {d.key: d for d in docs.values()}
    decided = panel.locator(".evidence-col.ev-supporting .ev-row, .evidence-col.ev-adverse .ev-row")
    expect(decided.first).to_be_visible()
    assert decided.count() >= 2
    for i in range(decided.count()):
        row = decided.nth(i)
        key = row.locator(".ev-where .muted").inner_text().strip("[]").split(":")[0]
        text = " ".join(by_key[key].text.split()).lower()
        # On the issue: the judgment deals with a dying declaration, and the reason is a
        # holding of the court quoted verbatim from it.
        assert "dying declaration" in text, key
        expect(row.locator(".ev-foot")).to_contain_text("stance from holding")
        quote = " ".join(row.locator("blockquote").inner_text().strip("“”").split())
        assert quote and quote.lower() in text.replace("“", "‘").replace("”", "’"), key
    # Judgments the search found that decide something else are neutral, and say so.
    neutral = panel.locator(".evidence-col.ev-neutral .ev-row")
    off_issue = neutral.filter(has_text="does not decide the issue")
    assert off_issue.count() >= 1
    shot(page, "research-aila-150")
    assert page.js_errors == []  # type: ignore[attr-defined]
