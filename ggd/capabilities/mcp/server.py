"""`ggd --mcp`: gg as an MCP server (stdio) with gg_ask, gg_sessions and gg_session_read.

It is a gg protocol client, not a second agent core: every call goes to the running daemon (or a
private `ggd --stdio` child) through gg/session.create, gg/run.start and gg/run.wait. Approvals
follow the non-interactive policy, unless the MCP client supports elicitation: then the run is
interactive and each approval_requested is asked through the client, answered with gg/run.approve.

The calling agent is another model, so it does not get to decide that nobody approves: an
`approvalMode` that allows writes and commands without asking (`yolo`, `never`) is refused as a
tool error unless the person who configured the server started it with `ggd --mcp --allow-yolo`.
This module imports the `mcp` SDK at the top; only `ggd --mcp` imports it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from ggd.app.ggclient import GgClient, GgRpcError, gg_home

TERMINAL = ("run_completed", "run_failed", "run_canceled")
WAIT_MS = 25_000
ApprovalMode = Literal["auto", "on-request", "yolo", "never"]
# Modes in which approval-gated calls run with nobody approving them (policy.py's table).
UNATTENDED_MODES = ("yolo", "never")


class ModeRefused(ToolError):
    """The calling agent asked for an approval mode this server may not grant."""


def check_mode(approval_mode: str | None, allow_yolo: bool) -> None:
    """Refuse a mode that lets nobody approve, unless the server was started to allow it."""
    if approval_mode in UNATTENDED_MODES and not allow_yolo:
        raise ModeRefused(
            f"approvalMode '{approval_mode}' runs writes and commands without anyone approving "
            "them, and the calling agent may not choose that; leave approvalMode out (approvals "
            "are asked through the MCP client, or denied), or have the user start the server as "
            "`ggd --mcp --allow-yolo`"
        )


class ApprovalAnswer(BaseModel):
    """What the MCP client's user answers to one gg approval."""

    allow: bool = Field(description="Allow this tool call?")


class Backend:
    """The one protocol connection `ggd --mcp` makes (opened on first use)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._client: GgClient | None = None
        self._lock = asyncio.Lock()

    async def client(self) -> GgClient:
        """The connection, opened (or reopened after it closed) on demand."""
        async with self._lock:
            if self._client is None:
                self._client = await GgClient.open(self.workspace, gg_home())
            return self._client

    async def request(self, method: str, params: dict[str, Any], within: float = 60.0) -> Any:
        """One gg request; a lost connection is reopened once."""
        client = await self.client()
        try:
            return await client.request(method, params, within)
        except ConnectionError:
            await self.aclose()
            client = await self.client()
            return await client.request(method, params, within)

    async def aclose(self) -> None:
        """Close the connection."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


def _can_elicit(ctx: Context) -> bool:
    try:
        caps = ctx.session.client_capabilities
    except Exception:
        return False
    return caps is not None and getattr(caps, "elicitation", None) is not None


async def ask(
    backend: Backend,
    prompt: str,
    session_id: str | None,
    approval_mode: str | None,
    ctx: Context | None,
) -> dict[str, Any]:
    """One run to its end: {answer, sessionId, runId, status}."""
    interactive = ctx is not None and _can_elicit(ctx)
    if session_id is None:
        created = await backend.request("gg/session.create", {"name": prompt[:60]})
        session_id = str(created["sessionId"])
    params: dict[str, Any] = {
        "sessionId": session_id,
        "prompt": prompt,
        "interactive": interactive,
        "subscribe": False,
    }
    if approval_mode:
        params["approvalMode"] = approval_mode
    run_id = str((await backend.request("gg/run.start", params))["runId"])
    after = 0
    while True:
        res = await backend.request(
            "gg/run.wait",
            {"runId": run_id, "afterSequence": after, "timeoutMs": WAIT_MS},
            within=WAIT_MS / 1000 + 30,
        )
        for ev in res.get("events", []):
            after = max(after, int(ev.get("sequence", 0)))
            kind = ev.get("type")
            if kind == "approval_requested" and interactive and ctx is not None:
                await _elicit_approval(backend, ctx, run_id, ev.get("approval") or {})
            elif kind in TERMINAL:
                answer = str(ev.get("content") or ev.get("error") or "")
                status = kind.removeprefix("run_")
                return {
                    "answer": answer,
                    "sessionId": session_id,
                    "runId": run_id,
                    "status": status,
                }
        if res.get("done") and not res.get("events"):
            return {"answer": "", "sessionId": session_id, "runId": run_id, "status": "ended"}


async def _elicit_approval(
    backend: Backend, ctx: Context, run_id: str, approval: dict[str, Any]
) -> None:
    message = f"gg wants to {approval.get('summary') or approval.get('toolName')}"
    details = approval.get("details")
    if details:
        message += f"\n\n{details}"
    try:
        result = await ctx.elicit(message, ApprovalAnswer)
        allow = result.action == "accept" and bool(getattr(result.data, "allow", False))
    except Exception:
        allow = False
    try:
        await backend.request(
            "gg/run.approve", {"runId": run_id, "approvalId": approval.get("id"), "allow": allow}
        )
    except GgRpcError:
        pass  # already answered by another client, or expired


def build_server(backend: Backend, allow_yolo: bool = False) -> MCPServer:
    """The MCP server with gg's three tools; `allow_yolo` lets callers pick yolo/never."""
    server: MCPServer = MCPServer(
        "gg",
        instructions="gg is a coding agent working in one workspace. gg_ask runs it on a prompt.",
    )

    @server.tool(
        description="Ask the gg coding agent to do something in its workspace; returns its final answer and the session id (pass it back to continue the conversation). approvalMode 'yolo' and 'never' are refused unless the server runs with --allow-yolo."
    )
    async def gg_ask(
        prompt: str,
        ctx: Context,
        sessionId: str | None = None,
        approvalMode: ApprovalMode | None = None,
    ) -> str:
        check_mode(approvalMode, allow_yolo)
        try:
            out = await ask(backend, prompt, sessionId, approvalMode, ctx)
        except GgRpcError as exc:
            raise ToolError(str(exc)) from None
        return json.dumps(out, ensure_ascii=False)

    @server.tool(description="List gg's sessions in this workspace, newest first.")
    async def gg_sessions() -> str:
        res = await backend.request("gg/session.list", {"limit": 50})
        return json.dumps(res.get("sessions", []), ensure_ascii=False)

    @server.tool(description="Read one gg session's messages by id.")
    async def gg_session_read(sessionId: str) -> str:
        try:
            snap = await backend.request("gg/session.open", {"sessionId": sessionId})
        except GgRpcError as exc:
            raise ToolError(str(exc)) from None
        messages = [
            {k: m[k] for k in ("role", "content", "toolName", "isError") if k in m}
            for m in snap.get("messages", [])
        ]
        return json.dumps(
            {"sessionId": snap.get("sessionId"), "name": snap.get("name"), "messages": messages},
            ensure_ascii=False,
        )

    return server


async def serve(workspace: Path, allow_yolo: bool = False) -> int:
    """Serve MCP on stdin/stdout until the client closes it."""
    backend = Backend(workspace)
    try:
        await build_server(backend, allow_yolo).run_stdio_async()
    finally:
        await backend.aclose()
    return 0


def main(workspace: Path | None, allow_yolo: bool = False) -> int:
    """Entry of `ggd --mcp` (`--allow-yolo`: callers may pick approvalMode yolo or never)."""
    import anyio

    root = (workspace or Path.cwd()).resolve()
    try:
        return int(anyio.run(serve, root, allow_yolo))
    except KeyboardInterrupt:
        return 130


__all__ = ["Backend", "ModeRefused", "ask", "build_server", "check_mode", "main", "serve"]
