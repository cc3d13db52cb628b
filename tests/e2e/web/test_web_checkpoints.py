"""The Tree tab's workspace files, in Chromium against a real ggd and real files: a turn's
diff, undo with its preview, "Restore files to here" with a conflict that must be confirmed, and
the notice every page shows after a restore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import screenshot
from .test_web_ui import Pages, Start, open_ui, send, wait_phase, write_call

pytestmark = pytest.mark.browser


def test_diff_undo_and_restore_files_to_here(
    ggd_web: Start, pages: Pages, gg_home: Path, workspace: Path
) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(json.dumps({"approvalMode": "yolo"}))
    bash = {"toolCalls": [{"name": "bash", "arguments": {"command": "echo todo > notes.txt"}}]}
    web = ggd_web(
        [
            write_call("app.py", "print('v1')\n"),
            {"text": "first done"},
            write_call("app.py", "print('v2')\n"),
            bash,
            {"text": "second done"},
        ]
    )
    page = open_ui(pages(), web)
    other = open_ui(pages(), web)  # a second page on the same session sees the restore
    page.get_by_label("Approval mode").select_option(
        "yolo"
    )  # the page's mode wins over the daemon's
    send(page, "make app")
    page.get_by_test_id("msg-assistant").filter(has_text="first done").wait_for()
    wait_phase(page, "completed")
    send(page, "change app")
    page.get_by_test_id("msg-assistant").filter(has_text="second done").wait_for()
    wait_phase(page, "completed")
    assert (workspace / "app.py").read_text() == "print('v2')\n"
    other.get_by_role("button", name="make app").first.click()  # open the session there too

    page.get_by_role("tab", name="Tree").click()
    page.get_by_role("button", name="Last turn's changes").click()
    preview = page.get_by_test_id("files-preview")
    preview.wait_for()
    files = preview.locator(".checkpoints-files li").evaluate_all(
        "ls => ls.map(l => l.dataset.status + ' ' + l.querySelector('.path').textContent)"
    )
    assert files == ["modified app.py", "added notes.txt"]
    assert "+print('v2')" in preview.locator(".diff").inner_text()
    screenshot(page, "checkpoints-turn-diff")

    page.get_by_role("button", name="Undo files").click()
    page.get_by_role("button", name="Undo", exact=True).wait_for()
    assert "would change" in preview.inner_text()
    assert (workspace / "app.py").read_text() == "print('v2')\n"  # a preview changes nothing
    screenshot(page, "checkpoints-undo-preview")
    page.get_by_role("button", name="Undo", exact=True).click()
    preview.wait_for(state="detached")
    assert (workspace / "app.py").read_text() == "print('v1')\n"
    assert not (workspace / "notes.txt").exists()
    notice = other.get_by_test_id("session-notice")
    notice.wait_for()
    assert "undo done: 2 files changed" in notice.inner_text()

    # Changed outside gg: restoring needs the box ticked.
    (workspace / "app.py").write_text("print('mine')\n")
    page.get_by_role("button", name="Restore files to user message: make app").click()
    preview.wait_for()
    restore = page.get_by_role("button", name="Restore files to here")
    assert preview.locator(".conflict-badge").count() == 1
    assert restore.is_disabled()
    screenshot(page, "checkpoints-restore-conflict")
    page.get_by_label("Overwrite 1 file changed outside gg").check()
    restore.click()
    preview.wait_for(state="detached")
    assert not (workspace / "app.py").exists()  # before the first turn there was no app.py
    page.get_by_role("tab", name="Chat").click()
    page.wait_for_function("() => document.querySelector('textarea')?.value === 'make app'")
    screenshot(page, "checkpoints-restored")
