"""`gg bridge` lets stdio LSP clients (pytest-lsp, Neovim 0.7) join the shared daemon."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import make_test_lsp_client

from .conftest import GG, CliEnv

pytestmark = pytest.mark.timeout(60)


async def test_pytest_lsp_client_through_the_bridge(fake_env: CliEnv) -> None:
    client = make_test_lsp_client()
    await client.start_io(GG, "bridge", env=fake_env.env, cwd=str(fake_env.ws))
    try:
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=fake_env.ws.as_uri(),
            )
        )
        assert result.server_info is not None and result.server_info.name == "ggd"
        snap = await client.protocol.send_request_async("gg/session.create", {"name": "lsp"})
        assert snap.name == "lsp"
        await asyncio.wait_for(client.shutdown_session(), 15)
    finally:
        try:
            await asyncio.wait_for(client.stop(), 15)
        except TimeoutError:
            if client._server is not None:
                client._server.kill()
            raise
    # The bridge started the shared daemon, which outlives the bridge.
    disc = fake_env.discovery()
    assert disc is not None
    r = fake_env.run("sessions", "list", "--json")
    assert [s["name"] for s in json.loads(r.stdout)] == ["lsp"]


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


@pytest.mark.skipif(
    shutil.which("nvim") is None, reason="Neovim is not installed (apt-get install neovim)"
)
def test_neovim_joins_the_daemon_through_the_bridge(fake_env: CliEnv, tmp_path: Path) -> None:
    out = tmp_path / "nvim-out.json"
    lua = tmp_path / "t.lua"
    prelude = f"OUT = {json.dumps(str(out))}\nGG = {json.dumps(GG)}\nROOT = {json.dumps(str(fake_env.ws))}\n"
    prelude += "ENV = vim.fn.json_decode(" + json.dumps(json.dumps(fake_env.env)) + ")\n"
    lua.write_text(prelude + NVIM_TEST)
    subprocess.run(
        ["nvim", "--headless", "--clean", "-c", f"luafile {lua}"],
        env=fake_env.env,
        cwd=fake_env.ws,
        timeout=40,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    data = json.loads(out.read_text())
    assert data["initialized"] is True
    assert data["result"]["name"] == "from nvim"
    r = fake_env.run("sessions", "list", "--json")
    assert [s["name"] for s in json.loads(r.stdout)] == ["from nvim"]
