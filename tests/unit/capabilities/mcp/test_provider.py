"""McpProvider.build: per-server degradation, memoized connections, closed with the session."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ggd.app import SessionContext, Workspace
from ggd.capabilities.mcp.config import McpSection
from ggd.capabilities.mcp.provider import McpProvider

TIME = Path(sys.executable).parent / "mcp-server-time"
FAKES = Path(__file__).parents[3] / "fakes"


def _ctx(
    tmp_path: Path, stack: contextlib.AsyncExitStack, state: dict[str, object]
) -> SessionContext:
    ws = Workspace("w_1", "ws", tmp_path / "ws")
    return SessionContext(
        home=tmp_path / "home", workspace=ws, session_id="s", resources=stack, state=state
    )


async def test_build_degrades_per_server_memoizes_and_closes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (tmp_path / "ws").mkdir()
    home.mkdir()
    servers = {
        "time": {"command": str(TIME)},
        "bad": {"command": "gg-no-such-server"},
        "exits": {"command": sys.executable, "args": [str(FAKES / "mcp_exit_on_init.py")]},
        "unset": {"command": str(TIME), "env": {"K": "${GG_SURELY_UNSET_VAR}"}},
    }
    (home / "mcp.json").write_text(json.dumps({"servers": servers}))
    provider = McpProvider(home, McpSection(list_timeout_seconds=20))
    stack = contextlib.AsyncExitStack()
    state: dict[str, object] = {}
    ctx = _ctx(tmp_path, stack, state)
    assert provider.available(ctx) is None
    first = await provider.build(ctx)
    assert sorted(t.name for t in first.tools) == [
        "mcp_time_convert_time",
        "mcp_time_get_current_time",
    ]
    assert set(first.degraded) == {"bad", "exits", "unset"}
    assert first.degraded["unset"] == "environment variable GG_SURELY_UNSET_VAR is not set"
    conn = first.tools[0].conn  # type: ignore[attr-defined]
    # The second turn reuses the live connection and does not retry the broken servers.
    second = await provider.build(ctx)
    assert second.tools[0].conn is conn  # type: ignore[attr-defined]
    assert second.degraded == first.degraded
    # Closing the session's resources stops the server.
    await stack.aclose()
    assert conn.dead
    # No mcp.json anywhere: quietly absent.
    (home / "mcp.json").unlink()
    assert provider.available(ctx) == "no MCP servers configured"
