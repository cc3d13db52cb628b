"""What a first-time user noticed in the web UI (issue 11), in Chromium against a real ggd.

Queued steers shown until the model takes them, the tree drawn as a graph with one head, one
session name in the header and the list, a lost daemon disabling the composer, highlighted code
with a copy button, and an overwrite approval showing a diff. Screenshots: tests/.artifacts/web/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ..daemon import Daemon
from .conftest import WebDaemon, screenshot
from .test_web_ui import Pages, Start, open_ui, send, wait_phase, write_call

pytestmark = pytest.mark.browser


def header_name(page: Any) -> str:
    """The session name in the header."""
    return str(page.locator(".session-title h1").inner_text())


def current_row_name(page: Any) -> str:
    """The name of the highlighted session in the list."""
    row = page.locator("[data-testid=session-row][aria-current=true] .session-name")
    return str(row.inner_text())


def wait_names_agree(page: Any, name: str) -> None:
    """Wait until the header and the current list row both show `name`."""
    page.wait_for_function(
        """name => document.querySelector('.session-title h1')?.textContent === name &&
        document.querySelector('[data-testid=session-row][aria-current=true] .session-name')
            ?.textContent === name""",
        arg=name,
    )


def test_queued_steer_and_follow_up_show_until_the_model_takes_them(
    ggd_web: Start, pages: Pages
) -> None:
    web = ggd_web([write_call("s.txt", "s\n"), {"text": "Steered."}, {"text": "Followed up."}])
    page = open_ui(pages(), web)
    send(page, "Write s.txt")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    box = page.get_by_label("Steer message")
    box.fill("use tabs")
    box.press("Enter")
    box.fill("then summarise")
    page.get_by_role("button", name="Queue follow-up").click()
    queued = page.get_by_label("Queued messages")
    steer = queued.locator(".queued-pill.steer")
    follow = queued.locator(".queued-pill.follow-up")
    assert steer.inner_text().split("\n") == ["Steer queued", "use tabs"] or (
        "Steer queued" in steer.inner_text() and "use tabs" in steer.inner_text()
    )
    assert "then summarise" in follow.inner_text()
    screenshot(page, "newcomer-steer-queued")
    card.get_by_role("button", name="Allow", exact=False).first.click()
    # The model takes the steer at its next request: its pill goes, the follow-up waits its turn.
    page.get_by_test_id("msg-user").filter(has_text="use tabs").wait_for()
    wait_phase(page, "completed")
    page.get_by_test_id("msg-assistant").filter(has_text="Followed up.").wait_for()
    assert page.get_by_label("Queued messages").count() == 0
    web.model.wait_for_requests(3)
    assert web.model.requests[1]["messages"][-1]["content"] == "use tabs"


def test_tree_graph_with_a_branch_one_head_and_one_name_everywhere(
    ggd_web: Start, pages: Pages
) -> None:
    answers = [{"text": f"answer {i}"} for i in range(1, 5)] + [{"text": "branch answer"}]
    web = ggd_web(answers)
    page = open_ui(pages(), web)
    for i in range(1, 5):
        send(page, f"question {i}")
        page.get_by_test_id("msg-assistant").filter(has_text=f"answer {i}").wait_for()
        wait_phase(page, "completed")
    wait_names_agree(page, "question 1")
    page.get_by_role("tab", name="Tree").click()
    # A linear chat: question 1, one folded run (answer 1 .. question 4), answer 4 (the head).
    assert page.get_by_test_id("tree-node").count() == 2
    assert page.get_by_test_id("tree-run").inner_text().strip() == "⋯ 6 messages"
    page.get_by_role("button", name="Show 6 more messages").click()
    page.get_by_role("button", name="Check out user message: question 4").click()
    page.wait_for_function("() => document.querySelector('textarea')?.value === 'question 4'")
    page.get_by_label("Prompt").fill("another way")
    page.get_by_label("Prompt").press("Enter")
    page.get_by_test_id("msg-assistant").filter(has_text="branch answer").wait_for()
    wait_phase(page, "completed")
    # The name stays the session's first prompt after a checkout, in the header and the list.
    wait_names_agree(page, "question 1")

    page.get_by_role("tab", name="Tree").click()
    nodes = page.get_by_test_id("tree-node")
    lanes = nodes.evaluate_all(
        "ns => ns.map(n => [n.dataset.lane, n.querySelector('.tree-text').textContent])"
    )
    assert lanes == [
        ["0", "question 1"],
        ["0", "answer 3"],
        ["0", "question 4"],
        ["0", "answer 4"],
        ["1", "another way"],
        ["1", "branch answer"],
    ]
    heads = page.locator("[data-testid=tree-node][data-head=true]")
    assert heads.count() == 1 and "branch answer" in heads.inner_text()
    assert page.get_by_text("head", exact=True).count() == 1
    # The branch curves out of answer 3 and its rail passes question 4 and answer 4.
    split = nodes.nth(1)
    assert split.locator("svg path").count() == 1
    assert nodes.nth(3).locator("svg line").count() >= 2
    screenshot(page, "newcomer-tree-graph")
    assert page.get_by_test_id("tree-run").inner_text().strip() == "⋯ 4 messages"
    page.get_by_role("button", name="Show 4 more messages").click()
    assert nodes.count() == 10
    page.get_by_role("button", name="Switch to dark theme").click()
    screenshot(page, "newcomer-tree-expanded-dark")

    # A fork gets its own name and says which session it made.
    page.get_by_role("button", name="Fork at assistant message: answer 4").click()
    notice = page.get_by_test_id("session-notice")
    notice.wait_for()
    wait_names_agree(page, "question 1 (fork)")
    fork_id = page.locator("[data-testid=session-row][aria-current=true]").get_attribute(
        "data-session-id"
    )
    assert fork_id and fork_id in notice.inner_text()
    assert "question 1 (fork)" in notice.inner_text()
    page.get_by_role("tab", name="Tree").click()
    page.get_by_role("button", name="Clone session").click()
    wait_names_agree(page, "question 1 (clone)")
    names = page.locator("[data-testid=session-row] .session-name").all_inner_texts()
    assert sorted(names) == ["question 1", "question 1 (clone)", "question 1 (fork)"]
    screenshot(page, "newcomer-fork-names")


def test_a_killed_daemon_disables_the_composer_until_it_is_back(
    ggd_web: Start, pages: Pages, gg_home: Path, workspace: Path
) -> None:
    web = ggd_web([{"text": "Before the crash."}, {"text": "After the restart."}])
    watch = pages(
        allow=[
            r"WebSocket connection to .* failed",
            r"Failed to load resource: net::ERR_CONNECTION_REFUSED",
        ]
    )
    page = open_ui(watch, web)
    send(page, "hello")
    wait_phase(page, "completed")
    page.get_by_label("Prompt").fill("typed while it was down")
    port = urlsplit(web.daemon.http_url).port
    web.daemon.stop(sig=9)
    banner = page.get_by_test_id("offline-banner")
    banner.wait_for()
    assert banner.get_attribute("role") == "alert"
    assert "Connection to gg lost" in banner.inner_text()
    box = page.locator("textarea")
    assert box.is_disabled()
    assert box.input_value() == "typed while it was down"
    assert page.get_by_role("button", name="Send").is_disabled()
    screenshot(page, "newcomer-offline")

    again = Daemon(gg_home, workspace, web.daemon.env, args=["--ws", f"127.0.0.1:{port}"])
    again.start()
    try:
        page.wait_for_selector("[data-testid=connection][data-status=open]", timeout=30_000)
        assert page.get_by_test_id("offline-banner").count() == 0
        assert box.is_enabled()
        box.press("Enter")
        page.get_by_test_id("msg-assistant").filter(has_text="After the restart.").wait_for()
        wait_phase(page, "completed")
    finally:
        again.stop()


def test_code_blocks_are_highlighted_labelled_and_copied_and_tables_have_borders(
    ggd_web: Start, pages: Pages
) -> None:
    answer = (
        "Here is the fix:\n\n```python\ndef add(a, b):\n    return a + b  # sum\n```\n\n"
        "| name | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n"
    )
    web = ggd_web([{"text": answer}])
    watch = pages()
    watch.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = open_ui(watch, web)
    send(page, "Show me code")
    wait_phase(page, "completed")
    block = page.get_by_test_id("code-block")
    block.wait_for()
    assert block.locator(".code-lang").inner_text() == "python"
    block.locator(".hljs-keyword").first.wait_for()
    assert block.locator(".hljs-keyword").first.inner_text() == "def"
    assert block.locator(".hljs-comment").inner_text() == "# sum"
    copy = page.get_by_role("button", name="Copy python code")
    # "Copied" shows for 2 s: record every label the button takes, so a loaded machine's late
    # look cannot miss it.
    copy.evaluate(
        "b => { window.__labels = []; new MutationObserver(() => window.__labels.push("
        "b.textContent)).observe(b, {childList: true, characterData: true, subtree: true}); }"
    )
    copy.click()
    page.wait_for_function("() => window.__labels.includes('Copied')", timeout=15_000)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == "def add(a, b):\n    return a + b  # sum"
    cell = page.locator(".markdown td").first
    assert cell.evaluate("td => getComputedStyle(td).borderTopStyle") == "solid"
    screenshot(page, "newcomer-code-table")
    page.get_by_role("button", name="Switch to dark theme").click()
    screenshot(page, "newcomer-code-table-dark")


def test_overwrite_approval_shows_a_diff_and_tool_cards_name_the_tool_once(
    ggd_web: Start, pages: Pages, workspace: Path
) -> None:
    old = "".join(f"line {i}\n" for i in range(1, 41))
    (workspace / "notes.txt").write_text(old)
    new = old.replace("line 20\n", "line twenty\n")
    web = ggd_web(
        [
            write_call("notes.txt", new),
            {"toolCalls": [{"name": "bash", "arguments": {"command": "rm notes.bak"}}]},
            {"text": "Rewrote line 20."},
        ]
    )
    page = open_ui(pages(), web)
    send(page, "Fix line 20")
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    assert "notes.txt (overwrite)" in card.inner_text()
    assert card.locator(".diff-del").all_inner_texts() == ["-line 20\n"]
    assert card.locator(".diff-add").all_inner_texts() == ["+line twenty\n"]
    assert "line 1\n" not in card.inner_text(), "the diff shows context, not the whole file"
    screenshot(page, "newcomer-overwrite-diff")
    card.press("a")
    card = page.get_by_test_id("approval-card").filter(has_text="rm notes.bak")
    card.wait_for()
    assert card.inner_text().count("rm notes.bak") == 1, "the command is shown once"
    screenshot(page, "newcomer-bash-approval")
    card.press("d")
    wait_phase(page, "completed")
    assert (workspace / "notes.txt").read_text() == new
    write_card = page.get_by_test_id("tool-card").first
    assert write_card.locator(".tool-head").inner_text().split() == ["write", "notes.txt", "done"]
    assert write_card.locator(".diff-add").all_inner_texts() == ["+line twenty\n"]
    screenshot(page, "newcomer-tool-cards")
    # Forking at the message that asked for the write cuts off its result: "not run", no spinner.
    page.get_by_role("tab", name="Tree").click()
    page.get_by_role("button", name="Show 4 more messages").click()
    page.get_by_test_id("tree-node").filter(has_text="assistant").first.get_by_role(
        "button", name="Fork"
    ).click()
    page.get_by_test_id("session-notice").wait_for()
    card = page.get_by_test_id("tool-card")
    card.wait_for()
    assert card.count() == 1 and card.get_attribute("data-status") == "not run"
    assert card.locator(".spinner").count() == 0
    screenshot(page, "newcomer-fork-not-run")


_ = WebDaemon  # re-exported fixture type for readers of this module
