"""The Artifacts and Library tabs in Debian Chromium against a real ggd and the scripted model.

A scripted run writes an artifact while the tab is open and it appears live, renders, diffs
between versions and publishes; an HTML artifact's script never runs (its side effects are
watched for: the frame's own DOM, the parent's title and messages, and hits on a local server);
files go into the library by drag and drop and come back by download.
"""

from __future__ import annotations

import asyncio
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ..rpc_client import RpcClient
from ..runs_helpers import finish, new_session, start, until
from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import Pages, Start, open_ui

pytestmark = pytest.mark.browser

NOTES_V1 = "# Release notes\n\n- **faster** start\n- fixed the login bug\n"
NOTES_V2 = "# Release notes\n\n- **faster** start\n- fixed the login bug\n- new dark theme\n"


def create_step(title: str, kind: str, content: str) -> dict[str, Any]:
    """A model step calling artifact_create."""
    args = {"title": title, "type": kind, "content": content}
    return {"toolCalls": [{"name": "artifact_create", "arguments": args}]}


async def run_and_approve(web: WebDaemon, prompt: str, tool: str) -> dict[str, Any]:
    """A second client runs a prompt, allows the one approval, and returns the session event."""
    c: RpcClient = await web.daemon.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, prompt, interactive=True)
        ask = await until(c, rid, "approval_requested")
        assert ask["approval"]["toolName"] == tool
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        event = await c.wait_for(
            "gg/session.event", lambda p: p["type"].startswith("artifact_"), 15
        )
        assert (await finish(c, rid))["type"] == "run_completed"
        return event
    finally:
        await c.close()


def in_thread(pool: ThreadPoolExecutor, coro: Any) -> Future[Any]:
    """Playwright's sync API owns this thread's loop: talk to ggd from another thread."""
    return pool.submit(asyncio.run, coro)


def open_tab(page: Any, name: str) -> None:
    """Click a view tab."""
    page.get_by_role("tab", name=name).click()


def test_an_artifact_appears_live_renders_diffs_and_publishes(
    ggd_web: Start, pages: Pages, gg_home: Path
) -> None:
    web = ggd_web([create_step("Release notes", "markdown", NOTES_V1), {"text": "Written."}])
    page = open_ui(pages(), web)
    open_tab(page, "Artifacts")
    page.get_by_text("No artifacts yet").wait_for()
    with ThreadPoolExecutor(1) as pool:
        created = in_thread(pool, run_and_approve(web, "write release notes", "artifact_create"))
        # Live: the row appears while the tab stays open (no reload, no click).
        page.get_by_test_id("artifact-row").filter(has_text="Release notes").wait_for()
        event = created.result(timeout=30)
    artifact_id = event["artifactId"]
    heading = page.get_by_test_id("artifact-heading")
    heading.wait_for()
    assert heading.inner_text() == "Release notes"
    body = page.get_by_test_id("artifact-body")
    assert body.locator("strong").inner_text() == "faster"  # markdown rendered
    assert page.get_by_test_id("artifact-state").inner_text() == "not published"
    screenshot(page, "artifact-v1")

    web.model.add_steps(
        [
            {
                "toolCalls": [
                    {
                        "name": "artifact_edit",
                        "arguments": {"artifactId": artifact_id, "content": NOTES_V2},
                    }
                ]
            },
            {"text": "Edited."},
        ]
    )
    with ThreadPoolExecutor(1) as pool:
        in_thread(pool, run_and_approve(web, "add the theme", "artifact_edit")).result(timeout=30)
    page.get_by_test_id("artifact-body").get_by_text("new dark theme").wait_for()
    page.get_by_test_id("artifact-compare").select_option("1")
    added = page.locator(".diff-add").filter(has_text="new dark theme")
    added.wait_for()
    assert page.locator(".diff-del").count() == 0
    screenshot(page, "artifact-diff")
    page.get_by_test_id("artifact-compare").select_option("")

    page.get_by_test_id("artifact-publish").click()
    notice = page.get_by_test_id("artifact-notice")
    notice.wait_for()
    assert "Published v2" in notice.inner_text() and "Release notes.md" in notice.inner_text()
    page.get_by_test_id("artifact-state").filter(has_text="published v2").wait_for()
    assert page.get_by_test_id("artifact-publish").count() == 0
    assert (gg_home / "library" / "Release notes.md").read_text() == NOTES_V2
    screenshot(page, "artifact-published")

    page.get_by_test_id("artifact-version").select_option("1")
    page.get_by_test_id("artifact-body").get_by_text("fixed the login bug").wait_for()
    assert "new dark theme" not in page.get_by_test_id("artifact-body").inner_text()


class HitCounter:
    """A 127.0.0.1 server that counts every request (what a running script would send)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        counter = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                counter.hits.append(self.path)
                self.send_response(204)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hits() -> Iterator[HitCounter]:
    """A running hit counter."""
    counter = HitCounter()
    yield counter
    counter.close()


def hostile_page(base: str) -> str:
    """HTML whose scripts would leave a mark everywhere they could."""
    return f"""<h1 id="status">static content</h1>
<p>The paragraph a reader sees.</p>
<script>
document.getElementById("status").textContent = "script ran";
try {{ parent.document.title = "pwned"; }} catch (e) {{}}
try {{ parent.postMessage("pwned", "*"); }} catch (e) {{}}
try {{ fetch("{base}/fetch"); }} catch (e) {{}}
try {{ new Image().src = "{base}/image"; }} catch (e) {{}}
</script>
<img alt="x" src="data:," onerror="fetch('{base}/onerror')">
<form action="{base}/form"><button id="go">go</button></form>
"""


def test_a_script_inside_an_html_artifact_does_not_run(
    ggd_web: Start, pages: Pages, hits: HitCounter
) -> None:
    web = ggd_web([create_step("Hostile page", "html", hostile_page(hits.url)), {"text": "ok"}])
    # Chromium reports what the sandbox and the CSP blocked: those errors are the point.
    watch: PageWatch = pages(allow=[r"Blocked script execution", r"Refused to", r"sandboxed"])
    page = watch.page
    page.add_init_script(
        "window.__messages = []; addEventListener('message', e => __messages.push(e.data));"
    )
    open_ui(watch, web)
    title = page.title()
    with ThreadPoolExecutor(1) as pool:
        in_thread(pool, run_and_approve(web, "write a page", "artifact_create")).result(timeout=30)
    open_tab(page, "Artifacts")
    frame_el = page.get_by_test_id("artifact-frame")
    frame_el.wait_for()
    assert frame_el.get_attribute("sandbox") == ""
    frame = page.frame_locator("[data-testid=artifact-frame]")
    frame.get_by_text("The paragraph a reader sees.").wait_for()  # it did render
    handle = frame_el.element_handle()
    inner = handle.content_frame()
    inner.wait_for_load_state("load")
    assert frame.locator("#status").inner_text() == "static content", "the script ran"
    # The parent page is untouched and heard nothing.
    assert page.title() == title
    assert page.evaluate("window.__messages") == []
    # A control request proves the counter works, and that the frame sent it nothing.
    with urllib.request.urlopen(f"{hits.url}/control", timeout=5) as resp:
        assert resp.status == 204
    assert hits.hits == ["/control"], hits.hits
    screenshot(page, "artifact-html-sandboxed")


def test_library_upload_by_drag_and_drop_and_download(
    ggd_web: Start, pages: Pages, gg_home: Path, tmp_path: Path
) -> None:
    web = ggd_web([])
    page = open_ui(pages(), web)
    open_tab(page, "Library")
    page.get_by_text("The library is empty.").wait_for()

    def drop(files: list[tuple[str, int | str]]) -> None:
        dt = page.evaluate_handle(
            """(files) => {
                const dt = new DataTransfer();
                for (const [name, body] of files) {
                  const data = typeof body === "number" ? new Uint8Array(body) : body;
                  dt.items.add(new File([data], name));
                }
                return dt;
            }""",
            files,
        )
        page.dispatch_event("[data-testid=library-drop]", "drop", {"dataTransfer": dt})

    drop([("Notes.txt", "dropped notes\n")])
    page.get_by_test_id("library-row").filter(has_text="Notes.txt").wait_for()
    drop([("notes.TXT", "second\n")])  # collides case-insensitively: a safe new name
    page.get_by_test_id("library-row").filter(has_text="notes (2).TXT").wait_for()
    assert "as notes (2).TXT" in page.get_by_test_id("library-notice").inner_text()
    drop([("huge.bin", 3 * 1024 * 1024)])
    error = page.get_by_test_id("library-error")
    error.wait_for()
    assert "at most 2 MiB" in error.inner_text()
    assert page.get_by_test_id("library-row").count() == 2
    assert not (gg_home / "library" / "huge.bin").exists()
    screenshot(page, "library")

    with page.expect_download() as info:
        page.get_by_role("button", name="Download Notes.txt").click()
    saved = tmp_path / "downloaded.txt"
    info.value.save_as(str(saved))
    assert saved.read_text() == "dropped notes\n"
    assert info.value.suggested_filename == "Notes.txt"

    page.get_by_role("button", name="Remove notes (2).TXT").click()
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=library-row]').length === 1"
    )
    assert not (gg_home / "library" / "notes (2).TXT").exists()
