"""Electron main process: its Node tests (electron stubbed), and the ggd sidecar contract for real."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websockets

REPO = Path(__file__).resolve().parents[3]
ELECTRON = REPO / "electron"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed")
    return node


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(port: int, proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"ggd exited early: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.05)  # polling interval of a readiness probe, not synchronisation by sleep
    pytest.fail("ggd did not become healthy")


def test_node_unit_tests_with_electron_stubbed(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GG_GGD"}
    proc = subprocess.run(
        [_node(), "--test", *sorted(str(p) for p in (ELECTRON / "test").glob("*.test.js"))],
        cwd=ELECTRON,
        env={**env, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout


def test_main_js_drives_a_real_ggd(
    tmp_path: Path, gg_home: Path, workspace: Path, ggd_bin: Path
) -> None:
    env = {
        **os.environ,
        "GG_GGD": str(ggd_bin),
        "GG_HOME": str(gg_home),
        "GG_WORKSPACE": str(workspace),
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        [_node(), "--test", str(ELECTRON / "test" / "integration.test.js")],
        cwd=ELECTRON,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# pass 1" in proc.stdout


async def _initialize(ws: websockets.ClientConnection, workspace: Path) -> dict[str, object]:
    await ws.send(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "processId": None,
                    "clientInfo": {"name": "gg-desktop-test"},
                    "capabilities": {},
                    "workspaceFolders": [{"uri": workspace.as_uri(), "name": workspace.name}],
                },
            }
        )
    )
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg.get("id") == 1:
            return msg


async def test_sidecar_contract(gg_home: Path, workspace: Path, ggd_bin: Path) -> None:
    """Spawn ggd exactly as main.js does, talk over WebSocket with the token, close stdin: ggd exits in 2 s."""
    port, token = _free_port(), secrets.token_hex(32)
    args = [
        str(ggd_bin),
        "--ws",
        f"127.0.0.1:{port}",
        "--exit-on-stdin-eof",
        "--workspace",
        str(workspace),
    ]
    proc = subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "GG_HOME": str(gg_home), "GG_TOKEN": token},
        cwd=workspace,
    )
    try:
        assert token not in Path(f"/proc/{proc.pid}/cmdline").read_text()
        await asyncio.to_thread(_wait_healthy, port, proc)
        url = f"ws://127.0.0.1:{port}/ws"
        async with websockets.connect(
            url, additional_headers={"Authorization": f"Bearer {token}"}
        ) as ws:
            res = await _initialize(ws, workspace)
            gg = res["result"]["capabilities"]["experimental"]["gg"]
            assert gg["protocolVersion"].split(".")[0] == "1"
            assert res["result"]["serverInfo"]["name"] == "ggd"
        # The renderer authenticates with subprotocols (browsers cannot set headers); Electron's Origin is the page's.
        async with websockets.connect(
            url, subprotocols=["gg.v1", f"gg-token.{token}"], origin=f"http://127.0.0.1:{port}"
        ) as ws:
            assert ws.subprotocol == "gg.v1"
            assert "result" in await _initialize(ws, workspace)
        with pytest.raises(websockets.InvalidStatus) as bad:
            async with websockets.connect(
                url, additional_headers={"Authorization": "Bearer " + "0" * 64}
            ):
                pass
        assert bad.value.response.status_code == 401
        assert proc.stdin is not None
        proc.stdin.close()
        started = time.monotonic()
        code = await asyncio.to_thread(proc.wait, 5)
        assert time.monotonic() - started < 2.0, "ggd must exit within 2 s of its stdin closing"
        assert code == 0
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        assert f"http://127.0.0.1:{port}/#token={token}" in stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
