"""docs/extending.md's worked example, built and called through a real ggd.

tests/fakes/greeter/ is the whole capability (one folder); GG_CAPABILITIES_EXTRA is its catalog
line. Its one method joins the daemon's one table: the gate knows it, the route validates its
params with its row's model, its handler gets its config section and its per-daemon state. Its
`cli.py` gives the real `gg` CLI a `greet` subcommand through the same catalog line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .daemon import Daemon, daemon_env
from .rpc_client import RpcError

ROOT = Path(__file__).resolve().parents[2]
GG = str(Path(sys.executable).parent / "gg")


async def test_a_capability_from_one_folder_serves_its_method(
    gg_home: Path, workspace: Path
) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(json.dumps({"greeter": {"greeting": "Hi"}}))
    env = daemon_env(gg_home, {"GG_CAPABILITIES_EXTRA": "tests.fakes.greeter"})
    d = Daemon(gg_home, workspace, env).start()
    try:
        a = await d.connect("unix")
        b = await d.connect("ws")
        got = await a.request("gg/greeter.greet", {"name": "Ada"})
        assert got == {"text": "Hi, Ada!", "count": 1, "workspace": workspace.name}
        # one state per daemon, whichever connection calls
        assert (await b.request("gg/greeter.greet", {"name": "Bob"}))["count"] == 2
        # params are validated against the row before the handler runs
        for bad in ({}, {"name": ""}, {"name": "x", "extra": 1}):
            with pytest.raises(RpcError) as exc:
                await a.request("gg/greeter.greet", bad)
            assert exc.value.code == -32602 and exc.value.symbol == "invalid_params"
        assert (await a.request("gg/greeter.greet", {"name": "Cy"}))["count"] == 3
        await a.close()
        await b.close()
    finally:
        d.stop()


async def test_its_command_line_comes_from_the_same_folder_and_catalog_line(
    gg_home: Path, workspace: Path
) -> None:
    extra = {"GG_CAPABILITIES_EXTRA": "tests.fakes.greeter"}
    d = Daemon(gg_home, workspace, daemon_env(gg_home, extra)).start()
    # The console script's sys.path does not hold the checkout: PYTHONPATH finds `tests`.
    cli_env = daemon_env(gg_home, {**extra, "PYTHONPATH": str(ROOT)})

    def gg(*args: str, env: dict[str, str] = cli_env) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [GG, *args], capture_output=True, text=True, env=env, cwd=workspace, timeout=60
        )

    try:
        out = gg("greet", "Ada")
        assert out.returncode == 0, out.stderr
        assert out.stdout == "Hello, Ada! (greeting #1 of this daemon)\n"
        assert gg("greet", "Bob").stdout.startswith("Hello, Bob! (greeting #2")  # one daemon
        assert "|greet|" in gg("--help").stdout  # listed with the capability commands
        assert gg("greet", "--help").stdout.startswith("usage: gg greet")
        bad = gg("greet", "")  # the daemon's row validates it; the CLI shows its message
        assert bad.returncode != 0 and "invalid params: name" in bad.stderr
        assert "Traceback" not in bad.stderr
        # Without the catalog line the CLI has no such command ("greet" would start a prompt).
        plain = daemon_env(gg_home, {"PYTHONPATH": str(ROOT)})
        assert "greet" not in gg("--help", env=plain).stdout
        assert not gg("greet", "--help", env=plain).stdout.startswith("usage: gg greet")
    finally:
        d.stop()


async def test_without_its_catalog_line_the_method_is_unknown(
    gg_home: Path, workspace: Path
) -> None:
    d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    try:
        c = await d.connect("unix")
        with pytest.raises(RpcError) as exc:
            await c.request("gg/greeter.greet", {"name": "Ada"})
        assert exc.value.code == -32601
        await c.close()
    finally:
        d.stop()


async def test_a_capability_s_handler_and_provider_share_its_one_state(
    gg_home: Path, workspace: Path
) -> None:
    # MCP's per-daemon state (the servers clients gave sessions) is written by gg/mcp.session.set
    # and read by the provider's availability: one McpState, made by the registry.
    d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    try:
        c = await d.connect("unix")
        assert "mcp" not in (await c.request("gg/system.info"))["capabilities"]
        server = {"name": "time", "command": "python3", "args": ["-m", "mcp_server_time"]}
        await c.request("gg/mcp.session.set", {"sessionId": "s_x", "servers": [server]})
        assert "mcp" in (await c.request("gg/system.info"))["capabilities"]
        await c.close()
    finally:
        d.stop()
