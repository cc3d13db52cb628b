"""Plan mode and the live todo list in the web UI, in Chromium against a real ggd.

The mode picker starts a plan-mode run (the write is refused without an approval card), each
todo_write redraws the todo panel as it happens, a reload shows the saved list again, and
switching the picker back lets the next turn write.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, send, wait_phase

pytestmark = pytest.mark.browser


def _todo(*items: tuple[str, str]) -> dict[str, object]:
    todos = [{"content": c, "status": s} for c, s in items]
    return {"toolCalls": [{"name": "todo_write", "arguments": {"todos": todos}}]}


WRITE = {"toolCalls": [{"name": "write", "arguments": {"path": "out.txt", "content": "x\n"}}]}


def test_plan_mode_and_the_todo_panel(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], workspace: Path
) -> None:
    web = ggd_web(
        [
            _todo(("read the code", "in_progress"), ("write out.txt", "pending")),
            WRITE,
            _todo(("read the code", "completed"), ("write out.txt", "pending")),
            {"text": "Plan:\n1. write out.txt"},
            WRITE,
            _todo(("read the code", "completed"), ("write out.txt", "completed")),
            {"text": "Done."},
        ]
    )
    watch = pages()
    page = open_ui(watch, web)
    page.get_by_role("button", name="New session").first.click()
    page.get_by_label("Approval mode").select_option("plan")
    send(page, "plan the change")
    wait_phase(page, "completed")
    panel = page.get_by_test_id("todo-panel")
    assert page.get_by_test_id("todo-count").inner_text() == "1/2 done"
    items = panel.locator("li")
    assert items.nth(0).get_attribute("data-status") == "completed"
    assert items.nth(1).inner_text().endswith("write out.txt")
    assert not (workspace / "out.txt").exists()
    assert page.locator(".approval-card").count() == 0
    refused = [m for m in web.model.requests[2]["messages"] if m.get("role") == "tool"][-1]
    assert "plan mode" in str(refused["content"])
    assert web.model.requests[0]["messages"][0]["content"].count("# Plan mode") == 1
    screenshot(page, "plan-mode-todo-panel")

    # A reload reads the saved list back (gg/session.todos), with the mode kept on the page.
    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.get_by_test_id("todo-panel").wait_for()
    assert page.get_by_test_id("todo-count").inner_text() == "1/2 done"

    page.get_by_label("Approval mode").select_option("yolo")
    send(page, "go ahead")
    wait_phase(page, "completed")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=todo-count]')?.textContent === '2/2 done'"
    )
    assert (workspace / "out.txt").read_text() == "x\n"
    screenshot(page, "plan-mode-todo-done")
