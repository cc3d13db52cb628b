"""`ggd --acp`: the ACP agent methods, each a few gg protocol calls on the one runtime."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggd.adapters.ggclient import GgClient, GgRpcError, RequestHandler, gg_home

from . import mapping
from .bridge import Bridge, Terminals, client_tools, terminal_content
from .images import staged
from .params import mcp_servers, session_id_of, workspace_of
from .wire import AcpError, Connection, PeerError

log = logging.getLogger("ggd.acp")

PROTOCOL_VERSION = 1
WAIT_MS = 25_000
TERMINAL = ("run_completed", "run_failed", "run_canceled")
NOT_FOUND = -32002  # ACP's resource-not-found


@dataclass
class AcpSession:
    """One ACP session: a gg session bound to a workspace, its mode and the run in flight."""

    session_id: str
    workspace: Path
    mode: str = "auto"
    run_id: str | None = None
    canceled: bool = False
    cancel_event: asyncio.Event = field(default_factory=asyncio.Event)
    terms: Terminals = field(default_factory=Terminals)


class GgBackends:
    """One gg protocol connection per workspace (gg binds a connection to its root)."""

    def __init__(self, on_request: RequestHandler | None = None) -> None:
        self._clients: dict[Path, GgClient] = {}
        self._lock = asyncio.Lock()
        self._on_request = on_request  # ggd's gg/client.* requests for runs we started

    async def request(
        self, workspace: Path, method: str, params: dict[str, Any], within: float = 60.0
    ) -> Any:
        """One gg request in a workspace; a lost connection is reopened once."""
        for attempt in (0, 1):
            client = await self._client(workspace)
            try:
                return await client.request(method, params, within)
            except ConnectionError:
                await self._drop(workspace)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _client(self, workspace: Path) -> GgClient:
        async with self._lock:
            if workspace not in self._clients:
                self._clients[workspace] = await GgClient.open(
                    workspace, gg_home(), "ggd --acp", self._on_request
                )
            return self._clients[workspace]

    async def _drop(self, workspace: Path) -> None:
        async with self._lock:
            client = self._clients.pop(workspace, None)
        if client is not None:
            await client.aclose()

    async def aclose(self) -> None:
        """Close every connection (and stop private children)."""
        for ws in list(self._clients):
            await self._drop(ws)


class GgAgent:
    """The ACP agent side: answers the client's requests by driving ggd."""

    def __init__(self) -> None:
        self.conn: Connection | None = None
        self.bridge = Bridge(self._connection, self._run_session, self._update)
        self.backends = GgBackends(self.bridge.serve)
        self.sessions: dict[str, AcpSession] = {}
        self.client_caps: dict[str, Any] = {}

    def _connection(self) -> Connection:
        assert self.conn is not None
        return self.conn

    def _run_session(self, run_id: str) -> tuple[str, Terminals] | None:
        s = next((s for s in self.sessions.values() if s.run_id == run_id), None)
        return None if s is None else (s.session_id, s.terms)

    # -- dispatch ---------------------------------------------------------------------------

    async def on_request(self, method: str, params: Any) -> Any:
        """Route one client request."""
        if not isinstance(params, dict):
            raise AcpError(-32602, "params must be an object")
        handler = _METHODS.get(method)
        if handler is None:
            raise AcpError(-32601, f"Method not found: {method}")
        try:
            return await handler(self, params)
        except GgRpcError as exc:
            raise AcpError(-32603 if exc.code is None else int(exc.code), str(exc)) from None
        except (ConnectionError, OSError):
            raise AcpError(
                -32603, "gg lost its connection to ggd; see `gg daemon logs`, then retry"
            ) from None

    async def on_notification(self, method: str, params: Any) -> None:
        """Route one client notification (session/cancel)."""
        if method == "session/cancel" and isinstance(params, dict):
            await self.cancel(params)

    def _update(self, sid: str, update: dict[str, Any]) -> None:
        assert self.conn is not None
        self.conn.notify("session/update", {"sessionId": sid, "update": update})

    def _session(self, params: dict[str, Any]) -> AcpSession:
        sid = session_id_of(params)
        s = self.sessions.get(sid)
        if s is None:
            raise AcpError(NOT_FOUND, "Unknown session: create it with session/new or session/load")
        return s

    def _modes(self, s: AcpSession) -> dict[str, Any]:
        return {"currentModeId": s.mode, "availableModes": mapping.MODES}

    # -- methods ----------------------------------------------------------------------------

    async def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        """Version negotiation: the client's version if we speak it, else ours."""
        self.client_caps = dict(params.get("clientCapabilities") or {})
        asked = params.get("protocolVersion")
        version = (
            asked if isinstance(asked, int) and 1 <= asked <= PROTOCOL_VERSION else PROTOCOL_VERSION
        )
        from ggd import __version__

        return {
            "protocolVersion": version,
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "mcpCapabilities": {"http": True, "sse": False},
                "sessionCapabilities": {"resume": {}},
            },
            "agentInfo": {"name": "gg", "title": "gg", "version": __version__},
            "authMethods": [],
        }

    async def new_session(self, params: dict[str, Any]) -> dict[str, Any]:
        """session/new: a gg session in the folder cwd names."""
        ws = workspace_of(params)
        servers = mcp_servers(params)
        created = await self.backends.request(ws, "gg/session.create", {})  # named by prompt 1
        s = AcpSession(str(created["sessionId"]), ws)
        await self._set_mcp(s, servers)
        self.sessions[s.session_id] = s
        return {"sessionId": s.session_id, "modes": self._modes(s)}

    async def _attach(self, params: dict[str, Any]) -> tuple[AcpSession, dict[str, Any]]:
        ws, sid = workspace_of(params), session_id_of(params)
        servers = mcp_servers(params)
        try:
            snap = await self.backends.request(ws, "gg/session.open", {"sessionId": sid})
        except GgRpcError as exc:
            raise AcpError(NOT_FOUND, f"No gg session {sid} in this folder ({exc})") from None
        s = self.sessions.get(sid) or AcpSession(sid, ws)
        await self._set_mcp(s, servers, replace=True)
        self.sessions[sid] = s
        return s, dict(snap)

    async def _set_mcp(
        self, s: AcpSession, servers: list[dict[str, Any]], replace: bool = False
    ) -> None:
        # The MCP capability owns the servers: it connects them on the session's next turn and
        # closes them with it. session/load and resume replace the list (an editor that now
        # sends none clears what an earlier adapter set); session/new skips an empty one.
        if not servers and not replace:
            return
        params = {"sessionId": s.session_id, "servers": servers}
        try:
            await self.backends.request(s.workspace, "gg/mcp.session.set", params)
        except GgRpcError:
            if servers:
                raise
            log.debug("ggd --acp: could not clear the session's MCP servers", exc_info=True)

    async def load_session(self, params: dict[str, Any]) -> dict[str, Any]:
        """session/load: replay the conversation as session/update, then answer."""
        s, snap = await self._attach(params)
        messages = list(snap.get("messages") or [])
        images: dict[str, dict[str, Any]] = {}
        for image_id in mapping.user_image_ids(messages):
            try:
                got = await self.backends.request(
                    s.workspace, "gg/image.get", {"imageId": image_id}
                )
            except GgRpcError:
                continue  # gone from the store: the text is replayed without it
            images[image_id] = {"type": "image", "data": got["data"], "mimeType": got["mimeType"]}
        sid = s.session_id
        for update in mapping.history(s.workspace, messages, images):
            self._update(s.session_id, update)
        with contextlib.suppress(GgRpcError):  # the current todo list, as the editor's plan
            res = await self.backends.request(s.workspace, "gg/session.todos", {"sessionId": sid})
            if res.get("todos"):
                self._update(s.session_id, mapping.plan(list(res["todos"])))
        return {"modes": self._modes(s)}

    async def resume_session(self, params: dict[str, Any]) -> dict[str, Any]:
        """session/resume: attach without replaying history."""
        s, _ = await self._attach(params)
        return {"modes": self._modes(s)}

    async def set_mode(self, params: dict[str, Any]) -> dict[str, Any]:
        """session/set_mode: the gg approval mode for the session's next runs."""
        s = self._session(params)
        mode = params.get("modeId")
        if mode not in mapping.MODE_IDS:
            raise AcpError(-32602, f"Unknown mode; use one of {sorted(mapping.MODE_IDS)}")
        s.mode = str(mode)
        return {}

    async def cancel(self, params: dict[str, Any]) -> None:
        """session/cancel: stop the run in flight (its prompt answers stopReason cancelled)."""
        s = self.sessions.get(str(params.get("sessionId")))
        if s is None or s.run_id is None:
            return
        s.canceled = True
        s.cancel_event.set()
        with contextlib.suppress(GgRpcError, ConnectionError):
            await self.backends.request(s.workspace, "gg/run.cancel", {"runId": s.run_id})

    async def prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        """session/prompt: one gg run, streamed as session/update until it ends."""
        s = self._session(params)
        if s.run_id is not None:
            raise AcpError(-32602, "This session is already answering a prompt; cancel it first")
        text = mapping.prompt_text(params.get("prompt"))
        if not text.strip():
            raise AcpError(-32602, "The prompt has no text")
        start = {
            "sessionId": s.session_id,
            "prompt": text,
            "interactive": True,
            "subscribe": False,
            "approvalMode": s.mode,
        }
        tools = client_tools(self.client_caps)
        if tools is not None:  # ggd asks us (gg/client.*) and we ask the editor (fs/*, terminal/*)
            start["clientTools"] = tools
        s.terms = Terminals()
        s.canceled = False
        s.cancel_event.clear()
        with staged(mapping.prompt_images(params.get("prompt"))) as images:
            if images:  # stored by ggd before it answers: the staged files may go after
                start["images"] = images
            res = await self.backends.request(s.workspace, "gg/run.start", start)
        run_id = str(res["runId"])
        s.run_id = run_id
        try:
            return await self._follow(s, run_id)
        except asyncio.CancelledError:
            # The editor went away mid-prompt: a run on a shared daemon must not outlive it.
            with contextlib.suppress(Exception):
                await self.backends.request(s.workspace, "gg/run.cancel", {"runId": run_id}, 10)
            raise
        finally:
            s.run_id = None

    async def _follow(self, s: AcpSession, run_id: str) -> dict[str, Any]:
        after = 0
        while True:
            res = await self.backends.request(
                s.workspace,
                "gg/run.wait",
                {"runId": run_id, "afterSequence": after, "timeoutMs": WAIT_MS},
                within=WAIT_MS / 1000 + 30,
            )
            for ev in res.get("events", []):
                after = max(after, int(ev.get("sequence", 0)))
                kind = ev.get("type")
                update = mapping.event_update(s.workspace, ev)
                if update is not None:
                    self._update(s.session_id, self._with_terminal(s, update))
                if kind == "approval_requested":
                    await self._permission(s, run_id, dict(ev.get("approval") or {}))
                elif kind in TERMINAL:
                    reason = mapping.stop_reason(ev)
                    if reason is None:
                        raise AcpError(-32603, str(ev.get("error") or "the run failed"))
                    return {"stopReason": "cancelled" if s.canceled else reason}
            if res.get("done") and not res.get("events"):
                return {"stopReason": "cancelled" if s.canceled else "end_turn"}

    async def _permission(self, s: AcpSession, run_id: str, approval: dict[str, Any]) -> None:
        """Ask the client (session/request_permission) and answer gg/run.approve."""
        assert self.conn is not None
        call_id = str(approval.get("toolCallId") or approval.get("id"))
        name, args = str(approval.get("toolName")), dict(approval.get("arguments") or {})
        title = str(approval.get("summary") or "")
        if approval.get("agent"):  # a subagent asks: say which (it runs in a child session)
            title = f"[{approval['agent']}] {title or name}"
        call = mapping.tool_call(
            s.workspace,
            call_id,
            name,
            title,
            args,
            "pending",
            await self._buffer(s, name, args),
        )
        options = [
            {"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
            {"optionId": "allow_always", "name": "Allow for this session", "kind": "allow_always"},
            {"optionId": "reject_once", "name": "Deny", "kind": "reject_once"},
        ]
        ask = asyncio.ensure_future(
            self.conn.request(
                "session/request_permission",
                {"sessionId": s.session_id, "toolCall": call, "options": options},
            )
        )
        canceled = asyncio.ensure_future(s.cancel_event.wait())
        # A cancel ends the wait even if the client never answers the permission request.
        await asyncio.wait({ask, canceled}, return_when=asyncio.FIRST_COMPLETED)
        canceled.cancel()
        choice = None
        if ask.done() and not ask.cancelled() and ask.exception() is None:
            outcome = (ask.result() or {}).get("outcome") or {}
            choice = outcome.get("optionId") if outcome.get("outcome") == "selected" else None
        else:
            ask.cancel()
            with contextlib.suppress(BaseException):
                await ask
        allow = choice in ("allow_once", "allow_always")
        answer: dict[str, Any] = {"runId": run_id, "approvalId": approval.get("id"), "allow": allow}
        if choice == "allow_always":
            answer["scope"] = "session"
        with contextlib.suppress(GgRpcError):  # answered elsewhere, or the run ended
            await self.backends.request(s.workspace, "gg/run.approve", answer)

    async def _buffer(self, s: AcpSession, name: str, args: dict[str, Any]) -> str | None:
        """The editor's text of the file an edit changes, so its diff is against what it shows."""
        fs = self.client_caps.get("fs") or {}
        path = mapping.file_path(s.workspace, args.get("path"))
        if name not in mapping.EDIT_TOOLS or path is None or not fs.get("readTextFile"):
            return None
        if not await asyncio.to_thread(os.path.isfile, path):
            return None  # a new file: editors answer a read of it with an error
        assert self.conn is not None
        try:
            res = await self.conn.request(
                "fs/read_text_file", {"sessionId": s.session_id, "path": path}, 30
            )
        except (PeerError, ConnectionError, TimeoutError):
            return None  # the diff is then the disk's, as gg's own fallback reads it
        content = (res or {}).get("content")
        return content if isinstance(content, str) else None

    def _with_terminal(self, s: AcpSession, update: dict[str, Any]) -> dict[str, Any]:
        """Keep a bash call's editor terminal in its tool card, from first show to its end."""
        call = str(update.get("toolCallId") or "")
        if not call:
            return update
        if update.get("sessionUpdate") == "tool_call":
            s.terms.announced.add(call)
        tid = s.terms.by_call.get(call)
        if tid is not None:
            update["content"] = [terminal_content(tid), *(update.get("content") or [])]
        return update


_METHODS: dict[str, Any] = {
    "initialize": GgAgent.initialize,
    "session/new": GgAgent.new_session,
    "session/load": GgAgent.load_session,
    "session/resume": GgAgent.resume_session,
    "session/set_mode": GgAgent.set_mode,
    "session/prompt": GgAgent.prompt,
    "authenticate": lambda self, params: _empty(),
}


async def _empty() -> dict[str, Any]:
    return {}


async def serve() -> int:
    """Serve ACP on stdin/stdout until the client closes it."""
    from .wire import stdio

    agent = GgAgent()
    reader, write = await stdio()
    agent.conn = Connection(reader, write, agent.on_request, agent.on_notification)
    try:
        await agent.conn.serve()
    finally:
        await agent.backends.aclose()
    return 0


def main() -> int:
    """Entry of `ggd --acp`."""
    try:
        return asyncio.run(serve())
    except KeyboardInterrupt:
        return 130


__all__ = ["GgAgent", "main", "serve"]
