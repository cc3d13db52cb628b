"""Three transports at once against one daemon: pytest-lsp over stdio, the Unix socket, WebSocket.

Two clients on one session see each other's renames, checkouts and forks as gg/session.event.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from .daemon import TOKEN, daemon_env
from .rpc_client import RpcClient


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _plain(obj: Any) -> Any:
    """pygls hands custom results over as namedtuples; turn them back into dicts."""
    if hasattr(obj, "_asdict"):
        return {k: _plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


class Shared:
    """One ggd serving stdio (pytest-lsp), a Unix socket and WebSocket."""

    def __init__(self, lsp_client: LanguageClient, sock: Path, port: int, workspace: Path) -> None:
        self.lsp = lsp_client
        self.sock = sock
        self.port = port
        self.workspace = workspace

    async def lsp_request(self, method: str, params: dict[str, Any]) -> Any:
        return _plain(await self.lsp.protocol.send_request_async(method, params))


@pytest_asyncio.fixture
async def shared(tmp_path: Path) -> AsyncIterator[Shared]:
    home = tmp_path / "home"
    ws_dir = tmp_path / "project"
    ws_dir.mkdir()
    sock = tmp_path / "ggd.sock"
    port = _free_port()
    cfg = ClientServerConfig(
        server_command=[
            sys.executable,
            "-m",
            "ggd.daemon",
            "--stdio",
            "--socket",
            str(sock),
            "--ws",
            f"127.0.0.1:{port}",
            "--token",
            TOKEN,
            "--workspace",
            str(ws_dir),
        ],
        server_env=daemon_env(home),
    )
    client = await cfg.start()
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=ws_dir.resolve().as_uri(),
            client_info=lsp.ClientInfo(name="pytest-lsp"),
        )
    )
    yield Shared(client, sock, port, ws_dir)
    await client.shutdown_session()


async def test_three_transports_share_one_runtime_and_see_each_others_changes(
    shared: Shared,
) -> None:
    unix = await RpcClient.unix(shared.sock)
    await unix.initialize(shared.workspace, name="unix")
    web = await RpcClient.ws(f"ws://127.0.0.1:{shared.port}/ws", TOKEN)
    await web.initialize(shared.workspace, name="web")
    try:
        created = await shared.lsp_request("gg/session.create", {"name": "shared"})
        sid = created["sessionId"]
        # every transport sees the same session
        for c in (unix, web):
            listed = await c.request("gg/session.list", {})
            assert sid in [s["id"] for s in listed["sessions"]]
        await unix.request("gg/session.subscribe", {"sessionId": sid})
        await web.request("gg/session.subscribe", {"sessionId": sid})
        await shared.lsp_request("gg/session.subscribe", {"sessionId": sid})

        # a rename over stdio reaches the socket and WebSocket clients
        lsp_seen = shared.lsp.protocol.wait_for_notification_async("gg/session.event")
        await shared.lsp_request(
            "gg/session.rename", {"sessionId": sid, "name": "renamed by stdio"}
        )
        for c in (unix, web):
            ev = await c.wait_for("gg/session.event", lambda p: p["type"] == "renamed")
            assert ev == {"sessionId": sid, "type": "renamed", "name": "renamed by stdio"}
        assert _plain(await asyncio.wait_for(lsp_seen, 10))["name"] == "renamed by stdio"

        # a clone over WebSocket is announced as `forked` to the others
        lsp_seen = shared.lsp.protocol.wait_for_notification_async("gg/session.event")
        clone = await web.request("gg/session.action", {"sessionId": sid, "action": "clone"})
        ev = await unix.wait_for("gg/session.event", lambda p: p["type"] == "forked")
        assert ev["newSessionId"] == clone["sessionId"] and ev["kind"] == "clone"
        assert _plain(await asyncio.wait_for(lsp_seen, 10))["type"] == "forked"

        # the Unix socket client renames; WebSocket sees it, and the snapshot agrees everywhere
        await unix.request("gg/session.rename", {"sessionId": sid, "name": "third"})
        await web.wait_for("gg/session.event", lambda p: p.get("name") == "third")
        snaps = [
            await unix.request("gg/session.get", {"sessionId": sid}),
            await web.request("gg/session.get", {"sessionId": sid}),
            await shared.lsp_request("gg/session.get", {"sessionId": sid}),
        ]
        assert snaps[0] == snaps[1] == snaps[2]
        assert snaps[0]["name"] == "third"

        # without a subscription a client of the same workspace still hears list-level events
        # (created, renamed, forked, run state) so its session list stays live
        await web.request("gg/session.unsubscribe", {"sessionId": sid})
        start = len(web.notifications)
        other = await unix.request("gg/session.create", {"name": "made elsewhere"})
        ev = await web.wait_for("gg/session.event", lambda p: p["type"] == "created", start=start)
        assert ev == {"sessionId": other["sessionId"], "type": "created", "name": "made elsewhere"}
        await unix.request("gg/session.rename", {"sessionId": sid, "name": "fourth"})
        await web.wait_for("gg/session.event", lambda p: p.get("name") == "fourth", start=start)
    finally:
        await unix.close()
        await web.close()


async def test_one_clients_exit_closes_only_that_connection(shared: Shared) -> None:
    a = await RpcClient.unix(shared.sock)
    await a.initialize(shared.workspace)
    b = await RpcClient.ws(f"ws://127.0.0.1:{shared.port}/ws", TOKEN)
    await b.initialize(shared.workspace)
    try:
        await a.request("shutdown")
        await a.notify("exit")
        await asyncio.wait_for(a.closed.wait(), 10)
        # the others keep working
        assert (await b.request("gg/system.info"))["protocolVersion"].startswith("1.")
        info = await shared.lsp_request("gg/system.info", {})
        assert info["workspace"]["name"] == "project"
    finally:
        await a.close()
        await b.close()


async def test_list_level_events_stay_inside_their_workspace(
    shared: Shared, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    here = await RpcClient.unix(shared.sock)
    await here.initialize(shared.workspace)
    there = await RpcClient.unix(shared.sock)
    await there.initialize(elsewhere)
    try:
        await here.request("gg/session.create", {"name": "in project"})
        made = await there.request("gg/session.create", {"name": "in elsewhere"})
        ev = await there.wait_for("gg/session.event", lambda p: p["type"] == "created")
        assert ev["sessionId"] == made["sessionId"]
        await here.request("gg/system.info")  # a round trip: anything sent before it has arrived
        assert [e["name"] for e in here.events("gg/session.event")] == ["in project"]
    finally:
        await here.close()
        await there.close()
