"""The web UI in Debian Chromium against a real ggd and the scripted model.

Each test reads like a use of the product: type a prompt, answer approvals, steer, stop, fork,
reload, watch from a second window, use a wrong token. Screenshots of the main states go to
tests/.artifacts/web/; every page must finish without a console error (see conftest.py).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ..daemon import TOKEN
from .conftest import PageWatch, WebDaemon, screenshot

pytestmark = pytest.mark.browser

Pages = Callable[..., PageWatch]
Start = Callable[..., WebDaemon]


def write_call(path: str, content: str) -> dict[str, Any]:
    """A model step that asks to write one file (the write tool needs approval)."""
    return {"toolCalls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


def open_ui(watch: PageWatch, web: WebDaemon) -> Any:
    """Load the page the way ggd prints it and wait for the connection."""
    page = watch.page
    page.goto(web.url)
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    return page


def send(page: Any, text: str) -> None:
    """Type a prompt and press Enter."""
    box = page.get_by_label("Prompt")
    box.fill(text)
    box.press("Enter")


def wait_phase(page: Any, phase: str) -> None:
    """Wait until the run footer shows a phase (running, waiting_approval, completed, ...)."""
    page.wait_for_selector(f"[data-testid=run-phase][data-phase={phase}]")


def user_texts(web: WebDaemon, request_index: int) -> list[str]:
    """The user messages the model saw in one chat-completions request."""
    body = web.model.requests[request_index]
    return [str(m.get("content")) for m in body["messages"] if m.get("role") == "user"]


def test_run_with_approvals_allowed_and_denied(
    ggd_web: Start, pages: Pages, workspace: Path
) -> None:
    web = ggd_web(
        [
            write_call("allowed.txt", "yes\n"),
            {
                "toolCalls": [
                    {
                        "name": "edit",
                        "arguments": {
                            "path": "allowed.txt",
                            "edits": [{"oldText": "yes", "newText": "yes, edited"}],
                        },
                    }
                ]
            },
            write_call("denied.txt", "no\n"),
            {"text": "Wrote **allowed.txt**; the other write was denied."},
        ]
    )
    page = open_ui(pages(), web)
    assert "token" not in page.url, "the token must leave the visible URL"
    send(page, "Write two files")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    assert "write allowed.txt" in card.inner_text()
    screenshot(page, "approval")
    # Keyboard: the card takes focus; `a` allows once.
    card.press("a")
    card = page.get_by_test_id("approval-card").filter(has_text="edit")
    card.wait_for()
    assert "+yes, edited" in card.locator(".diff-add").inner_text()
    screenshot(page, "approval-diff")
    card.get_by_role("button", name="Allow", exact=False).first.click()
    card = page.get_by_test_id("approval-card").filter(has_text="denied.txt")
    card.wait_for()
    card.get_by_role("button", name="Deny").click()
    wait_phase(page, "completed")
    answer = page.get_by_test_id("msg-assistant").last
    assert "the other write was denied" in answer.inner_text()
    assert answer.locator("strong").inner_text() == "allowed.txt"
    statuses = page.get_by_test_id("tool-card").evaluate_all(
        "cards => cards.map(c => c.dataset.status)"
    )
    assert statuses == ["done", "done", "denied"]
    edit_card = page.get_by_test_id("tool-card").nth(1)
    assert "+yes, edited" in edit_card.locator(".diff-add").inner_text()
    assert (workspace / "allowed.txt").read_text() == "yes, edited\n"
    assert not (workspace / "denied.txt").exists()
    screenshot(page, "completed")
    page.get_by_role("button", name="Switch to dark theme").click()
    screenshot(page, "completed-dark")


def test_steering_mid_run_reaches_the_model(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([write_call("a.txt", "a\n"), {"text": "Done, with tabs."}])
    page = open_ui(pages(), web)
    send(page, "Write a file")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    steer = page.get_by_label("Steer message")
    steer.fill("use tabs, please")
    steer.press("Enter")
    card.get_by_role("button", name="Allow", exact=False).first.click()
    wait_phase(page, "completed")
    texts = page.get_by_test_id("msg-user").all_inner_texts()
    assert any("use tabs, please" in t for t in texts)
    web.model.wait_for_requests(2)
    assert "use tabs, please" in user_texts(web, 1)
    screenshot(page, "steered")


def test_queued_follow_up_runs_after_the_answer(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web(
        [write_call("f.txt", "f\n"), {"text": "First answer."}, {"text": "Follow-up answer."}]
    )
    page = open_ui(pages(), web)
    send(page, "Write f.txt")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    page.get_by_label("Steer message").fill("and then summarise")
    page.get_by_role("button", name="Queue follow-up").click()
    page.get_by_label("Queued messages").filter(has_text="Follow-up queued").filter(
        has_text="and then summarise"
    ).wait_for()
    card.get_by_role("button", name="Allow", exact=False).first.click()
    wait_phase(page, "completed")
    page.get_by_test_id("msg-assistant").filter(has_text="Follow-up answer.").wait_for()
    assert page.get_by_label("Queued messages").count() == 0
    web.model.wait_for_requests(3)
    assert user_texts(web, 2)[-1] == "and then summarise"
    assert "and then summarise" not in user_texts(web, 1)


def test_stop_cancels_a_running_turn(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([{"text": "Let me think about this for a long", "hang": True}])
    page = open_ui(pages(), web)
    send(page, "Think forever")
    page.get_by_test_id("msg-assistant").filter(has_text="Let me think").wait_for()
    wait_phase(page, "running")
    screenshot(page, "streaming")
    page.get_by_role("button", name="Stop").click()
    wait_phase(page, "canceled")
    assert page.get_by_test_id("run-notice").inner_text() == "Stopped."
    # The composer is a prompt box again.
    page.get_by_label("Prompt").wait_for()


def test_fork_from_a_user_message_puts_the_prompt_back(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([{"text": "First answer."}])
    page = open_ui(pages(), web)
    send(page, "first question")
    wait_phase(page, "completed")
    page.get_by_test_id("msg-assistant").filter(has_text="First answer.").wait_for()
    first_session = page.get_by_test_id("session-row").first.get_attribute("data-session-id")
    page.get_by_role("button", name="Fork from this message: first question").click()
    page.wait_for_function("() => document.querySelector('textarea')?.value === 'first question'")
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=session-row]').length === 2"
    )
    current = page.locator("[data-testid=session-row][aria-current=true]")
    assert current.get_attribute("data-session-id") != first_session
    assert page.get_by_test_id("msg-user").count() == 0
    screenshot(page, "fork-draft")


def test_reload_mid_run_shows_the_pending_approval_again(
    ggd_web: Start, pages: Pages, workspace: Path
) -> None:
    web = ggd_web([write_call("r.txt", "r\n"), {"text": "Reattached fine."}])
    page = open_ui(pages(), web)
    send(page, "Write r.txt")
    page.get_by_test_id("approval-card").wait_for()
    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    assert "write" in card.inner_text()
    screenshot(page, "reattached")
    card.get_by_role("button", name="Allow", exact=False).first.click()
    wait_phase(page, "completed")
    page.get_by_test_id("msg-assistant").filter(has_text="Reattached fine.").wait_for()
    assert (workspace / "r.txt").exists()


def test_two_pages_on_one_session_see_the_same_stream(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([write_call("both.txt", "b\n"), {"text": "Both windows saw this."}])
    a = open_ui(pages(), web)
    a.get_by_role("button", name="New session").click()
    row = a.get_by_test_id("session-row").first
    row.wait_for()
    session_id = row.get_attribute("data-session-id")
    b = open_ui(pages(), web)
    b.locator(f"[data-testid=session-row][data-session-id='{session_id}']").click()
    b.locator("[data-testid=session-row][aria-current=true]").wait_for()
    send(a, "Write both.txt")
    a.get_by_test_id("approval-card").wait_for()
    card_b = b.get_by_test_id("approval-card")
    card_b.wait_for()
    b.get_by_test_id("msg-user").filter(has_text="Write both.txt").wait_for()
    # The second window answers; the first sees the answer and the rest of the stream.
    card_b.press("s")
    for page in (a, b):
        wait_phase(page, "completed")
        page.get_by_test_id("msg-assistant").filter(has_text="Both windows saw this.").wait_for()
        assert page.get_by_test_id("approval-card").count() == 0
    screenshot(b, "second-window")


def test_wrong_token_shows_a_clear_error(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([])
    watch = pages(
        allow=[
            r"WebSocket connection to .* failed",
            r"Failed to load resource: the server responded with a status of 401",
        ]
    )
    page = watch.page
    page.goto(web.url.replace(f"#token={TOKEN}", "#token=wrong-token"))
    error = page.get_by_test_id("connect-error")
    error.wait_for()
    assert "refused the access token" in error.inner_text()
    screenshot(page, "wrong-token")
    # Pasting the right token connects.
    page.get_by_label("Access token").fill(TOKEN)
    page.get_by_role("button", name="Connect").click()
    page.wait_for_selector("[data-testid=connection][data-status=open]")


def test_keyboard_only_session_and_prompt(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([{"text": "Hello from the keyboard."}])
    page = open_ui(pages(), web)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to composer"
    focused = []
    for _ in range(12):
        page.keyboard.press("Tab")
        focused.append(
            page.evaluate(
                "document.activeElement.getAttribute('aria-label') || document.activeElement.textContent"
            )
        )
        if focused[-1] == "Prompt":
            break
    assert "Prompt" in focused, f"the prompt box is reachable by Tab: {json.dumps(focused)}"
    page.keyboard.type("hi")
    page.keyboard.press("Enter")
    wait_phase(page, "completed")
    page.get_by_test_id("msg-assistant").filter(has_text="Hello from the keyboard.").wait_for()
    # The model picked in the top bar is the one the run used.
    assert page.get_by_label("Model").input_value() == "openai:fake-model"
    assert web.model.requests[0]["model"] == "fake-model"


def test_model_error_fails_the_run_with_a_notice(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([{"status": 400, "errorBody": {"error": {"message": "bad request body"}}}])
    page = open_ui(pages(), web)
    send(page, "Break")
    wait_phase(page, "failed")
    notice = page.get_by_test_id("run-notice")
    assert notice.get_attribute("role") == "alert"
    assert notice.inner_text().startswith("The run failed:")
    screenshot(page, "failed")
    # The composer takes a new prompt.
    page.get_by_label("Prompt").wait_for()


def test_dropped_connection_resumes_the_run_from_the_last_sequence(
    ggd_web: Start, pages: Pages
) -> None:
    web = ggd_web([write_call("c.txt", "c\n"), {"text": "Resumed without repeats."}])
    watch = pages(allow=[r"WebSocket connection to .* failed"])
    page = watch.page
    sockets: list[tuple[Any, Any]] = []
    sent: list[dict[str, Any]] = []

    def proxy(ws: Any) -> None:
        # Pass frames through to ggd, recording what the page sends, so the test can cut the line.
        server = ws.connect_to_server()

        def upstream(message: str | bytes) -> None:
            if isinstance(message, str):
                sent.append(json.loads(message))
            server.send(message)

        ws.on_message(upstream)
        server.on_message(lambda message: ws.send(message))
        sockets.append((ws, server))

    page.route_web_socket("**/ws", proxy)
    open_ui(watch, web)
    send(page, "Write c.txt")
    page.get_by_test_id("approval-card").wait_for()
    ws, server = sockets[-1]
    ws.close(code=4000, reason="test drop")
    server.close()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    assert len(sockets) == 2
    page.get_by_test_id("approval-card").press("a")
    wait_phase(page, "completed")
    answer = page.get_by_test_id("msg-assistant").filter(has_text="Resumed without repeats.")
    assert answer.count() == 1
    assert answer.inner_text().count("Resumed without repeats.") == 1
    resubscribes = [
        m["params"]["afterSequence"]
        for m in sent
        if m.get("method") == "gg/run.subscribe" and m["params"].get("afterSequence", 0) > 0
    ]
    assert resubscribes, "after the reconnect the page resubscribes after its last sequence"


def test_sessions_search_rename_and_workspace_switch(
    ggd_web: Start, pages: Pages, tmp_path: Path
) -> None:
    web = ggd_web([])
    other = tmp_path / "other-project"
    other.mkdir()

    async def register() -> None:
        # A client that initializes with another root makes the daemon serve that workspace too.
        client = await web.daemon.connect("ws", root=other)
        await client.close()

    # Playwright's sync API owns this thread's event loop: talk to ggd from another thread.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, register()).result(timeout=30)
    page = open_ui(pages(), web)
    for name in ("alpha notes", "beta plan"):
        page.get_by_role("button", name="New session").click()
        page.get_by_role("button", name="Rename").click()
        page.get_by_label("Session name").fill(name)
        page.get_by_label("Session name").press("Enter")
        page.get_by_role("heading", name=name).wait_for()
        page.get_by_test_id("session-row").filter(has_text=name).wait_for()
    rows = page.get_by_test_id("session-row")
    assert rows.first.inner_text().startswith("beta plan"), "newest first"
    page.get_by_label("Search sessions").fill("alp")
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=session-row]').length === 1"
    )
    assert "alpha notes" in rows.first.inner_text()
    screenshot(page, "sessions")

    page.get_by_label("Search sessions").fill("")
    picker = page.get_by_label("Workspace")
    assert sorted(picker.locator("option").all_inner_texts()) == ["other-project", "project"]
    picker.select_option(label="other-project")
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.wait_for_function(
        "() => document.querySelector('select[aria-label=Workspace]').selectedOptions[0]?.text === 'other-project'"
    )
    page.get_by_text("No sessions yet.").wait_for()
    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.wait_for_function(
        "() => document.querySelector('select[aria-label=Workspace]').selectedOptions[0]?.text === 'other-project'"
    )


def test_demo_model_banner_and_daemon_tab(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([], demo=True)
    page = open_ui(pages(), web)
    banner = page.get_by_test_id("demo-banner")
    banner.wait_for()
    assert "Demo model" in banner.inner_text()
    tabs = page.get_by_role("tab").all_inner_texts()
    # Artifacts, Library and Jobs: the daemon advertises them; Knowledge is there before any index
    assert tabs == ["Chat", "Tree", "Artifacts", "Library", "Jobs", "Knowledge", "Daemon"]
    page.get_by_role("tab", name="Chat").press("ArrowRight")
    assert page.get_by_role("tab", name="Tree").get_attribute("aria-selected") == "true"
    page.get_by_role("tab", name="Daemon").click()
    panel = page.get_by_role("tabpanel")
    assert "sessions" in panel.inner_text()
    screenshot(page, "demo-daemon-tab")


def test_tree_checkout_and_clone(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([{"text": "First answer."}, {"text": "Second answer."}])
    page = open_ui(pages(), web)
    for prompt, answer in (
        ("first question", "First answer."),
        ("second question", "Second answer."),
    ):
        send(page, prompt)
        page.get_by_test_id("msg-assistant").filter(has_text=answer).wait_for()
        wait_phase(page, "completed")
    page.get_by_role("tab", name="Tree").click()
    nodes = page.get_by_test_id("tree-node")
    assert nodes.count() == 4
    screenshot(page, "tree")
    page.get_by_role("button", name="Check out user message: second question").click()
    # Checking out a user message moves the head to its parent and gives its text back.
    page.wait_for_function("() => document.querySelector('textarea')?.value === 'second question'")
    assert page.get_by_role("tab", name="Chat").get_attribute("aria-selected") == "true"
    assert page.get_by_test_id("msg-assistant").all_inner_texts()[-1].endswith("First answer.")
    assert page.get_by_test_id("msg-user").count() == 1
    page.get_by_role("tab", name="Tree").click()
    page.get_by_role("button", name="Clone session").click()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=session-row]').length === 2"
    )
    page.get_by_test_id("msg-user").filter(has_text="first question").wait_for()


def test_open_folder_serves_a_new_workspace_and_switches_to_it(
    ggd_web: Start, pages: Pages, tmp_path: Path
) -> None:
    other = tmp_path / "fresh-project"
    other.mkdir()
    web = ggd_web([])
    page = open_ui(pages(allow=["no such folder"]), web)
    page.get_by_role("button", name="Open folder…").click()
    page.get_by_label("Folder path").fill(str(tmp_path / "missing"))
    page.get_by_role("button", name="Open", exact=True).click()
    page.get_by_role("alert").filter(has_text="no such folder").wait_for()
    page.get_by_label("Folder path").fill(str(other))
    page.get_by_role("button", name="Open", exact=True).click()
    page.wait_for_function(
        "() => document.querySelector('select[aria-label=Workspace]').selectedOptions[0]?.text"
        " === 'fresh-project'"
    )
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    screenshot(page, "open-folder")
