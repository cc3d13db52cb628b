"""The browser through a real daemon and Debian's Chromium: approval, read, screenshot, and the
SSRF guard holding for subresources, scripts and redirects after the first URL was approved."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_openai import FakeModel

from .browser_server import Server
from .daemon import Daemon, daemon_env
from .runs_helpers import finish, new_session, start, until

pytestmark = pytest.mark.browser


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    private = Server({"/pixel.png": (200, {"Content-Type": "image/png"}, b"x")})
    base = f"http://127.0.0.1:{private.port}"
    page = (
        "<html><head><title>gg test page</title></head><body>"
        "<h1>Hello from the test page</h1>"
        f'<img src="{base}/pixel.png"><script>fetch("{base}/fetched").catch(() => 0)</script>'
        "</body></html>"
    ).encode()
    public = Server(
        {
            "/page.html": (200, {"Content-Type": "text/html"}, page),
            "/redirect": (302, {"Location": f"{base}/secret"}, b""),
        }
    )
    yield public, private
    public.close()
    private.close()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium is not installed")
async def test_navigate_read_screenshot_and_the_guard_after_approval(
    gg_home: Path, workspace: Path, tmp_path: Path, servers: tuple[Server, Server]
) -> None:
    public, private = servers
    page = f"http://127.0.0.1:{public.port}/page.html"
    script = [
        {"toolCalls": [{"id": "n1", "name": "browser_navigate", "arguments": {"url": page}}]},
        {
            "toolCalls": [
                {"id": "r1", "name": "browser_read", "arguments": {}},
                {"id": "s1", "name": "browser_screenshot", "arguments": {}},
            ]
        },
        {
            "toolCalls": [
                {
                    "id": "n2",
                    "name": "browser_navigate",
                    "arguments": {"url": f"http://127.0.0.1:{public.port}/redirect"},
                },
                {"id": "n3", "name": "browser_navigate", "arguments": {"url": "http://10.0.0.1/"}},
            ]
        },
        {"text": "done"},
    ]
    with FakeModel(script) as fm:
        env = daemon_env(
            gg_home,
            {
                "OPENAI_BASE_URL": fm.base_url,
                "OPENAI_API_KEY": "k",
                "GG_MODEL": "fake-model",
                "GG_BROWSER_TEST_ALLOW": f"127.0.0.1:{public.port}",
                "HOME": str(tmp_path),
            },
        )
        d = Daemon(gg_home, workspace, env).start()
        try:
            c = await d.connect("unix")
            assert "browser" in (await c.request("gg/system.info"))["capabilities"]
            sid = await new_session(c)
            run_id = await start(c, sid, "look at the page", interactive=True)
            ev = await until(c, run_id, "approval_requested")
            assert ev["approval"]["details"] == page  # the exact URL is shown
            await c.request(
                "gg/run.approve",
                {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True},
            )
            ev = await until(c, run_id, "approval_requested", after=ev["sequence"], timeout=60)
            assert ev["approval"]["details"].endswith("/redirect")
            await c.request(
                "gg/run.approve",
                {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True},
            )
            assert (await finish(c, run_id, timeout=60))["type"] == "run_completed"
            events = c.events(run_id=run_id)
            # 10.0.0.1 was refused before anyone was asked: exactly two approvals
            assert sum(e["type"] == "approval_requested" for e in events) == 2
            done = {e["toolCallId"]: e for e in events if e["type"] == "tool_call_finish"}
            assert not done["n1"]["isError"]
            assert "Hello from the test page" in done["r1"]["output"]
            assert "gg test page" in done["r1"]["output"]
            assert done["n2"]["isError"]  # the redirect to a private address was aborted
            assert done["n3"]["isError"] and "not a public address" in done["n3"]["output"]
            media_id = done["s1"]["details"]["mediaId"]
            media = await c.request("gg/media.get", {"mediaId": media_id})
            png = base64.b64decode(media["data"])
            assert media["mime"] == "image/png" and png.startswith(b"\x89PNG\r\n\x1a\n")
            assert len(png) > 1000
            assert "path" not in json.dumps(done["s1"]).lower()
            assert private.hits == []  # neither the image, the fetch nor the redirect got there
            assert "/page.html" in public.hits and "/redirect" in public.hits
            await c.close()
        finally:
            d.stop()
    shots = list((gg_home / "media").glob("*.png"))
    assert len(shots) == 1 and oct(shots[0].stat().st_mode & 0o777) == "0o600"


async def test_no_chromium_means_no_browser_tools_and_no_error(
    gg_home: Path, workspace: Path
) -> None:
    env = daemon_env(gg_home, {"GG_CHROMIUM": "/nonexistent/chromium"})
    d = Daemon(gg_home, workspace, env).start()
    try:
        c = await d.connect("unix")
        info = await c.request("gg/system.info")
        assert "browser" not in info["capabilities"]
        assert "browser" not in {p["name"] for p in info.get("degradedProviders") or []}
        await c.close()
    finally:
        d.stop()
    for line in d.logs().splitlines():
        if line.startswith("{"):
            assert json.loads(line).get("level") not in ("error", "ERROR", "critical"), line


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium is not installed")
def test_the_cli_reads_and_screenshots_a_page_and_refuses_private_ones(
    gg_home: Path, workspace: Path, tmp_path: Path, servers: tuple[Server, Server]
) -> None:
    import subprocess
    import sys

    public, private = servers
    page = f"http://127.0.0.1:{public.port}/page.html"
    env = daemon_env(
        gg_home, {"GG_BROWSER_TEST_ALLOW": f"127.0.0.1:{public.port}", "HOME": str(tmp_path)}
    )
    d = Daemon(gg_home, workspace, env).start()
    gg = str(Path(sys.executable).parent / "gg")
    try:
        run = lambda *a: subprocess.run(  # noqa: E731
            [gg, *a], capture_output=True, text=True, env=env, cwd=workspace, timeout=120
        )
        out = run("browser", "read", page)
        assert out.returncode == 0, out.stderr
        assert "gg test page" in out.stdout and "Hello from the test page" in out.stdout
        out = run("browser", "shot", page, "-o", "page.png")
        assert out.returncode == 0, out.stderr
        assert (workspace / "page.png").read_bytes().startswith(b"\x89PNG")
        out = run("browser", "read", "http://169.254.169.254/latest/meta-data/")
        assert out.returncode == 1 and "not a public address" in out.stderr
        assert "Traceback" not in out.stderr
        assert private.hits == []
    finally:
        d.stop()
