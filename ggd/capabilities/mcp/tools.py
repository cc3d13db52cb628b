"""An MCP server's tool as a gg tool: approval-gated, named `mcp_<server>_<tool>`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .connection import Connection, ServerProblem
from .results import convert
from .schema import adapt_schema

_DESCRIPTION_LIMIT = 1024
_ARGS_PREVIEW = 120


class McpTool(Tool):
    """One tool of a connected MCP server (deferred: tool_search loads it)."""

    deferred = True

    def __init__(
        self, name: str, conn: Connection, remote: Any, home: Path, call_timeout: float
    ) -> None:
        self.name = name
        self.conn = conn
        self.server = conn.spec.name
        self.defer_group = f"mcp server {self.server}"  # a server's tools go up front together
        self.remote_name = str(remote.name)
        desc = (getattr(remote, "description", None) or "").strip()
        self.description = f"[MCP server {self.server}, tool {self.remote_name}] {desc}"[
            :_DESCRIPTION_LIMIT
        ]
        self.parameters = adapt_schema(getattr(remote, "input_schema", None))
        self.home = home
        self.call_timeout = call_timeout

    def summary(self, args: dict[str, Any]) -> str:
        """`<server>: <tool> {args}`, shortened."""
        preview = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        if len(preview) > _ARGS_PREVIEW:
            preview = preview[: _ARGS_PREVIEW - 1] + "…"
        return f"{self.server}: {self.remote_name} {preview}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Every MCP call needs approval: it runs code gg does not know."""
        return ApprovalInfo(
            summary=f"MCP server {self.server}: call {self.remote_name}",
            risk="normal",
            risk_reason=f"calls tool {self.remote_name} of MCP server {self.server}",
            needs_approval=True,
            details=(
                f"server: {self.server}\ntool: {self.remote_name}\narguments:\n"
                + json.dumps(args, ensure_ascii=False, indent=2)
            ),
            extra={"server": self.server, "tool": self.remote_name, "arguments": args},
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Call the server; protocol errors and isError become tool errors."""
        try:
            result = await self.conn.call(self.remote_name, args, within=self.call_timeout)
        except ServerProblem as exc:
            raise ToolError(f"MCP server {self.server}: {exc}") from None
        return await asyncio.to_thread(convert, self.home, self.server, self.remote_name, result)


__all__ = ["McpTool"]
