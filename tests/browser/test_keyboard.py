"""The main actions by keyboard alone: Tab reaches them in a sensible order, the focused control
shows a visible focus ring, and Enter on a citation opens it in the side panel."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

# What the focused element is, in a form a test can compare: tag#id or tag.class "label".
DESCRIBE = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return "body";
  const label = (e.getAttribute("aria-label") || e.innerText || e.value || "").trim().slice(0, 40);
  return `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}|${label}`;
}"""

# The focus indicator of the focused element: a non-zero outline or a box shadow.
FOCUS_RING = """() => {
  const s = getComputedStyle(document.activeElement);
  const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2;
  return {outline, shadow: s.boxShadow !== "none", visible: document.activeElement.matches(":focus-visible")};
}"""


def tab_through(page, limit: int = 60) -> list[str]:  # type: ignore[no-untyped-def]
    """Press Tab from the top of the page until focus stops moving forward; what was focused."""
    page.locator("body").focus()
    seen: list[str] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        where = page.evaluate(DESCRIBE)
        if seen and where == seen[0]:
            break  # wrapped round
        seen.append(where)
    return seen


def tab_to(page, selector: str, limit: int = 60) -> None:  # type: ignore[no-untyped-def]
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def assert_focus_ring(page) -> None:  # type: ignore[no-untyped-def]
    ring = page.evaluate(FOCUS_RING)
    assert ring["visible"], page.evaluate(DESCRIBE)
    assert ring["outline"] or ring["shadow"], (page.evaluate(DESCRIBE), ring)


def test_tab_reaches_the_question_mode_and_ask_with_a_visible_focus_ring(
    page, bioamber_docs, answering
) -> None:
    bioamber = bioamber_docs
    sign_in(page, bioamber.owner.username)
    page.goto(f"/matters/{bioamber.matter.pk}/ask/")
    order = tab_through(page)
    assert order[0] == "a|Skip to content"
    ask_at = order.index("textarea#question|")
    # The question, then its mode, then the Ask button, one Tab apart.
    assert order[ask_at + 1].startswith("select#mode|")
    assert order[ask_at + 2] == "button|Ask"

    page.locator("body").focus()
    tab_to(page, "#question")
    assert_focus_ring(page)
    page.keyboard.type("Which state's law governs the Development Agreement?")
    tab_to(page, "#mode")
    assert_focus_ring(page)
    page.keyboard.press("Tab")
    assert page.evaluate(DESCRIBE) == "button|Ask"
    assert_focus_ring(page)
    page.keyboard.press("Enter")  # asks, by keyboard
    expect(page.locator("#answer-live[data-status=answered]")).to_be_visible(timeout=60_000)


def test_enter_on_a_citation_opens_the_side_panel(page, bioamber) -> None:
    sign_in(page, bioamber.owner.username)
    page.goto(f"/matters/{bioamber.matter.pk}/questions/{bioamber.inject.pk}/")
    page.locator("body").focus()
    tab_to(page, ".answer-text a.cite")
    assert_focus_ring(page)
    label = page.evaluate("document.activeElement.textContent").strip()
    page.keyboard.press("Enter")
    panel = page.locator("#provision-panel")
    expect(panel.locator(".provision mark").first).to_be_visible()
    expect(panel.locator(".cite-label")).to_have_text(label.strip("[]"))
    # The reader link in the panel is the next stop a keyboard user needs: reachable by Tab.
    tab_to(page, "#provision-panel a.reader-link")
    assert_focus_ring(page)


def test_tab_reaches_the_upload_controls_and_the_reader_outline(page, bioamber_docs) -> None:
    bioamber = bioamber_docs
    sign_in(page, bioamber.owner.username)
    page.goto(f"/matters/{bioamber.matter.pk}/")
    order = tab_through(page)
    file_at = next(i for i, o in enumerate(order) if o.startswith("input#upload-files"))
    assert order[file_at + 1] == "button|Upload and index"
    assert any(o == "a|Development Agreement" for o in order[file_at:])

    page.goto(f"/documents/{bioamber.base.pk}/")
    page.locator("body").focus()
    tab_to(page, ".outline a")  # the first clause in the outline
    assert_focus_ring(page)
    for _ in range(3):  # down the outline
        page.keyboard.press("Tab")
    href = page.evaluate("document.activeElement.getAttribute('href')")
    assert href.startswith("#") and page.evaluate(
        "document.activeElement.closest('.outline') !== null"
    )
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{href}")
    expect(page.locator(f"[id='{href[1:]}']")).to_be_in_viewport()
