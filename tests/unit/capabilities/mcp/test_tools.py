"""McpTool: every call is approval-gated with server, tool and arguments; unattended runs deny it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import mcp_types as types

from ggd.app.approvers import UnattendedApprover
from ggd.capabilities.mcp.config import ServerSpec, StdioServer
from ggd.capabilities.mcp.connection import Connection
from ggd.capabilities.mcp.tools import McpTool
from ggd.providers.types import ToolCall
from ggd.tools import ToolContext


def _tool(tmp_path: Path) -> McpTool:
    spec = ServerSpec("time", "home", StdioServer(command="x"), "f")
    remote = types.Tool(
        name="get_current_time",
        description="Get the time.",
        input_schema={"type": "object", "properties": {"timezone": {"type": "string"}}},
    )
    return McpTool("mcp_time_get_current_time", Connection(spec, tmp_path), remote, tmp_path, 5)


def test_the_approval_shows_server_tool_and_arguments(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    info = tool.describe({"timezone": "Etc/UTC"}, ToolContext(tmp_path, tmp_path))
    assert info.needs_approval and info.risk == "normal"
    assert info.details is not None
    assert "server: time" in info.details and "tool: get_current_time" in info.details
    assert '"timezone": "Etc/UTC"' in info.details
    assert tool.spec()["function"]["parameters"]["properties"] == {"timezone": {"type": "string"}}
    assert tool.description.startswith("[MCP server time, tool get_current_time]")


async def test_the_unattended_approver_denies_mcp_calls(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    info = tool.describe({}, ToolContext(tmp_path, tmp_path))
    call = ToolCall(id="c1", name=tool.name, arguments={})
    run: Any = SimpleNamespace(approval_mode="auto")  # a scheduled job's default
    denied = await UnattendedApprover().decide(run, call, tool, info)
    assert not denied.allow and tool.name in denied.reason
    assert (await UnattendedApprover(allow_all=True).decide(run, call, tool, info)).allow


async def test_a_call_on_a_closed_connection_is_a_tool_error(tmp_path: Path) -> None:
    import pytest

    from ggd.tools import ToolError

    with pytest.raises(ToolError, match="not connected"):
        await _tool(tmp_path).run({}, ToolContext(tmp_path, tmp_path))
