"""A session whose answer is longer than one WebSocket fragment reopens whole in Chromium.

ggd sends a gg/session.open answer over 256 KiB as a fragmented text message (ggd/rpc/pieces.py,
ggd/transport/websocket.py); the browser reassembles it and the UI shows the whole session.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ggd.rpc.pieces import GROUP_BYTES

from .conftest import PageWatch, WebDaemon
from .test_web_ui import open_ui, send, wait_phase

pytestmark = pytest.mark.browser

PARAGRAPH = "A long answer keeps going, paragraph after paragraph, so the session grows. " * 6
LONG = "".join(f"Part {i}. {PARAGRAPH}\n\n" for i in range(1200)) + "The end of the long answer."


def test_a_session_longer_than_a_fragment_reopens_whole_after_a_reload(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch]
) -> None:
    assert len(LONG.encode()) > 2 * GROUP_BYTES  # the reopened answer takes several fragments
    web = ggd_web([{"text": LONG, "chunkSize": 100_000}])
    page = open_ui(pages(), web)
    send(page, "write at length")
    wait_phase(page, "completed")
    answer = page.get_by_test_id("msg-assistant")
    answer.filter(has_text="The end of the long answer.").wait_for()
    page.reload()  # the UI reopens its saved session: one gg/session.open answer of ~0.6 MB
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    answer.filter(has_text="The end of the long answer.").wait_for(timeout=30_000)
    assert answer.filter(has_text="Part 0. A long answer").count() == 1
    page.get_by_label("Prompt").wait_for()  # the page still works after it
