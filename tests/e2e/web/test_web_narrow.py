"""The web UI in a narrow container (the VS Code sidebar, ~300 px) in Debian Chromium.

Below ~500 px the layout is one column: the session list hides behind the topbar's Sessions
button (aria-expanded) and opens over the conversation. Screenshots: tests/.artifacts/web/narrow-*.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, send, wait_phase

pytestmark = pytest.mark.browser

Pages = Callable[..., PageWatch]
Start = Callable[..., WebDaemon]
NARROW = (320, 700)
FOCUS_IS_CURRENT_ROW = "() => document.activeElement?.getAttribute('aria-current') === 'true'"


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
    page.wait_for_function(FOCUS_IS_CURRENT_ROW, timeout=10_000)
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


class ListGate:
    """A WebSocket proxy that holds the daemon's answer to a gg/session.list the page asks while
    the gate is closed, and every frame after it (order kept), until `open()`.

    So the page has a session open that its list does not show yet: the state after a session is
    made and before the refresh that lists it arrives (late on a loaded machine).
    """

    def __init__(self) -> None:
        self.closed = False
        self.list_ids: set[Any] = set()  # asked while closed
        self.lists_asked: set[Any] = set()  # asked at all
        self.lists_answered = 0  # answers that went through
        self.held: list[str | bytes] = []
        self.page_ws: Any = None

    def proxy(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.page_ws = ws

        def upstream(message: str | bytes) -> None:
            if isinstance(message, str):
                for one in _messages(message):
                    if one.get("method") == "gg/session.list":
                        self.lists_asked.add(one.get("id"))
                        if self.closed:
                            self.list_ids.add(one.get("id"))
            server.send(message)

        def downstream(message: str | bytes) -> None:
            if self.held or (self.closed and self._answers(message, self.list_ids)):
                self.held.append(message)
                return
            if self._answers(message, self.lists_asked):
                self.lists_answered += 1
            ws.send(message)

        ws.on_message(upstream)
        server.on_message(downstream)

    @staticmethod
    def _answers(message: str | bytes, ids: set[Any]) -> bool:
        return isinstance(message, str) and any(
            "method" not in one and one.get("id") in ids for one in _messages(message)
        )

    def wait(self, page: Any, done: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
        """Until `done()` (Playwright runs the proxy while the page waits)."""
        deadline = time.monotonic() + timeout
        while not done():
            assert time.monotonic() < deadline, what
            page.wait_for_timeout(50)

    def open(self) -> None:
        self.closed = False
        while self.held:  # a frame arriving meanwhile queues behind (held is not empty)
            self.page_ws.send(self.held.pop(0))


def _messages(text: str) -> list[dict[str, Any]]:
    parsed = json.loads(text)  # batchFrames: a JSON array of messages
    return [m for m in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(m, dict)]


def _list_opened_before_the_session_is_listed(ggd_web: Start, pages: Pages) -> tuple[Any, ListGate]:
    web = ggd_web([{"text": "An answer."}])
    watch = pages(viewport=NARROW)
    page = watch.page
    gate = ListGate()
    page.route_web_socket("**/ws", gate.proxy)
    open_ui(watch, web)
    # The page's first list (empty) goes through: the gate holds only what follows the session.
    gate.wait(page, lambda: gate.lists_answered >= 1, "the page never listed the sessions")
    gate.closed = True
    send(page, "Explain the project")  # creates the session, opens it, then asks for the list
    gate.wait(page, lambda: bool(gate.held), "the page never asked for the list again")
    # The new session is open (its title can be renamed; the placeholder's cannot).
    page.locator(".session-title").get_by_role("button", name="Rename").wait_for()
    page.get_by_test_id("list-toggle").focus()
    page.keyboard.press("Enter")
    sessions = page.get_by_role("navigation", name="Sessions")
    sessions.wait_for(state="visible")
    assert sessions.locator("[aria-current=true]").count() == 0  # not listed yet
    # Meanwhile the focus goes to the list's first control, New session.
    page.wait_for_function(
        "() => document.activeElement?.textContent?.trim() === 'New session'", timeout=10_000
    )
    return page, gate


def test_the_opened_list_moves_focus_to_the_session_once_it_is_listed(
    ggd_web: Start, pages: Pages
) -> None:
    page, gate = _list_opened_before_the_session_is_listed(ggd_web, pages)
    gate.open()
    page.wait_for_function(FOCUS_IS_CURRENT_ROW, timeout=10_000)
    row = page.get_by_role("navigation", name="Sessions").locator("[aria-current=true]")
    # The session's name (its first prompt) comes in a frame released after the list answer.
    row.filter(has_text="Explain the project").wait_for()
    assert row.evaluate("el => el === document.activeElement")


def test_the_opened_list_leaves_focus_where_the_user_moved_it(ggd_web: Start, pages: Pages) -> None:
    page, gate = _list_opened_before_the_session_is_listed(ggd_web, pages)
    page.keyboard.press("Tab")
    search = page.get_by_label("Search sessions")
    page.wait_for_function(
        "() => document.activeElement?.getAttribute('aria-label') === 'Search sessions'"
    )
    gate.open()
    page.get_by_role("navigation", name="Sessions").locator("[aria-current=true]").wait_for()
    # Two frames after the row appeared: the effect that moves the focus has run by then.
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert search.evaluate("el => el === document.activeElement")
