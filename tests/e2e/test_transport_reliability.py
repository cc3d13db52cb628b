"""Bad input gets typed errors and the daemon keeps serving everyone else."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from .daemon import GGD, TOKEN, Daemon, daemon_env, wait_until
from .rpc_client import RpcClient, RpcError


async def _next_orphan(c: RpcClient, start: int = 0, timeout: float = 10) -> dict:
    async def find() -> dict:
        while True:
            if len(c.orphans) > start:
                return c.orphans[start]
            await asyncio.sleep(0.01)

    return await asyncio.wait_for(find(), timeout)


async def test_malformed_json_gets_parse_error_and_the_connection_survives(
    client: RpcClient,
) -> None:
    await client.send_body(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    err = await _next_orphan(client)
    assert err["id"] is None and err["error"]["code"] == -32700
    await client.send_body(b"[1, 2, 3]")
    err = await _next_orphan(client, 1)
    assert err["error"]["code"] == -32600
    await client.send_body(b'{"id": 7, "method": "gg/system.info"}')
    err = await _next_orphan(client, 2)
    assert err["error"]["code"] == -32600
    assert (await client.request("gg/system.info"))["protocolVersion"] == "1.0"


async def test_unknown_methods_get_method_not_found(client: RpcClient) -> None:
    with pytest.raises(RpcError) as exc:
        await client.request("gg/nothing.here", {})
    assert exc.value.code == -32601
    with pytest.raises(RpcError) as exc:
        await client.request("textDocument/unknownThing", {})
    assert exc.value.code == -32601
    assert await client.request("gg/workspace.list")


async def test_a_5_mib_message_is_refused_and_the_connection_survives(client: RpcClient) -> None:
    big = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "gg/session.create",
            "params": {"name": "x" * (5 * 2**20)},
        }
    ).encode()
    await client.send_body(big)
    err = await _next_orphan(client)
    assert err["error"]["code"] == -32600
    assert err["error"]["data"]["code"] == "message_too_large"
    assert "limit" in err["error"]["message"]
    snap = await client.request("gg/session.create", {"name": "after the big one"})
    assert snap["name"] == "after the big one"


async def test_a_client_that_never_reads_is_cut_off_while_others_are_served(daemon: Daemon) -> None:
    setup = await daemon.connect("unix")
    for i in range(150):
        await setup.request("gg/session.create", {"name": f"{i:03d}" + "n" * 190})
    # A raw socket that sends many requests with large answers and never reads a byte.
    hog = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hog.connect(daemon.socket)
    hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)

    def frame(obj: dict) -> bytes:
        body = json.dumps(obj).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}
    payload = frame(init) + b"".join(
        frame({"jsonrpc": "2.0", "id": i, "method": "gg/session.list", "params": {"limit": 500}})
        for i in range(1, 300)
    )
    hog.setblocking(False)
    loop = asyncio.get_running_loop()
    sender = loop.create_task(loop.sock_sendall(hog, payload))
    try:
        # Meanwhile everyone else is served promptly.
        for _ in range(20):
            info = await asyncio.wait_for(setup.request("gg/system.info"), 5)
            assert info["protocolVersion"] == "1.0"

        # The daemon stops buffering for the hog (it logs why) and drops its connection.

        await wait_until(lambda: "client stopped reading" in daemon.logs(), timeout=60)

        async def hog_closed() -> None:
            while True:
                try:
                    data = await loop.sock_recv(hog, 1 << 20)
                except (ConnectionResetError, BrokenPipeError):
                    return
                if not data:
                    return

        await asyncio.wait_for(hog_closed(), 30)
        rss_kib = int(
            next(
                line.split()[1]
                for line in Path(f"/proc/{daemon.proc.pid}/status").read_text().splitlines()
                if line.startswith("VmRSS")
            )
        )
        assert rss_kib < 400 * 1024, f"daemon RSS grew to {rss_kib} KiB"
        assert (await setup.request("gg/system.info"))["serverVersion"]
    finally:
        sender.cancel()
        hog.close()
        await setup.close()


async def test_websocket_requires_the_token(daemon: Daemon) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        with pytest.raises(InvalidStatus) as exc:
            async with connect(daemon.ws_url, additional_headers=headers):
                pass
        assert exc.value.response.status_code == 401
    # browsers pass the token as a subprotocol next to gg.v1
    async with connect(daemon.ws_url, subprotocols=["gg.v1", f"gg-token.{TOKEN}"]) as ws:
        assert ws.subprotocol == "gg.v1"


async def _origin_status(daemon: Daemon, origin: str | None) -> int:
    """101 when a WebSocket with this Origin (and the right token) is accepted, else the refusal."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        async with connect(daemon.ws_url, additional_headers=auth, origin=origin):  # type: ignore[arg-type]
            return 101
    except InvalidStatus as exc:
        return exc.response.status_code


async def test_hostile_origin_and_host_are_refused(daemon: Daemon) -> None:
    port = daemon.ws_url.split(":")[2].split("/")[0]
    # Only the daemon's own origin (the web UI it serves) and non-browser clients (no Origin).
    for origin in (None, daemon.http_url.rstrip("/"), f"http://localhost:{port}"):
        assert await _origin_status(daemon, origin) == 101, origin
    # `null` is what sandboxed iframes, file: pages and data: URLs send, from any site; another
    # loopback port is another program's page (a dev server, anything on localhost).
    refused = [
        "https://evil.example",
        "null",
        "http://localhost:5173",
        f"http://127.0.0.1:{int(port) + 1}",
        f"https://127.0.0.1:{port}",
        "http://127.0.0.1",
        f"http://127.0.0.1.evil.example:{port}",
    ]
    for origin in refused:
        assert await _origin_status(daemon, origin) == 403, origin
    status = _http_status(int(port), "/healthz", {"Host": f"evil.example:{port}"})
    assert status == 403


def _http_status(port: int, path: str, headers: dict[str, str]) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        lines = [f"GET {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers.items()]
        if not any(k.lower() == "host" for k in headers):
            lines.append(f"Host: 127.0.0.1:{port}")
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return int(s.recv(4096).split(b" ", 2)[1])


async def test_health_endpoints(daemon: Daemon) -> None:
    port = int(daemon.ws_url.split(":")[2].split("/")[0])
    assert _http_status(port, "/healthz", {}) == 200
    assert _http_status(port, "/health", {}) == 401
    assert _http_status(port, "/health", {"Authorization": f"Bearer {TOKEN}"}) == 200
    assert _http_status(port, "/", {}) == 200


def test_a_non_loopback_bind_is_refused_without_allow_remote(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*GGD, "--private", "--ws", "0.0.0.0:0", "--workspace", str(tmp_path)],
        env=daemon_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "--allow-remote" in proc.stderr and "non-loopback" in proc.stderr


async def test_allow_origin_lets_a_configured_origin_in(gg_home: Path, workspace: Path) -> None:
    args = ["--allow-origin", "http://localhost:5173", "--allow-origin", "HTTPS://Dev.Example/"]
    d = Daemon(gg_home, workspace, daemon_env(gg_home), args=args).start()
    try:
        for origin in ("http://localhost:5173", "https://dev.example"):
            assert await _origin_status(d, origin) == 101, origin
        for origin in ("null", "http://localhost:5174", "http://dev.example"):
            assert await _origin_status(d, origin) == 403, origin
    finally:
        d.stop()


@pytest.mark.parametrize("bad", ["null", "localhost:5173", "http://x/path", "*"])
def test_allow_origin_refuses_what_is_not_an_origin(
    gg_home: Path, workspace: Path, bad: str
) -> None:
    out = subprocess.run(
        [*GGD, "--ws", "127.0.0.1:0", "--allow-origin", bad, "--workspace", str(workspace)],
        env=daemon_env(gg_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2, out.stderr
    assert "--allow-origin" in out.stderr and "Traceback" not in out.stderr
