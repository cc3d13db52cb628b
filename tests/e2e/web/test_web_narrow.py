"""The web UI in a narrow container (the VS Code sidebar, ~300 px) in Debian Chromium.

Below ~500 px the layout is one column: the session list hides behind the topbar's Sessions
button (aria-expanded) and opens over the conversation. Screenshots: tests/.artifacts/web/narrow-*.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, send, wait_phase

pytestmark = pytest.mark.browser

Pages = Callable[..., PageWatch]
Start = Callable[..., WebDaemon]
NARROW = (320, 700)


def test_narrow_layout_hides_the_session_list_behind_a_toggle(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web(
        [
            {"text": "The **first** answer, long enough to wrap in a narrow column of text."},
            {"text": "A second session."},
        ]
    )
    page = open_ui(pages(viewport=NARROW), web)
    sessions = page.get_by_role("navigation", name="Sessions")
    toggle = page.get_by_test_id("list-toggle")
    assert toggle.is_visible()
    assert toggle.get_attribute("aria-expanded") == "false"
    assert toggle.get_attribute("aria-controls") == "session-list"
    assert sessions.is_hidden()

    send(page, "Explain the project")
    wait_phase(page, "completed")
    page.get_by_test_id("msg-assistant").filter(has_text="first answer").wait_for()
    # One column: conversation and composer span the page; nothing scrolls sideways.
    composer = page.get_by_role("form", name="Composer").bounding_box()
    assert composer is not None and composer["width"] >= NARROW[0] - 2
    panel = page.get_by_role("tabpanel").bounding_box()
    assert panel is not None and panel["x"] == 0 and panel["width"] >= NARROW[0] - 2
    assert page.evaluate("document.documentElement.scrollWidth") <= NARROW[0]
    screenshot(page, "narrow-chat")

    # Keyboard: Enter on the toggle opens the list over the conversation, focus goes into it.
    toggle.focus()
    page.keyboard.press("Enter")
    sessions.wait_for(state="visible")
    assert toggle.get_attribute("aria-expanded") == "true"
    box = sessions.bounding_box()
    assert box is not None and box["width"] >= NARROW[0] - 2
    # Focus moves in an effect after the list is shown: wait for it (bounded), then it holds.
    page.wait_for_function(
        "() => document.activeElement?.getAttribute('aria-current') === 'true'", timeout=10_000
    )
    screenshot(page, "narrow-list")
    # Escape closes it and gives focus back to the toggle.
    page.keyboard.press("Escape")
    sessions.wait_for(state="hidden")
    assert toggle.get_attribute("aria-expanded") == "false"
    page.wait_for_function(
        "() => document.activeElement?.dataset.testid === 'list-toggle'", timeout=10_000
    )

    # New session from the list closes it; opening the first session again closes it too.
    toggle.click()
    sessions.get_by_role("button", name="New session").click()
    sessions.wait_for(state="hidden")
    send(page, "Another thing")
    wait_phase(page, "completed")
    toggle.click()
    rows = sessions.get_by_test_id("session-row")
    rows.nth(1).wait_for()
    rows.filter(has_text="Explain the project").click()
    sessions.wait_for(state="hidden")
    page.get_by_test_id("msg-assistant").filter(has_text="first answer").wait_for()

    # Wide again: two columns, no toggle.
    page.set_viewport_size({"width": 1280, "height": 800})
    sessions.wait_for(state="visible")
    assert toggle.is_hidden()
