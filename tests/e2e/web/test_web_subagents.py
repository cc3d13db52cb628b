"""The web UI nests a live subagent under its `task` card, expandable to the child's transcript."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, send, wait_phase

pytestmark = pytest.mark.browser

Pages = Callable[..., PageWatch]
Start = Callable[..., WebDaemon]


def _for(marker: str, step: dict[str, Any]) -> dict[str, Any]:
    return {**step, "when": {"firstUser": marker}}


def _task(call_id: str, agent: str, prompt: str, description: str) -> dict[str, Any]:
    args = {"agent": agent, "prompt": prompt, "description": description}
    return {"id": call_id, "name": "task", "arguments": args}


SCRIPT = [
    _for(
        "PARENT",
        {
            "toolCalls": [
                _task("t_e", "explore", "EXPLORE: what is in README.md?", "read the readme"),
                _task("t_g", "general", "GENERAL: write out.txt", "write the notes file"),
            ]
        },
    ),
    _for("EXPLORE", {"toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}]}),
    _for("EXPLORE", {"text": "The readme is titled **demo project**."}),
    _for(
        "GENERAL",
        {"toolCalls": [{"name": "write", "arguments": {"path": "out.txt", "content": "notes\n"}}]},
    ),
    _for("GENERAL", {"text": "Wrote out.txt."}),
    _for("PARENT", {"text": "Both subagents reported back."}),
]


def test_children_nest_under_their_task_cards(
    ggd_web: Start, pages: Pages, workspace: Path
) -> None:
    web = ggd_web(SCRIPT)
    page = open_ui(pages(), web)
    send(page, "PARENT: delegate to two subagents")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    assert "subagent general" in card.inner_text()
    assert "write out.txt" in card.inner_text()
    children = page.get_by_test_id("child-run")
    children.nth(1).wait_for()
    general = children.filter(has_text="write the notes file")
    assert general.get_attribute("data-status") == "running"
    general.get_by_text("waiting for approval: write out.txt").wait_for()
    page.locator("[data-testid=child-run][data-status=done]").filter(
        has_text="read the readme"
    ).wait_for()
    screenshot(page, "subagents-running")
    card.get_by_role("button", name="Allow", exact=False).first.click()
    wait_phase(page, "completed")
    assert (workspace / "out.txt").read_text() == "notes\n"
    assert page.locator("[data-testid=child-run][data-status=done]").count() == 2
    assert "Both subagents reported back." in page.get_by_test_id("msg-assistant").last.inner_text()
    summaries = page.locator("[data-testid=tool-card] > .tool-head .tool-summary").all_inner_texts()
    assert summaries == ["explore: read the readme", "general: write the notes file"], summaries
    # The explore child's whole transcript, loaded from its child session.
    explore = children.filter(has_text="read the readme")
    explore.get_by_text("Transcript").click()
    transcript = explore.get_by_test_id("child-transcript")
    transcript.wait_for()
    text = transcript.inner_text()
    assert "EXPLORE: what is in README.md?" in text
    assert "read" in text and "README.md" in text
    assert "The readme is titled demo project." in text
    assert transcript.locator("strong").inner_text() == "demo project"  # rendered Markdown
    screenshot(page, "subagents-transcript")
    # Children are sessions of their own, but not listed beside their parent.
    listed = page.locator("#session-list").inner_text()
    assert "PARENT: delegate to" in listed
    assert "EXPLORE" not in listed and "explore:" not in listed and "general:" not in listed

    # A page loaded later finds the children again (gg/session.list parentSessionId).
    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.locator("[data-testid=child-run][data-status=done]").nth(1).wait_for()
    again = page.get_by_test_id("child-run").filter(has_text="general")
    again.get_by_text("Transcript").click()
    assert "Wrote out.txt." in again.get_by_test_id("child-transcript").inner_text()
    screenshot(page, "subagents-reloaded")
    # The child is an ordinary session: open it, see whose it is, and go back.
    again.get_by_role("button", name="Open session").click()
    banner = page.get_by_test_id("child-of")
    banner.wait_for()
    assert "Subagent general" in banner.inner_text()
    page.get_by_test_id("msg-user").filter(has_text="GENERAL: write out.txt").wait_for()
    screenshot(page, "subagents-child-session")
    banner.get_by_role("button", name="its parent session").click()
    page.get_by_test_id("msg-user").filter(has_text="PARENT: delegate").wait_for()
    assert page.get_by_test_id("child-of").count() == 0
