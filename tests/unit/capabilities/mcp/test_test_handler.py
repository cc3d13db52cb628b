"""gg/mcp.test's failure text: the log file and the command named for this machine's clients only."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ggd.app import HandlerContext, Workspace
from ggd.capabilities.mcp.handlers import mcp_list, mcp_test
from ggd.capabilities.mcp.protocol import McpServerParams
from ggd.protocol.base import Empty

CRASH = {"command": "sh", "args": ["-c", "echo boom >&2; exit 3"]}


def _hctx(home: Path, ws: Workspace, remote: bool = False) -> HandlerContext:
    services: Any = SimpleNamespace(home=home)
    return HandlerContext(
        services=services, workspace=ws, config=None, notify=lambda *_: True, remote=remote
    )


def _setup(tmp_path: Path, servers: dict[str, Any]) -> tuple[Path, Workspace]:
    home, root = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    root.mkdir()
    (home / "mcp.json").write_text(json.dumps({"servers": servers}))
    return home, Workspace("w_1", "ws", root)


async def test_a_local_client_gets_the_full_log_path_and_command(tmp_path: Path) -> None:
    missing = str(tmp_path / "opt" / "bin" / "srv")
    home, ws = _setup(tmp_path, {"crash": CRASH, "gone": {"command": missing}})
    ctx = _hctx(home, ws)
    crash = await mcp_test(ctx, McpServerParams(server="crash"))
    log = home / "logs" / "mcp" / "crash.log"
    assert not crash.ok and crash.error and crash.error.endswith(f"; its log: {log}")
    gone = await mcp_test(ctx, McpServerParams(server="gone"))
    assert gone.error == f"command not found: {missing} (no executable file at that path)"
    listed = {s.name: s for s in (await mcp_list(ctx, Empty())).servers}
    assert listed["crash"].state == "failed" and listed["gone"].state == "failed"


async def test_a_remote_client_learns_no_paths(tmp_path: Path) -> None:
    missing = str(tmp_path / "opt" / "bin" / "srv")
    home, ws = _setup(tmp_path, {"crash": CRASH, "gone": {"command": missing}})
    ctx = _hctx(home, ws, remote=True)
    crash = await mcp_test(ctx, McpServerParams(server="crash"))
    assert crash.error and crash.error.endswith("; its log: GG_HOME/logs/mcp/crash.log")
    assert str(home) not in crash.error
    gone = await mcp_test(ctx, McpServerParams(server="gone"))
    assert gone.error and str(tmp_path) not in gone.error
    assert gone.error.startswith("command not found: …/srv")
