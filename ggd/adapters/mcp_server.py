"""`ggd --mcp`: gg as an MCP server (stdio) with gg_ask, gg_sessions and gg_session_read.

It is a gg protocol client, not a second agent core: every call goes to the running daemon (or a
private `ggd --stdio` child) through gg/session.create, gg/run.start and gg/run.wait. Approvals
follow the non-interactive policy, unless the MCP client supports elicitation: then the run is
interactive and each approval_requested is asked through the client, answered with gg/run.approve.
The calling agent is another model, so it does not get to decide that nobody approves: an
`approvalMode` that allows writes and commands without asking (`yolo`, `never`) is refused as a
tool error unless the person who configured the server started it with `ggd --mcp --allow-yolo`.
A gg_ask the client cancels (notifications/cancelled), or that is still running when the client
goes away, is canceled on the daemon: nobody is left to read its answer.
Tools return structured content (their output schema is the models below); failures are the
SDK's `ToolError`, so the client reads gg's message. Sessions are also resources
(`gg://sessions`, `gg://session/{sessionId}`) and a prompt (`gg_session`).
This module imports the `mcp` SDK at the top; only `ggd --mcp` imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import BaseModel, Field

from ggd import __version__
from ggd.adapters.ggclient import GgClient, GgRpcError, gg_home

TERMINAL = ("run_completed", "run_failed", "run_canceled")
WAIT_MS = 25_000
ApprovalMode = Literal["auto", "on-request", "yolo", "never", "plan"]
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


class AskResult(BaseModel):
    """gg_ask's structured result."""

    answer: str = Field(description="The agent's final answer (or the run's error).")
    sessionId: str = Field(description="Pass it back to gg_ask to continue the conversation.")
    runId: str
    status: str = Field(description="completed, failed, canceled or ended.")


class SessionItem(BaseModel):
    """One session of the workspace."""

    id: str
    name: str
    updatedAt: Any = None
    messageCount: int = 0
    preview: str = ""


class SessionList(BaseModel):
    """gg_sessions' structured result."""

    sessions: list[SessionItem]


class SessionMessage(BaseModel):
    """One message of a session, as gg_session_read shows it."""

    role: str
    content: Any = None
    toolName: str | None = None
    isError: bool | None = None


class SessionRead(BaseModel):
    """gg_session_read's structured result."""

    sessionId: str
    name: str
    messages: list[SessionMessage]


class Backend:
    """The one protocol connection `ggd --mcp` makes (opened on first use)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._client: GgClient | None = None
        self._lock = asyncio.Lock()
        self.running: set[str] = set()  # runs gg_ask started and still waits on

    async def cancel_run(self, run_id: str) -> None:
        """Cancel one run on the daemon, even from inside a cancelled scope (bounded)."""
        with anyio.move_on_after(10, shield=True):
            try:
                await self.request("gg/run.cancel", {"runId": run_id}, within=10)
            except (GgRpcError, ConnectionError, OSError, TimeoutError):
                pass  # already over, or the daemon is gone (and the run with it)

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

    async def cancel_all(self) -> None:
        """Cancel every run a gg_ask still waits on (its client is gone)."""
        for run_id in list(self.running):
            await self.cancel_run(run_id)

    async def aclose(self) -> None:
        """Cancel the runs nobody will wait for any more, then close the connection."""
        await self.cancel_all()
        self.running.clear()
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
    # Shielded: a cancel arriving while the run starts would otherwise leave it unknown here,
    # and running on the daemon; it is delivered at the next await, inside the try below.
    with anyio.CancelScope(shield=True):
        run_id = str((await backend.request("gg/run.start", params))["runId"])
        backend.running.add(run_id)
    try:
        return await _follow(backend, run_id, session_id, interactive, ctx)
    except BaseException:
        # Cancelled by the client (notifications/cancelled), or the server is going away.
        await backend.cancel_run(run_id)
        raise
    finally:
        backend.running.discard(run_id)


async def _follow(
    backend: Backend, run_id: str, session_id: str, interactive: bool, ctx: Context | None
) -> dict[str, Any]:
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


def _tool_error(exc: GgRpcError) -> ToolError:
    """gg's message as the MCP tool error the client shows (`no session with id ...`)."""
    return ToolError(str(exc))


async def _read_session(backend: Backend, session_id: str) -> SessionRead:
    snap = await backend.request("gg/session.open", {"sessionId": session_id})
    messages = [
        SessionMessage.model_validate(
            {k: m[k] for k in ("role", "content", "toolName", "isError") if k in m}
        )
        for m in snap.get("messages", [])
    ]
    return SessionRead(
        sessionId=str(snap.get("sessionId")), name=str(snap.get("name") or ""), messages=messages
    )


async def _list_sessions(backend: Backend) -> SessionList:
    res = await backend.request("gg/session.list", {"limit": 50})
    fields = SessionItem.model_fields
    return SessionList(
        sessions=[
            SessionItem.model_validate({k: v for k, v in s.items() if k in fields})
            for s in res.get("sessions", [])
        ]
    )


def build_server(backend: Backend, allow_yolo: bool = False) -> MCPServer:
    """The MCP server with gg's three tools, its sessions as resources, and one prompt.

    `allow_yolo` lets callers pick approvalMode yolo/never.
    """
    server: MCPServer = MCPServer(
        "gg",
        instructions="gg is a coding agent working in one workspace. gg_ask runs it on a prompt.",
        version=__version__,
    )
    _add_tools(server, backend, allow_yolo)
    _add_resources(server, backend)
    _add_prompt(server, backend)
    return server


def _add_tools(server: MCPServer, backend: Backend, allow_yolo: bool) -> None:
    """gg_ask, gg_sessions and gg_session_read; a daemon error is the tool's error."""

    @server.tool(
        description="Ask the gg coding agent to do something in its workspace; returns its final answer and the session id (pass it back to continue the conversation). approvalMode 'yolo' and 'never' are refused unless the server runs with --allow-yolo."
    )
    async def gg_ask(
        prompt: str,
        ctx: Context,
        sessionId: str | None = None,
        approvalMode: ApprovalMode | None = None,
    ) -> AskResult:
        check_mode(approvalMode, allow_yolo)
        try:
            out = await ask(backend, prompt, sessionId, approvalMode, ctx)
        except GgRpcError as exc:
            raise _tool_error(exc) from None
        return AskResult.model_validate(out)

    @server.tool(description="List gg's sessions in this workspace, newest first.")
    async def gg_sessions() -> SessionList:
        try:
            return await _list_sessions(backend)
        except GgRpcError as exc:
            raise _tool_error(exc) from None

    @server.tool(description="Read one gg session's messages by id.")
    async def gg_session_read(sessionId: str) -> SessionRead:
        try:
            return await _read_session(backend, sessionId)
        except GgRpcError as exc:
            raise _tool_error(exc) from None


def _add_resources(server: MCPServer, backend: Backend) -> None:
    """gg://sessions and gg://session/{sessionId} as JSON."""

    @server.resource(
        "gg://sessions",
        name="sessions",
        description="gg's sessions in this workspace, newest first (JSON).",
        mime_type="application/json",
    )
    async def sessions_resource() -> str:
        try:
            return (await _list_sessions(backend)).model_dump_json()
        except GgRpcError as exc:
            raise ResourceError(str(exc)) from None

    @server.resource(
        "gg://session/{sessionId}",
        name="session",
        description="One gg session's messages (JSON).",
        mime_type="application/json",
    )
    async def session_resource(sessionId: str) -> str:
        try:
            return (await _read_session(backend, sessionId)).model_dump_json()
        except GgRpcError as exc:
            raise ResourceError(str(exc)) from None


def _add_prompt(server: MCPServer, backend: Backend) -> None:
    """gg_session: a session's text messages brought into the caller's chat."""

    @server.prompt(
        name="gg_session",
        description="Bring a gg session's conversation into this chat (its text messages).",
    )
    async def gg_session(sessionId: str) -> list[dict[str, Any]]:
        try:
            read = await _read_session(backend, sessionId)
        except GgRpcError as exc:
            raise ValueError(str(exc)) from None
        out: list[dict[str, Any]] = []
        for m in read.messages:
            if m.role in ("user", "assistant") and isinstance(m.content, str) and m.content:
                out.append({"role": m.role, "content": {"type": "text", "text": m.content}})
        return out


def _pump(src: int, dst: int) -> None:
    """Copy src to dst until src ends, then close dst (blocking: runs in a thread)."""
    try:
        while data := os.read(src, 65536):
            view = memoryview(data)
            while view:
                view = view[os.write(dst, view) :]
    except OSError:
        pass
    finally:
        os.close(dst)


async def serve(workspace: Path, allow_yolo: bool = False) -> int:
    """Serve MCP on stdin/stdout until the client closes it.

    The SDK waits for its tool calls before it returns on EOF, and a gg_ask waits for its run:
    so stdin reaches the SDK through a pipe, and the real stdin's end cancels the runs first.
    """
    backend = Backend(workspace)
    client_in = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)

    loop, eof = asyncio.get_running_loop(), asyncio.Event()

    def pump() -> None:
        _pump(client_in, write_end)
        with contextlib.suppress(RuntimeError):  # the loop already closed: nothing to cancel
            loop.call_soon_threadsafe(eof.set)

    # A daemon thread: a read blocked on a stdin that never ends must not hold the exit.
    threading.Thread(target=pump, name="mcp-stdin", daemon=True).start()

    async def client_gone() -> None:
        await eof.wait()
        await backend.cancel_all()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client_gone)
            await build_server(backend, allow_yolo).run_stdio_async()
            tg.cancel_scope.cancel()
    finally:
        await backend.aclose()
    return 0


def main(workspace: Path | None, allow_yolo: bool = False) -> int:
    """Entry of `ggd --mcp` (`--allow-yolo`: callers may pick approvalMode yolo or never)."""
    root = (workspace or Path.cwd()).resolve()
    try:
        return int(anyio.run(serve, root, allow_yolo))
    except KeyboardInterrupt:
        return 130


__all__ = [
    "AskResult",
    "Backend",
    "ModeRefused",
    "SessionList",
    "SessionRead",
    "ask",
    "build_server",
    "check_mode",
    "main",
    "serve",
]
