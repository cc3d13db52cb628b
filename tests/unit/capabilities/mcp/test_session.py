"""gg/mcp.session.set: a session's own servers, local connections only, connected by its builds."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ggd.app import HandlerContext, SessionContext, Workspace
from ggd.capabilities.mcp.config import McpSection
from ggd.capabilities.mcp.handlers import mcp_session_set
from ggd.capabilities.mcp.protocol import McpSessionSetParams
from ggd.capabilities.mcp.provider import McpProvider, McpState
from ggd.protocol import errors as E

TIME = {"name": "time", "command": sys.executable, "args": ["-m", "mcp_server_time"]}


# The capability's per-daemon state, shared by its handler and its provider (as the registry
# hands one McpState to both in a daemon).
STATE: dict[Path, McpState] = {}


def _state(home: Path) -> McpState:
    return STATE.setdefault(home, McpState())


def _hctx(home: Path, ws: Workspace, remote: bool = False) -> HandlerContext:
    services: Any = SimpleNamespace(home=home)
    return HandlerContext(
        services=services,
        workspace=ws,
        config=None,
        notify=lambda *_: True,
        remote=remote,
        own_state=_state(home),
    )


def _set(sid: str, *servers: dict[str, Any]) -> McpSessionSetParams:
    return McpSessionSetParams.model_validate({"sessionId": sid, "servers": list(servers)})


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    return Workspace("w_1", "ws", tmp_path / "ws")


async def test_a_remote_connection_is_refused(tmp_path: Path, ws: Workspace) -> None:
    home = tmp_path / "home"
    with pytest.raises(E.CapabilityUnavailableError) as err:
        await mcp_session_set(_hctx(home, ws, remote=True), _set("s_r", TIME))
    assert "remote" in str(err.value)
    # Nothing was registered: the provider stays absent.
    scope = SessionContext(home=home, workspace=ws, session_id="s_r")
    assert McpProvider(home, McpSection(), lambda: _state(home)).available(scope) is not None


async def test_bad_servers_get_typed_errors(tmp_path: Path, ws: Workspace) -> None:
    ctx = _hctx(tmp_path / "home", ws)
    with pytest.raises(E.InvalidParamsError, match="twice"):
        await mcp_session_set(ctx, _set("s_b", TIME, TIME))
    with pytest.raises(E.InvalidParamsError, match="either command"):
        await mcp_session_set(ctx, _set("s_b", {"name": "x", "command": "a", "url": "http://h"}))


async def test_session_servers_connect_for_that_session_only_and_close(
    tmp_path: Path, ws: Workspace
) -> None:
    home = tmp_path / "home"
    # A configured server keeps its name against a session's server of the same name.
    (home / "mcp.json").write_text(json.dumps({"servers": {"clock": {"command": "gg-nope"}}}))
    got = await mcp_session_set(
        _hctx(home, ws), _set("s_1", TIME, {**TIME, "name": "clock", "command": sys.executable})
    )
    assert got.servers == ["clock", "time"]
    provider = McpProvider(home, McpSection(list_timeout_seconds=20), lambda: _state(home))
    stack = contextlib.AsyncExitStack()
    state: dict[str, Any] = {}
    ctx = SessionContext(home=home, workspace=ws, session_id="s_1", resources=stack, state=state)
    assert provider.available(ctx) is None
    contrib = await provider.build(ctx)
    names = sorted(t.name for t in contrib.tools)
    assert names == ["mcp_time_convert_time", "mcp_time_get_current_time"]
    assert "clock" in contrib.degraded  # the configured (broken) one, not the session's
    conn = state["pool"].entries["time"].conn
    # Memoized: a second build reuses the connection.
    await provider.build(ctx)
    assert state["pool"].entries["time"].conn is conn
    # Another session sees none of them.
    other = SessionContext(home=home, workspace=ws, session_id="s_2")
    assert [t.name for t in (await provider.build(other)).tools] == []
    # Clearing the list closes the connection on the next build.
    await mcp_session_set(_hctx(home, ws), _set("s_1"))
    assert (await provider.build(ctx)).tools == []
    assert conn.dead and "time" not in state["pool"].entries
    await stack.aclose()
    await other.resources.aclose()
