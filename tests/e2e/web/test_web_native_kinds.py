"""The web UI against each native wire kind (Anthropic, Responses, Gemini), in Chromium.

The UI speaks only gg's protocol, so nothing in it depends on the kind; this proves it: a real
ggd configured with `kind: "anthropic" | "openai-responses" | "gemini"` pointing at that API's
honest fake runs a read, a write the user denies, an answer, and a second turn the user stops.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_anthropic import FakeAnthropic
from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_responses import FakeResponses

from ..daemon import Daemon, daemon_env
from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui, send, wait_phase

pytestmark = pytest.mark.browser

KINDS: dict[str, type[Any]] = {
    "anthropic": FakeAnthropic,
    "openai-responses": FakeResponses,
    "gemini": FakeGemini,
}
SCRIPT = [
    {"toolCalls": [{"name": "read", "arguments": {"path": "calc.py"}}]},
    {"toolCalls": [{"name": "write", "arguments": {"path": "calc.py", "content": "oops\n"}}]},
    {"text": "The bug is in **add**: it subtracts. I left the file as it was."},
    {"text": "Looking at the tests for a long", "hang": True},
]


@pytest.fixture
def native_web(
    web_ui: Path, gg_home: Path, workspace: Path
) -> Iterator[Callable[[str], tuple[WebDaemon, Any]]]:
    started: list[WebDaemon] = []

    def start(kind: str) -> tuple[WebDaemon, Any]:
        fake = KINDS[kind](SCRIPT).start()
        gg_home.mkdir(mode=0o700, exist_ok=True)
        model = fake.models[0]
        config = {
            "model": f"native:{model}",
            "providers": {
                "native": {"kind": kind, "baseUrl": fake.base_url, "apiKey": "k", "models": [model]}
            },
        }
        (gg_home / "config.json").write_text(json.dumps(config))
        daemon = Daemon(gg_home, workspace, daemon_env(gg_home))
        try:
            daemon.start()
        except Exception:
            fake.stop()
            raise
        web = WebDaemon(daemon, fake)
        started.append(web)
        return web, fake

    yield start
    for web in started:
        web.daemon.stop()
        web.model.stop()


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_turn_with_a_denied_write_then_a_stop_through_each_kind(
    kind: str,
    native_web: Callable[[str], tuple[WebDaemon, Any]],
    pages: Callable[..., PageWatch],
    workspace: Path,
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    web, fake = native_web(kind)
    page = open_ui(pages(), web)
    send(page, "Find the bug in calc.py")
    card = page.get_by_test_id("approval-card").filter(has_text="calc.py")
    card.wait_for()
    card.get_by_role("button", name="Deny").click()
    wait_phase(page, "completed")
    answer = page.get_by_test_id("msg-assistant").last
    assert "it subtracts" in answer.inner_text()
    assert answer.locator("strong").inner_text() == "add"
    statuses = page.get_by_test_id("tool-card").evaluate_all(
        "cards => cards.map(c => c.dataset.status)"
    )
    assert statuses == ["done", "denied"]
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    screenshot(page, f"native-{kind}")
    # The file's text reached the model in that API's own tool-result shape.
    assert "return a - b" in json.dumps(fake.requests[1])
    send(page, "and the tests?")
    page.get_by_test_id("msg-assistant").filter(has_text="Looking at the tests").wait_for()
    page.get_by_role("button", name="Stop").click()
    wait_phase(page, "canceled")
    assert len(fake.requests) == 4
