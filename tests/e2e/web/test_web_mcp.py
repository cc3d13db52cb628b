"""The web UI's MCP section (Daemon tab) in Debian Chromium against a real ggd and real servers."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import PageWatch, WebDaemon, screenshot

pytestmark = pytest.mark.browser

TIME = Path(sys.executable).parent / "mcp-server-time"


def test_daemon_tab_lists_and_tests_mcp_servers(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], gg_home: Path
) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    servers = {"time": {"command": str(TIME)}, "bad": {"command": "gg-no-such-mcp-server"}}
    (gg_home / "mcp.json").write_text(json.dumps({"servers": servers}))
    web = ggd_web([])
    page = pages().page
    page.goto(web.url)
    page.wait_for_selector("[data-testid=connection][data-status=open]")
    page.get_by_role("tab", name="Daemon").click()
    section = page.get_by_role("region", name="MCP")
    section.get_by_text("time", exact=True).wait_for()
    assert "idle" in section.inner_text() and "bad" in section.inner_text()
    time_row = section.locator("li[data-state]", has_text="time")
    time_row.get_by_role("button", name="Test").click()
    time_row.get_by_text("ok in", exact=False).wait_for(timeout=60_000)
    assert "2 tools" in time_row.inner_text()
    bad_row = section.locator("li[data-state]", has_text="bad")
    bad_row.get_by_role("button", name="Test").click()
    bad_row.get_by_text("failed: command not found", exact=False).wait_for(timeout=30_000)
    screenshot(page, "daemon-tab-mcp")
