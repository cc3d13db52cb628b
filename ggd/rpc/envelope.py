"""The one gate every parsed message passes before pygls: ids, shape, method table, lifecycle.

pygls trusts its input: an object id reached cattrs and came back as -32603 with a traceback,
NaN ids were echoed, `textDocument/*` requests met its built-in document sync, and after
`shutdown` every message was dropped without a word. Everything a client can get wrong about
the envelope is decided here, so what reaches pygls is a well-formed message it can answer.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from ggd.protocol import errors as E

from .connection import Connection
from .handshake import Handshake

# JSON-RPC allows any number; gg answers ids a JavaScript client can represent exactly, and
# bounds string ids so an error reply never echoes megabytes.
MAX_INT_ID = 2**53 - 1
MAX_STR_ID = 256
_MAX_SHOWN_METHOD = 80

# Client-to-server methods outside gg/*: the LSP lifecycle, and the editor commands of plain
# LSP clients (gg.ask & co., ggd.rpc.editor) with their progress' cancel button, and document
# sync (open, change, close: pygls keeps the buffers, gg.askAboutSelection reads unsaved text).
LSP_REQUESTS = frozenset({lsp.INITIALIZE, lsp.SHUTDOWN, lsp.WORKSPACE_EXECUTE_COMMAND})
LSP_NOTIFICATIONS = frozenset(
    {
        lsp.INITIALIZED,
        lsp.EXIT,
        lsp.CANCEL_REQUEST,
        lsp.SET_TRACE,
        lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL,
        lsp.TEXT_DOCUMENT_DID_OPEN,
        lsp.TEXT_DOCUMENT_DID_CHANGE,
        lsp.TEXT_DOCUMENT_DID_CLOSE,
    }
)


@dataclass(frozen=True)
class Reply:
    """Answer with this error instead of dispatching."""

    id: int | str | None
    error: dict[str, Any]


@dataclass(frozen=True)
class Drop:
    """A notification that is ignored (no reply is allowed for notifications)."""

    reason: str


# Handshake: an `initialize` whose fields are checked (typed once, ggd.rpc.handshake);
# None: hand the message on as it is (gg/* to the method table, the rest to pygls).
Verdict = Reply | Drop | Handshake | None


def error(code: int, symbol: str, message: str) -> dict[str, Any]:
    """A JSON-RPC error object with gg's data block."""
    return {"code": code, "message": message, "data": {"code": symbol, "retryable": False}}


def valid_id(value: Any) -> bool:
    """Whether `value` is an id gg accepts: a bounded integer (not a boolean) or a short string."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -MAX_INT_ID <= value <= MAX_INT_ID
    return isinstance(value, str) and len(value) <= MAX_STR_ID


def _shown(method: str) -> str:
    return method if len(method) <= _MAX_SHOWN_METHOD else method[:_MAX_SHOWN_METHOD] + "..."


def check(
    data: dict[str, Any],
    conn: Connection,
    *,
    shut_down: bool,
    known: Container[str],
) -> Verdict:
    """Decide what to do with one parsed JSON object from `conn`.

    `known` is every gg request the daemon serves (core and capability rows, from the hub).
    What passes is checked for good: a gg/* request that gets through is initialized and has
    an object (or no) params, which the table's route validates against its row.
    """
    has_id = "id" in data
    msg_id = data.get("id")
    if has_id and not valid_id(msg_id):
        return Reply(
            None,
            error(
                -32600,
                "invalid_request",
                "invalid request: id must be an integer or a string of at most "
                f"{MAX_STR_ID} characters",
            ),
        )
    reply_id = msg_id if has_id else None
    if data.get("jsonrpc") != "2.0":
        return Reply(
            reply_id, error(-32600, "invalid_request", 'invalid request: "jsonrpc" must be "2.0"')
        )
    if "method" not in data:
        if has_id and ("result" in data) != ("error" in data):
            return None  # a response to a request of ours; pygls matches it by id
        return Reply(
            reply_id,
            error(-32600, "invalid_request", "invalid request: expected a request or a response"),
        )
    method = data["method"]
    if not isinstance(method, str):
        return Reply(
            reply_id, error(-32600, "invalid_request", "invalid request: method must be a string")
        )
    params = data.get("params")
    if params is not None and not isinstance(params, dict | list):
        if not has_id:
            return Drop("params of a notification are neither an object nor an array")
        return Reply(
            reply_id,
            error(-32600, "invalid_request", "invalid request: params must be an object or array"),
        )
    if not has_id:
        return _notification(method, params, conn, shut_down=shut_down)
    assert isinstance(msg_id, int | str)  # checked by valid_id above
    return _request(msg_id, method, params, conn, shut_down=shut_down, known=known)


def _notification(method: str, params: Any, conn: Connection, *, shut_down: bool) -> Verdict:
    if method not in LSP_NOTIFICATIONS:
        # Unknown notifications and requests sent without an id: JSON-RPC forbids a reply.
        return Drop(f"notification {_shown(method)!r} is not handled")
    if method == lsp.EXIT:
        return None
    if method == lsp.CANCEL_REQUEST and not (
        isinstance(params, dict) and valid_id(params.get("id"))
    ):
        # pygls would look the id up in a dict: an object id raised TypeError there.
        return Drop("$/cancelRequest without a valid id")
    if shut_down:
        return Drop("the connection was shut down; only exit is handled")
    if not conn.initialized:
        return Drop("notification before initialize")
    return None


def _request(
    msg_id: int | str,
    method: str,
    params: Any,
    conn: Connection,
    *,
    shut_down: bool,
    known: Container[str],
) -> Verdict:
    if method in LSP_NOTIFICATIONS:
        return Reply(
            msg_id,
            error(
                -32600,
                "invalid_request",
                f"invalid request: {method} is a notification; send it without an id",
            ),
        )
    if method not in LSP_REQUESTS and method not in known:
        return Reply(
            msg_id, error(-32601, "method_not_found", f"unknown method {_shown(method)!r}")
        )
    if shut_down:
        return Reply(
            msg_id,
            error(
                -32600,
                "invalid_request",
                "invalid request: the connection was shut down; send exit and reconnect",
            ),
        )
    if method == lsp.INITIALIZE:
        if conn.initialized:
            return Reply(
                msg_id,
                error(-32600, "invalid_request", "invalid request: already initialized"),
            )
        return _check_initialize(msg_id, params)
    if not conn.initialized:
        return Reply(
            msg_id, error(-32002, "not_initialized", "send initialize before other requests")
        )
    if method in known and params is not None and not isinstance(params, dict):
        return Reply(
            msg_id, error(-32602, "invalid_params", "invalid params: params must be an object")
        )
    return None


def _check_initialize(msg_id: int | str, params: Any) -> Verdict:
    try:
        return Handshake.check(msg_id, params)
    except E.InvalidParamsError as exc:
        return Reply(msg_id, exc.to_error())
