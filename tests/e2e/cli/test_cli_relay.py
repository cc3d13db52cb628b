"""`gg sessions`, `gg rpc` and `gg bridge` (pytest-lsp, Neovim 0.7) against the real ggd."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import make_test_lsp_client

from .conftest import GG, CliEnv, Lines, _alive, req

pytestmark = pytest.mark.timeout(90)
MODES = {"daemon": [], "no-daemon": ["--no-daemon"]}


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> list[str]:
    """Through the auto-started shared daemon, and through a private `ggd --stdio` child."""
    return list(MODES[request.param])


def test_sessions_list_through_the_daemon_and_a_private_child(real_env: CliEnv) -> None:
    r = real_env.run("sessions", "list")  # auto-starts the daemon
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("no sessions in this workspace")
    rpc = Lines(real_env.popen("rpc"))
    try:
        rpc.send(req(1, "gg/session.create", {"name": "alpha"}))
        alpha = rpc.reply(1)["result"]["sessionId"]
        rpc.send(req(2, "gg/session.create", {"name": "beta"}))
        beta = rpc.reply(2)["result"]["sessionId"]
        assert rpc.close() == 0
    finally:
        rpc.proc.kill()
        rpc.proc.wait()
    for mode in MODES.values():
        sessions = json.loads(real_env.run("sessions", "list", "--json", *mode).stdout)
        assert {s["id"] for s in sessions} == {alpha, beta}
    text = real_env.run("sessions", "list").stdout
    assert "alpha" in text and "beta" in text
    r = real_env.run("sessions", "list", "--json", "--workspace", str(real_env.root))
    assert json.loads(r.stdout) == []  # another workspace has its own sessions


def test_rpc_shakes_hands_for_the_caller_and_relays_a_run(
    real_env: CliEnv, mode: list[str]
) -> None:
    real_env.model.add_steps([{"text": "relayed answer"}])
    rpc = Lines(real_env.popen("rpc", *mode))
    try:
        rpc.send(req(1, "gg/system.info"))  # not initialize: gg does the handshake itself
        info = rpc.reply(1)
        assert info["id"] == 1 and info["result"]["protocolVersion"].startswith("1.")
        rpc.send("{broken")
        err = rpc.reply(None)
        assert err["id"] is None and err["error"]["code"] == -32700
        rpc.send(req(2, "gg/session.create", {"name": "scripted"}))
        snap = rpc.reply(2)["result"]
        assert snap["name"] == "scripted"
        rpc.send(req("r", "gg/run.start", {"sessionId": snap["sessionId"], "prompt": "go"}))
        seen = rpc.until(lambda m: m.get("params", {}).get("type") == "run_completed")
        run_id = next(m["result"]["runId"] for m in seen if m.get("id") == "r")
        events = [m["params"] for m in seen if m.get("method") == "gg/run.event"]
        assert {e["runId"] for e in events} == {run_id}
        assert events[-1]["content"] == "relayed answer"
        rpc.send(req(3, "gg/nope.nothing"))
        assert rpc.reply(3)["error"]["code"] == -32601
        assert rpc.close() == 0
    finally:
        rpc.proc.kill()
        rpc.proc.wait()


def test_rpc_passes_the_callers_own_initialize_through(real_env: CliEnv) -> None:
    other = Lines(real_env.popen("rpc"))  # a second relay on the same daemon meanwhile
    rpc = Lines(real_env.popen("rpc"))
    try:
        other.send(req(1, "gg/system.info"))
        assert "result" in other.reply(1)
        root = real_env.ws.as_uri()
        rpc.send(req(1, "initialize", {"processId": None, "capabilities": {}, "rootUri": root}))
        init = rpc.reply(1)
        assert init["id"] == 1 and init["result"]["serverInfo"]["name"] == "ggd"
        rpc.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        rpc.send(req(2, "gg/system.info"))
        assert rpc.reply(2)["id"] == 2
        assert rpc.close() == 0
        assert other.close() == 0
    finally:
        for p in (rpc.proc, other.proc):
            p.kill()
            p.wait()


def test_rpc_caller_that_only_initializes_exits_cleanly(real_env: CliEnv) -> None:
    rpc = Lines(real_env.popen("rpc"))
    try:
        rpc.send(req(1, "initialize", {"processId": None, "capabilities": {}}))
        assert "result" in rpc.reply(1)
        assert rpc.close() == 0
    finally:
        rpc.proc.kill()
        rpc.proc.wait()


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


NVIM_TEST = """
local out = assert(io.open(OUT, "w"))
local client_id = vim.lsp.start_client({
  name = "gg", cmd = {GG, "bridge"}, cmd_env = ENV, root_dir = ROOT,
  handlers = {},
})
local client = vim.lsp.get_client_by_id(client_id)
vim.wait(10000, function() return client.initialized end, 10)
local resp = client.request_sync("gg/session.create", {name = "from nvim"}, 10000)
out:write(vim.fn.json_encode({initialized = client.initialized, result = resp and resp.result,
  err = resp and resp.err}))
out:close()
client.stop()
vim.wait(5000, function() return client.is_stopped() end, 10)
vim.cmd("qa!")
"""


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
