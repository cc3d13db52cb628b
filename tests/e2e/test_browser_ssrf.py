"""The SSRF guard against redirects, through a real daemon and Debian's Chromium.

An allowed (test-public) origin answers 301/302/307/308 with Location forms that Python's urljoin
and a browser's WHATWG parser read differently (`/\\127.0.0.1:C/x` is a path to one, a host to the
other), and with chains through a second allowed origin. The private target is a loopback server
that records every hit: it must see none, whether the redirect is the page itself, an iframe, an
image or a synchronous XHR, through gg/browser.read (no approval) or the agent after one approval.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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

SECRET = b"PRIVATE-SECRET-7431"
# Location values, {C} the private port: the forms first, then plainer ones.
FORMS = [
    "/\\127.0.0.1:{C}/x",
    "\\\\127.0.0.1:{C}\\x",
    "\\/127.0.0.1:{C}/x",
    "http:\\\\127.0.0.1:{C}/x",
    "http:/\\127.0.0.1:{C}/x",
    "///127.0.0.1:{C}/x",
    "http:////127.0.0.1:{C}/x",
    "//127.0.0.1:{C}/x",
    "http://127.0.0.1:{C}/x",
    "http://localhost:{C}/x",
    "http://127.1:{C}/x",
    "http://2130706433:{C}/x",
    "http://0x7f.0.0.1:{C}/x",
    "HTTP://127.0.0.1:{C}/x",
    " http://127.0.0.1:{C}/x",
    "http://127.0.0.1:{C}\\x",
    "/\\/127.0.0.1:{C}/x",
    "ws://127.0.0.1:{C}/x",
]
STATUSES = (301, 302, 307, 308)


def _routes(private: int, b_origin: str) -> dict[str, Any]:
    """Allowed origin A: /r/S/I redirects with FORMS[I] and status S; /chain/I goes A -> A -> B."""
    routes: dict[str, Any] = {}
    frames = []
    for i, form in enumerate(FORMS):
        location = form.format(C=private)
        for status in STATUSES:
            routes[f"/r/{status}/{i}"] = (status, {"Location": location}, b"")
            frames.append(f"/r/{status}/{i}")
        routes[f"/chain/{i}"] = (302, {"Location": f"/chain2/{i}"}, b"")
        routes[f"/chain2/{i}"] = (307, {"Location": f"{b_origin}/hop/{i}"}, b"")
        frames.append(f"/chain/{i}")
    tags = "".join(
        f'<iframe src="{f}"></iframe><img src="{f}">'
        f"<script>try{{var x=new XMLHttpRequest();x.open('GET','{f}',false);x.send()}}"
        "catch(e){}</script>"
        for f in frames
    )
    all_page = f"<html><head><title>all</title></head><body>ALL-LOADED{tags}</body></html>"
    routes["/all.html"] = (200, {"Content-Type": "text/html"}, all_page.encode())
    # After load the page navigates itself to a backslash form (no approval for that one).
    js = f"<title>js</title><body>JS<script>location.href='/\\\\127.0.0.1:{private}/js'</script>"
    routes["/js.html"] = (200, {"Content-Type": "text/html"}, js.encode())
    return routes


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server, Server]]:
    private = Server({}, fallback=(200, {"Content-Type": "text/html"}, SECRET))
    b = Server({})
    a = Server(_routes(private.port, b.origin))
    # B: the second hop of each chain, redirecting (relative to B) to the private target
    b.routes.update(
        {
            f"/hop/{i}": (302, {"Location": form.format(C=private.port)}, b"")
            for i, form in enumerate(FORMS)
        }
    )
    yield a, b, private
    for s in (a, b, private):
        s.close()


def _env(gg_home: Path, tmp_path: Path, a: Server, b: Server, **extra: str) -> dict[str, str]:
    return daemon_env(
        gg_home,
        {
            "GG_BROWSER_TEST_ALLOW": f"127.0.0.1:{a.port},127.0.0.1:{b.port}",
            "HOME": str(tmp_path),
            **extra,
        },
    )


async def test_no_redirect_form_or_chain_reaches_a_private_target_through_browser_read(
    gg_home: Path, workspace: Path, tmp_path: Path, servers: tuple[Server, Server, Server]
) -> None:
    a, b, private = servers
    d = Daemon(gg_home, workspace, _env(gg_home, tmp_path, a, b)).start()
    try:
        c = await d.connect("unix")
        # one page loads every form x status and every chain as iframe, image and sync XHR
        page = await c.request("gg/browser.read", {"url": f"{a.origin}/all.html"}, timeout=120)
        assert "ALL-LOADED" in page["text"] and SECRET.decode() not in page["text"]
        # the page itself redirecting: the forms with 302, backslash with 308, chains
        tops = [f"/r/302/{i}" for i in range(7)] + ["/r/308/0", "/r/301/1", "/chain/0", "/chain/3"]
        for path in tops:
            try:
                got = await c.request("gg/browser.read", {"url": a.origin + path}, timeout=120)
            except RpcError as exc:
                assert exc.code == -32007 and "SSRF guard" in exc.message, (path, exc.message)
                assert "not a public address" in exc.message
            else:
                raise AssertionError(f"{path} opened {got['url']}: {got['text'][:80]!r}")
        # navigating itself during load: refused, or read before/after the refused hop
        try:
            got = await c.request("gg/browser.read", {"url": f"{a.origin}/js.html"}, timeout=120)
            assert SECRET.decode() not in got["text"]
        except RpcError as exc:
            assert exc.code == -32007 and "SSRF guard" in exc.message, exc.message
        await c.close()
    finally:
        d.stop()
    assert private.hits == []
    assert "/all.html" in a.hits and any(h.startswith("/hop/") for h in b.hits)


async def test_the_agent_after_one_approval_never_reads_a_private_page(
    gg_home: Path, workspace: Path, tmp_path: Path, servers: tuple[Server, Server, Server]
) -> None:
    a, b, private = servers
    nav = lambda i, url: {"id": f"n{i}", "name": "browser_navigate", "arguments": {"url": url}}  # noqa: E731
    read = lambda i: {"id": f"r{i}", "name": "browser_read", "arguments": {}}  # noqa: E731
    script = [
        {"toolCalls": [nav(1, f"{a.origin}/r/302/0")]},
        {"toolCalls": [read(1)]},
        {"toolCalls": [nav(2, f"{a.origin}/chain/2")]},
        {"toolCalls": [read(2)]},
        {"toolCalls": [nav(3, f"{a.origin}/js.html")]},
        {"toolCalls": [read(3)]},
        {"text": "done"},
    ]
    with FakeModel(script) as fm:
        env = _env(
            gg_home,
            tmp_path,
            a,
            b,
            OPENAI_BASE_URL=fm.base_url,
            OPENAI_API_KEY="k",
            GG_MODEL="fake-model",
        )
        d = Daemon(gg_home, workspace, env).start()
        try:
            c = await d.connect("unix")
            sid = await new_session(c)
            run_id = await start(c, sid, "read these pages", interactive=True)
            after = 0
            for _ in range(3):
                ev = await until(c, run_id, "approval_requested", after=after, timeout=90)
                after = ev["sequence"]
                await c.request(
                    "gg/run.approve",
                    {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True},
                )
            assert (await finish(c, run_id, timeout=120))["type"] == "run_completed"
            done = finished_tools(c, run_id)
            await c.close()
        finally:
            d.stop()
    for key in ("n1", "n2"):
        assert done[key]["isError"] and "SSRF guard" in done[key]["output"], done[key]
    for key in ("r1", "r2", "r3", "n3"):
        assert SECRET.decode() not in done[key]["output"], done[key]
    assert private.hits == []


async def test_webrtc_and_webtransport_send_no_udp_around_the_proxy(
    gg_home: Path, workspace: Path, tmp_path: Path, servers: tuple[Server, Server, Server]
) -> None:
    a, b, _private = servers
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    # STUN and WebTransport (QUIC) to a private UDP port; once ICE gathering is complete and the
    # WebTransport attempt has settled, the page tells the test
    port = udp.getsockname()[1]
    rtc = (
        "<body>rtc<script>const pc = new RTCPeerConnection({iceServers: [{urls: "
        f"'stun:127.0.0.1:{port}'}}]}});"
        "const gathered = new Promise(ok => { pc.onicegatheringstatechange = () => { "
        "if (pc.iceGatheringState === 'complete') ok() } });"
        "pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o));"
        "let quic = Promise.resolve();"
        f"try {{ quic = new WebTransport('https://127.0.0.1:{port}/x').ready.catch(() => 0) }}"
        "catch (e) {}"
        "Promise.all([gathered, quic]).then(() => fetch('/gathered'));"
        "</script><img src='/hold'></body>"
    )
    a.routes["/rtc.html"] = (200, {"Content-Type": "text/html"}, rtc.encode())
    a.routes["/gathered"] = (200, {}, b"")
    reached, release = a.gate("/gathered")
    _held, unhold = a.gate("/hold")  # the page's load (and so the read) waits for the test
    d = Daemon(gg_home, workspace, _env(gg_home, tmp_path, a, b)).start()
    try:
        c = await d.connect("unix")
        read = asyncio.ensure_future(
            c.request("gg/browser.read", {"url": f"{a.origin}/rtc.html"}, timeout=120)
        )
        gathered = await asyncio.to_thread(reached.wait, 60)
        with pytest.raises(BlockingIOError):  # not one STUN packet reached the private port
            udp.recv(2048)
        assert gathered
        release.set()
        unhold.set()
        await read
        await c.close()
    finally:
        release.set()
        unhold.set()
        udp.close()
        d.stop()
