"""Screenshots of the main pages at 1280 px and on a 390 px phone, saved to var/screenshots/
for a person to look at; every page must fit its window (no sideways scrolling) and load
without JavaScript errors."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import horizontal_overflow, shot, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _pages(b) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    m, q = b.matter.pk, b.inject.pk
    return [
        ("matters", "/"),
        ("matter", f"/matters/{m}/"),
        ("reader", f"/documents/{b.base.pk}/"),
        ("ask", f"/matters/{m}/ask/"),
        ("answer", f"/matters/{m}/questions/{q}/"),
        ("history", f"/matters/{m}/history/"),
        ("compare", f"/matters/{m}/compare/?q={b.navindex.pk}&q={q}"),
        ("members", f"/matters/{m}/members/"),
        ("audit", f"/matters/{m}/audit/"),
    ]


def _capture(p, width: int, bioamber) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Sign in, open and capture each main page; the pages wider than the window."""
    sign_in(p, bioamber.owner.username)
    too_wide = {}
    for name, url in _pages(bioamber):
        response = p.goto(url)
        assert response is not None and response.status == 200, (name, response and response.status)
        if name == "reader":
            # The as-amended note beside Section 2.2, in the window; the whole text is long.
            p.locator("#s2\\.2").scroll_into_view_if_needed()
            shot(p, f"{width}-reader-as-amended", full_page=False)
            p.evaluate("window.scrollTo(0, 0)")
            shot(p, f"{width}-reader", full_page=False)
        elif name == "answer":
            shot(p, f"{width}-answer")
            p.locator(".cited-list a.cite").first.click()
            expect(p.locator("#provision-panel .provision mark").first).to_be_visible()
            shot(p, f"{width}-answer-panel", full_page=False)
        else:
            shot(p, f"{width}-{name}")
        overflow = horizontal_overflow(p)
        if overflow > 1:
            too_wide[name] = overflow
    assert p.js_errors == []
    return too_wide


def test_main_pages_fit_the_window_at_1280_and_390_px(page, narrow_page, bioamber) -> None:
    too_wide = {1280: _capture(page, 1280, bioamber), 390: _capture(narrow_page, 390, bioamber)}
    assert too_wide == {1280: {}, 390: {}}, f"pages wider than the window (px too wide): {too_wide}"
