"""Server-to-client requests on one connection, and what the editor said it supports."""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from dataclasses import dataclass
from typing import Any

from ggd.rpc.connection import Connection


class ClientRequestError(Exception):
    """The client answered one of our requests with an error (or went away).

    `delivered` is False only when the request never left gg (the client was already gone).
    """

    def __init__(self, message: str, *, delivered: bool = True) -> None:
        super().__init__(message)
        self.delivered = delivered


@dataclass(frozen=True)
class EditorCaps:
    """The window capabilities of an LSP client that gg's editor commands use.

    `window.showMessage` is not read: every client is asked (ggd.rpc.editor.approver).
    `async_approvals` comes from `initializationOptions.asyncApprovals`.
    """

    work_done_progress: bool = False
    show_document: bool = False
    async_approvals: bool = False

    @classmethod
    def from_initialize(cls, capabilities: Any, options: Any = None) -> EditorCaps:
        """Read them from lsprotocol's structured ClientCapabilities and the options."""
        later = isinstance(options, dict) and options.get("asyncApprovals") is True
        window = getattr(capabilities, "window", None)
        if window is None:
            return cls(async_approvals=later)
        show_doc = getattr(window, "show_document", None)
        return cls(
            work_done_progress=bool(getattr(window, "work_done_progress", False)),
            show_document=bool(show_doc is not None and getattr(show_doc, "support", False)),
            async_approvals=later,
        )


class ClientRequests:
    """Requests gg sends to the client, matched to their responses by id.

    Kept apart from pygls' own request table: responses to these are plain JSON handed back
    as they came, so a client's malformed answer resolves the request instead of leaving it
    pending forever inside a failed cattrs conversion.
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._ids = itertools.count(1)
        self._pending: dict[str, asyncio.Future[Any]] = {}
        # Ids gg withdrew with $/cancelRequest: their late answers are expected, not strays.
        self._withdrawn: deque[str] = deque(maxlen=64)
        conn.on_close.append(lambda _c: self._fail_all())

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        """Send one request and wait for the client's result."""
        if self.conn.closed:
            raise ClientRequestError("the client is gone", delivered=False)
        msg_id = f"gg-{next(self._ids)}"
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        msg = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        if not self.conn.send_raw(self.conn.encode(msg)):
            self._pending.pop(msg_id, None)
            raise ClientRequestError("the client is not reading", delivered=False)
        try:
            return await fut
        except asyncio.CancelledError:
            # LSP's way to withdraw a request: the client stops its work (kills a terminal).
            # The task's cancel cancels fut too; only an answer already in means no need.
            if fut.cancelled() or not fut.done():
                self._withdrawn.append(msg_id)
                self.conn.notify("$/cancelRequest", {"id": msg_id}, droppable=False)
            raise
        finally:
            self._pending.pop(msg_id, None)

    def answer(self, data: dict[str, Any]) -> bool:
        """Resolve the request a response belongs to; False when it is not one of ours."""
        msg_id = data.get("id")
        fut = self._pending.pop(msg_id, None) if isinstance(msg_id, str) else None
        if fut is None:
            if isinstance(msg_id, str) and msg_id in self._withdrawn:
                self._withdrawn.remove(msg_id)
                return True
            return False
        if not fut.done():
            if "error" in data:
                err = data["error"]
                text = err.get("message") if isinstance(err, dict) else None
                fut.set_exception(ClientRequestError(str(text or "the client answered an error")))
            else:
                fut.set_result(data.get("result"))
        return True

    def _fail_all(self) -> None:
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(ClientRequestError("the client disconnected"))
        self._pending.clear()
