"""The Jobs view in Debian Chromium: a job added with the real `gg` CLI shows up, "Run now"
fires it, and the run log opens the run's session in the conversation view."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import open_ui

pytestmark = pytest.mark.browser

GG = str(Path(sys.executable).parent / "gg")


def test_cli_job_appears_and_run_now_produces_a_session(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], workspace: Path
) -> None:
    web = ggd_web([{"text": "Scheduled check: **all green**."}])
    added = subprocess.run(
        [GG, "job", "add", "--cron", "30 2 * * *", "--name", "nightly-check",
         "--timezone", "Europe/Berlin", "check the build"],
        env=web.daemon.env, cwd=workspace, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    page = open_ui(pages(), web)
    page.get_by_role("tab", name="Jobs").click()
    row = page.locator("[data-testid=job-row][data-name=nightly-check]")
    row.wait_for()
    assert "cron 30 2 * * *" in row.inner_text() and "Europe/Berlin" in row.inner_text()
    assert "02:30" in row.get_by_test_id("job-next").inner_text()
    assert row.get_by_test_id("job-last").get_attribute("data-status") == "never"
    screenshot(page, "jobs-view")
    row.get_by_test_id("job-run-now").click()
    done = page.locator("[data-testid=run-row][data-status=ok]")
    done.wait_for()
    assert "Scheduled check: **all green**." in done.inner_text()
    page.wait_for_selector("[data-testid=job-last][data-status=ok]")
    # The firing's session joins the session list without a reload.
    page.locator("[data-testid=session-row]").filter(has_text="scheduler/nightly-check-").wait_for()
    screenshot(page, "jobs-run-log")
    done.get_by_test_id("open-session").click()
    page.get_by_role("tab", name="Chat", selected=True).wait_for()
    answer = page.get_by_test_id("msg-assistant").last
    answer.wait_for()
    assert "all green" in answer.inner_text()
    title = page.locator(".session-title h1, .session-title button").first.inner_text()
    assert title.startswith("scheduler/nightly-check-"), title
    screenshot(page, "jobs-opened-session")
    # Pause from the view: the CLI sees it.
    page.get_by_role("tab", name="Jobs").click()
    row.get_by_test_id("job-toggle").click()
    page.wait_for_selector("[data-testid=job-row][data-enabled=false]")
    listed = subprocess.run(
        [GG, "job", "list"], env=web.daemon.env, cwd=workspace, capture_output=True, text=True,
        timeout=30,
    )  # fmt: skip
    assert "nightly-check (paused)" in listed.stdout
