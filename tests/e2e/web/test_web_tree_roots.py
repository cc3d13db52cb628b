"""The Tree tab draws a session's separate roots in separate lanes, in Chromium against a real ggd.

A checkout of the very first message and a new prompt give the session a second root: a separate
history, which must not read as one straight line with the first.
"""

from __future__ import annotations

import pytest

from .conftest import screenshot
from .test_web_ui import Pages, Start, open_ui, send, wait_phase

pytestmark = pytest.mark.browser


def test_two_roots_are_drawn_in_two_lanes(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([{"text": "first answer"}, {"text": "second answer"}])
    page = open_ui(pages(), web)
    send(page, "first question")
    page.get_by_test_id("msg-assistant").filter(has_text="first answer").wait_for()
    wait_phase(page, "completed")
    page.get_by_role("tab", name="Tree").click()
    assert page.get_by_test_id("tree-roots-note").count() == 0  # one root: nothing to say
    page.get_by_role("button", name="Check out user message: first question").click()
    # The head moves before the first message: the next prompt starts a second root.
    page.wait_for_function("() => document.querySelector('textarea')?.value === 'first question'")
    page.get_by_label("Prompt").fill("second question")
    page.get_by_label("Prompt").press("Enter")
    page.get_by_test_id("msg-assistant").filter(has_text="second answer").wait_for()
    wait_phase(page, "completed")
    web.model.wait_for_requests(2)
    assert [m["content"] for m in web.model.requests[1]["messages"] if m["role"] == "user"] == [
        "second question"
    ]

    page.get_by_role("tab", name="Tree").click()
    nodes = page.get_by_test_id("tree-node")
    nodes.nth(3).wait_for()
    rows = nodes.evaluate_all(
        "ns => ns.map(n => [n.dataset.lane, n.dataset.root ?? '', "
        "n.querySelector('.tree-text').textContent])"
    )
    assert rows == [
        ["0", "true", "first question"],
        ["0", "", "first answer"],
        ["1", "true", "second question"],
        ["1", "", "second answer"],
    ]
    assert page.locator("ul.tree").get_attribute("data-lanes") == "2"
    note = page.get_by_test_id("tree-roots-note")
    assert "2 separate starts" in note.inner_text()
    # Each root's rail is capped (nothing leads into it), and no rail joins the two histories.
    assert page.locator("svg .root-cap").count() == 2
    second_root = nodes.nth(2)
    assert second_root.locator("svg line[y1='0']").count() == 0
    heads = page.locator("[data-testid=tree-node][data-head=true]")
    assert heads.count() == 1 and "second answer" in heads.inner_text()
    screenshot(page, "tree-two-roots")
    page.get_by_role("button", name="Switch to dark theme").click()
    screenshot(page, "tree-two-roots-dark")
    page.set_viewport_size({"width": 320, "height": 700})
    nodes.nth(3).wait_for()
    lanes = nodes.evaluate_all(
        "ns => ns.map(n => n.querySelector('svg').getBoundingClientRect().x)"
    )
    assert lanes[2] == lanes[0]  # the rails' box is as wide for every row: lanes line up
    screenshot(page, "tree-two-roots-narrow")
