"""Cost and reasoning in the web UI (Debian Chromium, a real ggd, the scripted model).

The model reasons before it answers and reports OpenAI's cached-token details; config.json
prices it (input $2, cached input $0.50, output $8 per million tokens): 200 fresh + 800 cached
input tokens and 100 output tokens cost $0.0016.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, send, wait_phase

pytestmark = pytest.mark.browser

PRICES = {"openai:fake-model": {"input": 2, "cachedInput": 0.5, "output": 8}}
STEP = {
    "thinking": "The user wants the answer; it is 42.",
    "text": "The answer is 42.",
    "usage": {"prompt": 1000, "completion": 100, "cached": 800},
}


def test_cost_in_the_meter_and_reasoning_collapsed_live_and_after_reload(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], gg_home: Path
) -> None:
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(json.dumps({"prices": PRICES}))
    web = ggd_web([STEP])
    page = open_ui(pages(), web)
    send(page, "What is the answer?")
    wait_phase(page, "completed")
    answer = page.get_by_test_id("msg-assistant").filter(has_text="The answer is 42.")
    answer.wait_for()
    thinking = answer.get_by_test_id("thinking")
    assert thinking.evaluate("d => d.open") is False  # collapsed until asked for
    assert "it is 42" not in answer.locator(".msg-body").inner_text()  # never answer text
    assert page.get_by_test_id("usage-cost").inner_text() == "$0.0016"
    assert page.get_by_test_id("usage-session-cost").inner_text() == "session $0.0016"
    assert "800 cached" in page.get_by_test_id("usage-tokens").inner_text()
    screenshot(page, "cost-and-thinking")

    page.reload()
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    answer = page.get_by_test_id("msg-assistant").filter(has_text="The answer is 42.")
    answer.wait_for()
    thinking = answer.get_by_test_id("thinking")
    assert thinking.evaluate("d => d.open") is False
    page.get_by_test_id("usage-session-cost").filter(has_text="session $0.0016").wait_for()
    thinking.locator("summary").click()
    assert "The user wants the answer; it is 42." in thinking.locator("pre").inner_text()
    screenshot(page, "thinking-after-reload")


def test_a_budget_stop_is_said_with_its_reason(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], gg_home: Path
) -> None:
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = {"prices": PRICES, "budget": {"run": {"maxCostUsd": 0.001}}}
    (gg_home / "config.json").write_text(json.dumps(config))
    read = {"toolCalls": [{"name": "read", "arguments": {"path": "x.txt"}}]}
    web = ggd_web([{**read, "usage": STEP["usage"]}, {"text": "never asked for"}])
    page = open_ui(pages(), web)
    send(page, "Read x.txt")
    wait_phase(page, "failed")
    notice = page.get_by_test_id("run-notice").inner_text()
    assert notice.startswith("Stopped at its budget: run budget reached: $0.0016 of maxCostUsd")
    assert '"budget": {"run"' in notice
    assert page.get_by_test_id("usage-cost").inner_text() == "$0.0016"
    assert len(web.model.requests) == 1
    screenshot(page, "budget-stop")
