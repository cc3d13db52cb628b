"""The browser's process and its edges, through a real daemon and Debian's Chromium: Playwright's
driver and Chromium hold none of the daemon's secrets, a page that navigates itself reads cleanly,
a scheme-less address means http://, and a private origin opens only when config allows it."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_openai import FakeModel

from .browser_server import Server
from .daemon import Daemon, daemon_env
from .rpc_client import RpcError
from .runs_helpers import finish, finished_tools, new_session, start, until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium is not installed"),
]

SECRETS = {
    "OPENAI_API_KEY": "sk-test-SECRET-one",
    "GG_TELEGRAM_BOT_TOKEN": "123456:SECRET-two",
    "AWS_SECRET_ACCESS_KEY": "SECRET-three-aws",
}
HTML = {"Content-Type": "text/html"}


def _descendants(pid: int) -> list[int]:
    """Every live process below pid (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = [], [pid]
    while frontier:
        kids = [p for p, pp in parents.items() if pp in frontier]
        out += kids
        frontier = kids
    return out


def _read(pid: int, name: str) -> list[str]:
    try:
        return (Path("/proc") / str(pid) / name).read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def page_server() -> Iterator[Server]:
    s = Server(
        {
            "/page.html": (200, HTML, b"<title>t</title><body>Hello page</body>"),
            "/once.html": (
                200,
                HTML,
                b"<body>ONCE<script>location.replace('/landed.html')</script></body>",
            ),
            "/landed.html": (200, HTML, b"<title>landed</title><body>LANDED</body>"),
        },
        # every other path: a page that replaces itself as soon as it has loaded, forever
        fallback=(
            200,
            HTML,
            b"<body>LOOP<script>addEventListener('load',"
            b"()=>location.replace('/loop'+Math.random()))</script></body>",
        ),
    )
    yield s
    s.close()


async def test_the_driver_and_chromium_get_no_secret_and_chromium_goes_through_the_proxy(
    gg_home: Path, workspace: Path, tmp_path: Path, page_server: Server
) -> None:
    reached, release = page_server.gate("/slow.html")
    page_server.routes["/slow.html"] = (200, HTML, b"<body>slow page</body>")
    env = daemon_env(
        gg_home,
        {"GG_BROWSER_TEST_ALLOW": f"127.0.0.1:{page_server.port}", "HOME": str(tmp_path)},
    )
    env.update(SECRETS)
    d = Daemon(gg_home, workspace, env).start()
    assert d.proc is not None
    try:
        c = await d.connect("unix")
        read = asyncio.ensure_future(
            c.request("gg/browser.read", {"url": f"{page_server.origin}/slow.html"}, timeout=120)
        )
        assert await asyncio.to_thread(reached.wait, 60)  # Chromium is asking for the page
        procs = {
            pid: (_read(pid, "cmdline"), _read(pid, "environ")) for pid in _descendants(d.proc.pid)
        }
        release.set()
        assert "slow page" in (await read)["text"]
        await c.close()
    finally:
        release.set()
        d.stop()
    # the daemon's stop ends the worker, the driver and every Chromium process
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and [p for p in procs if _alive(p)]:
        time.sleep(0.1)
    assert [p for p in procs if _alive(p)] == []
    cmdlines = [" ".join(cmd) for cmd, _env in procs.values()]
    assert any("worker.py" in cmd for cmd in cmdlines), cmdlines
    assert any("run-driver" in cmd for cmd in cmdlines), cmdlines  # Playwright's Node driver
    browsers = [cmd for cmd in cmdlines if "--proxy-server=http://127.0.0.1:" in cmd]
    assert browsers and all("--proxy-bypass-list=<-loopback>" in cmd for cmd in browsers)
    # Chromium's sandbox runs unless we are root, where Chromium cannot run it
    assert all(("--no-sandbox" in cmd) == (os.geteuid() == 0) for cmd in browsers)
    for cmd, environ in procs.values():
        names = {item.split("=", 1)[0] for item in environ if "=" in item}
        assert not any(n.startswith(("OPENAI_", "GG_", "AWS_")) for n in names), (cmd[:2], names)
        assert not any(secret in " ".join(environ) for secret in SECRETS.values()), cmd[:2]


async def test_a_page_that_navigates_itself_is_read_or_refused_with_a_typed_error(
    gg_home: Path, workspace: Path, tmp_path: Path, page_server: Server
) -> None:
    env = daemon_env(
        gg_home,
        {"GG_BROWSER_TEST_ALLOW": f"127.0.0.1:{page_server.port}", "HOME": str(tmp_path)},
    )
    d = Daemon(gg_home, workspace, env).start()
    try:
        c = await d.connect("unix")
        once = await c.request(
            "gg/browser.read", {"url": f"{page_server.origin}/once.html"}, timeout=120
        )
        assert once["text"] == "LANDED" and once["url"].endswith("/landed.html")
        for _ in range(3):  # a page replacing itself forever: its text, or a clear error
            try:
                got = await c.request(
                    "gg/browser.read", {"url": f"{page_server.origin}/loop"}, timeout=120
                )
                assert got["text"] == "LOOP"
            except RpcError as exc:
                assert exc.code == -32007 and "kept navigating" in exc.message, exc.message
        await c.close()
    finally:
        d.stop()


def _gg(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    gg = str(Path(sys.executable).parent / "gg")
    return subprocess.run(
        [gg, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def test_the_cli_takes_a_scheme_less_address_and_explains_a_private_refusal(
    gg_home: Path, workspace: Path, tmp_path: Path, page_server: Server
) -> None:
    dev = Server({"/": (200, HTML, b"<title>dev</title><body>DEV SERVER</body>")})
    page_server.routes["/to-dev"] = (302, {"Location": f"{dev.origin}/"}, b"")
    env = daemon_env(
        gg_home,
        {"GG_BROWSER_TEST_ALLOW": f"127.0.0.1:{page_server.port}", "HOME": str(tmp_path)},
    )
    d = Daemon(gg_home, workspace, env).start()
    try:
        out = _gg(env, workspace, "browser", "read", f"127.0.0.1:{page_server.port}/page.html")
        assert out.returncode == 0 and "Hello page" in out.stdout, out.stderr
        out = _gg(env, workspace, "browser", "read", f"127.0.0.1:{dev.port}")
        assert out.returncode == 1 and "Traceback" not in out.stderr
        assert "SSRF guard" in out.stderr and "on purpose" in out.stderr, out.stderr
        assert f'"http://127.0.0.1:{dev.port}"' in out.stderr
        assert "browser.allowPrivateOrigins" in out.stderr
    finally:
        d.stop()
    assert dev.hits == []
    # the user allows their dev server, by exact origin, in config.json
    config = gg_home / "config.json"
    config.write_text(
        json.dumps({"browser": {"allowPrivateOrigins": [f"http://127.0.0.1:{dev.port}"]}})
    )
    config.chmod(0o600)
    d = Daemon(gg_home, workspace, env).start()
    try:
        out = _gg(env, workspace, "browser", "read", f"127.0.0.1:{dev.port}")
        assert out.returncode == 0 and "DEV SERVER" in out.stdout, out.stderr
        seen = list(dev.hits)
        assert "/" in seen
        # ...which a public page still cannot reach, nor another port on the same host
        out = _gg(env, workspace, "browser", "read", f"{page_server.origin}/to-dev")
        assert out.returncode == 1 and "SSRF guard" in out.stderr, out.stderr
        out = _gg(env, workspace, "browser", "read", f"127.0.0.1:{dev.port + 1}")
        assert out.returncode == 1 and "SSRF guard" in out.stderr, out.stderr
        assert dev.hits == seen
    finally:
        d.stop()
        dev.close()


async def test_the_agent_opens_an_allowed_private_origin_only_after_a_dangerous_approval(
    gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    dev = Server({"/": (200, HTML, b"<title>dev</title><body>DEV SERVER</body>")})
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(
        json.dumps({"browser": {"allowPrivateOrigins": [f"http://127.0.0.1:{dev.port}"]}})
    )
    script = [
        {
            "toolCalls": [
                {
                    "id": "n1",
                    "name": "browser_navigate",
                    "arguments": {"url": f"127.0.0.1:{dev.port}"},
                }
            ]
        },
        {"toolCalls": [{"id": "r1", "name": "browser_read", "arguments": {}}]},
        {"text": "done"},
    ]
    try:
        with FakeModel(script) as fm:
            env = daemon_env(
                gg_home,
                {
                    "OPENAI_BASE_URL": fm.base_url,
                    "OPENAI_API_KEY": "k",
                    "GG_MODEL": "fake-model",
                    "HOME": str(tmp_path),
                },
            )
            d = Daemon(gg_home, workspace, env).start()
            try:
                c = await d.connect("unix")
                sid = await new_session(c)
                run_id = await start(
                    c, sid, "open my dev server", interactive=True, approvalMode="yolo"
                )
                ev = await until(c, run_id, "approval_requested", timeout=60)
                assert ev["approval"]["risk"] == "dangerous"  # asked even in yolo
                assert dev.hits == []
                await c.request(
                    "gg/run.approve",
                    {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True},
                )
                assert (await finish(c, run_id, timeout=120))["type"] == "run_completed"
                done = finished_tools(c, run_id)
                await c.close()
            finally:
                d.stop()
    finally:
        dev.close()
    assert "DEV SERVER" in done["r1"]["output"]


async def test_a_crashed_chromium_is_started_afresh_on_the_next_call(page_server: Server) -> None:
    import contextlib
    import signal

    from ggd.capabilities.browser.session import BrowserError, BrowserSession
    from ggd.capabilities.browser.ssrf import Guard

    guard = Guard(allow=frozenset({("127.0.0.1", page_server.port)}))
    async with contextlib.AsyncExitStack() as stack:
        session = BrowserSession(str(shutil.which("chromium")), guard, 30, stack)
        assert (await session.navigate(f"{page_server.origin}/page.html"))[0] == 200
        browsers = [
            pid
            for pid in _descendants(os.getpid())
            if "--proxy-server=" in " ".join(_read(pid, "cmdline"))
            and "--type=" not in " ".join(_read(pid, "cmdline"))
        ]
        assert len(browsers) == 1
        os.kill(browsers[0], signal.SIGKILL)
        with contextlib.suppress(BrowserError):  # the call in flight when it died may fail
            await session.read(100)
        assert (await session.navigate(f"{page_server.origin}/page.html"))[0] == 200
        assert (await session.read(100)).text == "Hello page"
