"""gg against the real ggd: discovery, auto-start, sessions, slash commands, relay, bridge."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import make_test_lsp_client

from .conftest import GG, CliEnv, _alive, wait_for
from .test_cli_bridge_fake import NVIM_TEST
from .test_cli_relay_fake import Lines, req

pytestmark = pytest.mark.timeout(90)
MODES = {"daemon": [], "no-daemon": ["--no-daemon"]}


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> list[str]:
    """Through the auto-started shared daemon, and through a private `ggd --stdio` child."""
    return list(MODES[request.param])


def test_autostart_status_and_stop(real_env: CliEnv) -> None:
    r = real_env.run("sessions", "list")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "no sessions in this workspace"
    disc = real_env.discovery()
    assert disc is not None and _alive(disc["pid"])
    assert os.getsid(disc["pid"]) == disc["pid"]  # detached from gg's session
    assert (real_env.home / "logs" / "ggd.log").exists()
    status = json.loads(real_env.run("daemon", "status", "--json").stdout)
    assert status["running"] and status["pid"] == disc["pid"]
    assert status["protocolVersion"].startswith("1.")
    r = real_env.run("daemon", "stop")
    assert r.returncode == 0 and "stopped" in r.stdout
    assert not _alive(disc["pid"])
    assert real_env.discovery() is None
    assert real_env.run("daemon", "status").returncode == 1


@pytest.mark.parametrize("attempt", range(2))
def test_concurrent_autostarts_end_on_one_daemon(real_env: CliEnv, attempt: int) -> None:
    procs = [real_env.popen("sessions", "list", "--json") for _ in range(3)]
    for p in procs:
        _out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()
    disc = real_env.discovery()
    assert disc is not None
    ggds = _ggd_pids(real_env.home)
    assert wait_for(lambda: _ggd_pids(real_env.home) == [disc["pid"]], 10), ggds


def _ggd_pids(home: Path) -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or not _alive(int(pid)):
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if any(c.endswith(b"ggd") for c in cmd[:2]) and f"GG_HOME={home}".encode() in environ:
            out.append(int(pid))
    return out


def test_sessions_list_through_the_daemon_and_a_private_child(real_env: CliEnv) -> None:
    rpc = Lines(real_env.popen("rpc"))
    try:
        rpc.send(req(1, "gg/session.create", {"name": "alpha"}))
        alpha = rpc.reply(1)["result"]["sessionId"]
        rpc.send(req(2, "gg/session.create", {"name": "beta"}))
        beta = rpc.reply(2)["result"]["sessionId"]
    finally:
        assert rpc.proc.stdin is not None
        rpc.proc.stdin.close()
        assert rpc.proc.wait(15) == 0
    for mode in MODES.values():
        sessions = json.loads(real_env.run("sessions", "list", "--json", *mode).stdout)
        assert {s["id"] for s in sessions} == {alpha, beta}
    text = real_env.run("sessions", "list").stdout
    assert "alpha" in text and "beta" in text
    r = real_env.run("sessions", "list", "--json", "--workspace", str(real_env.root))
    assert json.loads(r.stdout) == []  # another workspace has its own sessions


def test_interactive_session_commands(real_env: CliEnv, mode: list[str]) -> None:
    p = real_env.pty(*mode, "--name", "first")
    p.expect("session first")
    p.expect("gg> ")
    for command, answer in [
        ("/name renamed", "renamed to renamed"),
        ("/tree", r"\(empty session\)"),
        ("/sessions", r"renamed\s+0 msgs"),
        ("/model", "model: openai:fake-model"),
        ("/context", ""),
        ("/compact", ""),
        ("/clone", "cloned into session renamed"),
        ("/new other", "new session other"),
        ("/resume nope", "gg: no session"),
    ]:
        p.send(command + "\r")
        p.expect(answer)
        p.expect("gg> ")
    p.send("\x04")
    assert p.wait() == 0
    names = {s["name"] for s in json.loads(real_env.run("sessions", "list", "--json").stdout)}
    assert {"renamed", "other"} <= names


def test_rpc_relay_without_a_prompt(real_env: CliEnv, mode: list[str]) -> None:
    proc = real_env.popen("rpc", *mode)
    rpc = Lines(proc)
    try:
        rpc.send(req(1, "gg/system.info"))
        info = rpc.reply(1)
        assert info["id"] == 1 and info["result"]["protocolVersion"].startswith("1.")
        rpc.send("{broken")
        assert rpc.reply(None)["error"]["code"] == -32700
        rpc.send(req(2, "gg/nope.nothing"))
        assert rpc.reply(2)["error"]["code"] == -32601
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(15) == 0
    finally:
        proc.kill()
        proc.wait()


def test_rpc_relay_with_the_callers_initialize(real_env: CliEnv) -> None:
    proc = real_env.popen("rpc")
    rpc = Lines(proc)
    try:
        rpc.send(req(1, "gg/system.info"))  # not initialize: gg shakes hands itself
        assert "result" in rpc.reply(1)
        proc2 = real_env.popen("rpc")
        rpc2 = Lines(proc2)
        root = real_env.ws.as_uri()
        rpc2.send(req(1, "initialize", {"processId": None, "capabilities": {}, "rootUri": root}))
        init = rpc2.reply(1)
        assert init["result"]["serverInfo"]["name"] == "ggd"
        rpc2.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        rpc2.send(req(2, "gg/system.info"))
        assert rpc2.reply(2)["id"] == 2
        assert proc2.stdin is not None
        proc2.stdin.close()
        assert proc2.wait(15) == 0
    finally:
        for p in (proc,):
            p.kill()
            p.wait()


def test_rpc_caller_that_skips_initialize_after_sending_it_first_is_not_helped(
    real_env: CliEnv,
) -> None:
    proc = real_env.popen("rpc")
    rpc = Lines(proc)
    try:
        rpc.send(req(1, "initialize", {"processId": None, "capabilities": {}}))
        assert "result" in rpc.reply(1)
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(15) == 0
    finally:
        proc.kill()
        proc.wait()


async def test_pytest_lsp_client_joins_the_daemon_through_the_bridge(real_env: CliEnv) -> None:
    client = make_test_lsp_client()
    await client.start_io(GG, "bridge", env=real_env.env, cwd=str(real_env.ws))
    try:
        result = await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=types.ClientCapabilities(), root_uri=real_env.ws.as_uri()
                )
            ),
            30,
        )
        assert result.server_info is not None and result.server_info.name == "ggd"
        snap = await client.protocol.send_request_async("gg/session.create", {"name": "via lsp"})
        assert snap.name == "via lsp"
        await asyncio.wait_for(client.shutdown_session(), 15)
    finally:
        try:
            await asyncio.wait_for(client.stop(), 15)
        except TimeoutError:
            if client._server is not None:
                client._server.kill()
            raise
    sessions = json.loads(real_env.run("sessions", "list", "--json").stdout)
    assert [s["name"] for s in sessions] == ["via lsp"]
    disc = real_env.discovery()
    assert disc is not None and _alive(disc["pid"])  # the daemon outlives the bridge


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed")
def test_neovim_joins_the_daemon_through_the_bridge(real_env: CliEnv, tmp_path: Path) -> None:
    out = tmp_path / "nvim-out.json"
    lua = tmp_path / "t.lua"
    prelude = f"OUT = {json.dumps(str(out))}\nGG = {json.dumps(GG)}\n"
    prelude += f"ROOT = {json.dumps(str(real_env.ws))}\n"
    prelude += "ENV = vim.fn.json_decode(" + json.dumps(json.dumps(real_env.env)) + ")\n"
    lua.write_text(prelude + NVIM_TEST)
    subprocess.run(
        ["nvim", "--headless", "--clean", "-c", f"luafile {lua}"],
        env=real_env.env,
        cwd=real_env.ws,
        timeout=60,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    data = json.loads(out.read_text())
    assert data["initialized"] is True, data
    assert data["result"]["name"] == "from nvim"
    sessions = json.loads(real_env.run("sessions", "list", "--json").stdout)
    assert [s["name"] for s in sessions] == ["from nvim"]


def test_daemon_start_with_websocket_prints_the_web_ui(real_env: CliEnv) -> None:
    import urllib.request

    r = real_env.run("daemon", "start", "--ws", "127.0.0.1:0")
    assert r.returncode == 0, r.stderr
    disc = real_env.discovery()
    assert disc is not None and disc["http"] and disc["token"]
    assert f"web UI: {disc['http']}#token={disc['token']}" in r.stdout
    with urllib.request.urlopen(disc["http"] + "healthz", timeout=10) as resp:
        assert resp.status == 200
    # An explicitly started daemon serves the CLI like an auto-started one.
    assert real_env.run("sessions", "list").returncode == 0
    assert real_env.discovery() == disc
