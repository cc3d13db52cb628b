"""Response bodies: gg/* results encoded once (msgspec, big values spliced), errors made safe."""

from __future__ import annotations

import json
import logging
from typing import Any

import msgspec
from pydantic import BaseModel
from pygls.exceptions import JsonRpcException

from ggd.app import SnapshotView
from ggd.app.snapshot import plain
from ggd.protocol import errors as E

from .pieces import Buffer, Pieces

log = logging.getLogger("ggd.rpc")

__all__ = [
    "SPLICE_MIN",
    "GgRpcError",
    "clean_body",
    "clean_error",
    "encode_fast",
    "encode_response",
    "error_body",
    "to_result",
]

_ENCODER = msgspec.json.Encoder()


class GgRpcError(JsonRpcException):
    """A GgError carried through pygls' response path (LSP methods) with its data intact."""

    def __init__(self, err: E.GgError) -> None:
        super().__init__(message=err.message, code=err.code, data=err.to_error()["data"])


# A result's raw JSON value at least this long is not copied into the response: the response goes
# out as Pieces around it (a snapshot's spliced lists). Smaller ones are cheaper joined.
SPLICE_MIN = 64 * 1024
# What stands in for a spliced value while the envelope is encoded: msgspec escapes every
# control character inside strings, so a raw NUL in its output is one of these.
_MARK = msgspec.Raw(b"\x00")


def to_result(value: Any) -> Any:
    """A handler's return value as the JSON value of the response's `result`."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, SnapshotView):  # built in wire form (ggd.app.snapshot)
        return value.data
    return value


def encode_response(msg_id: Any, value: Any) -> bytes | Pieces:
    """A success response: `encode_fast`, or json.dumps for what msgspec refuses.

    What msgspec refuses (a lone surrogate) goes out through json.dumps, \\u-escaped, with a
    snapshot's raw JSON parts decoded for it.
    """
    result = to_result(value)
    body = encode_fast(msg_id, result)
    if body is None:
        body = json.dumps({"id": msg_id, "jsonrpc": "2.0", "result": plain(result)}).encode()
    return body


def encode_fast(msg_id: Any, result: Any) -> bytes | Pieces | None:
    """A success response as compact UTF-8 JSON (msgspec, ~6x json.dumps), or None if refused.

    The same JSON value json.dumps gives, in its key order; only the spacing and the \\u
    escapes of non-ASCII characters differ, as in every notification gg sends. A result holding
    long msgspec.Raw values comes back as Pieces: the envelope's parts and views of those
    values, the same bytes never copied into one buffer (ggd.rpc.pieces).
    """
    try:
        if isinstance(result, dict):
            spliced = _encode_spliced(msg_id, result)
            if spliced is not None:
                return spliced
        return _ENCODER.encode({"id": msg_id, "jsonrpc": "2.0", "result": result})
    except (TypeError, ValueError, OverflowError):  # UnicodeEncodeError is a ValueError
        return None


def _encode_spliced(msg_id: Any, result: dict[str, Any]) -> bytes | Pieces | None:
    spliced = [k for k, v in result.items() if type(v) is msgspec.Raw and len(v) >= SPLICE_MIN]
    if not spliced:
        return None
    shell = dict(result)
    for key in spliced:
        shell[key] = _MARK
    cuts = _ENCODER.encode({"id": msg_id, "jsonrpc": "2.0", "result": shell}).split(b"\x00")
    if len(cuts) != len(spliced) + 1:  # a small raw value held a NUL: encode whole
        return None
    parts: list[Buffer] = [cuts[0]]
    for key, cut in zip(spliced, cuts[1:], strict=True):
        parts += (memoryview(result[key]), cut)
    return Pieces(parts)


def error_body(msg_id: Any, error: dict[str, Any]) -> bytes:
    """An error response."""
    return _ENCODER.encode({"jsonrpc": "2.0", "id": msg_id, "error": error})


_SYMBOLS = {
    -32700: "parse_error",
    -32600: "invalid_request",
    -32601: "method_not_found",
    -32602: "invalid_params",
    -32800: "request_cancelled",
    **{cls.code: cls.symbol for cls in E.ERROR_CLASSES if cls.code != -32002},
    -32002: "not_initialized",  # LSP's ServerNotInitialized; gg's run_not_found always has data
}


def clean_error(error: dict[str, Any]) -> dict[str, Any]:
    """An error object pygls built, made safe for the wire.

    gg's own errors (GgRpcError) already carry `data.code` and pass unchanged. pygls' internal
    errors put the exception text and a traceback (with site-packages paths) in message and data:
    they become a plain internal error, with the details left in the daemon's log.
    """
    data = error.get("data")
    if isinstance(data, dict) and isinstance(data.get("code"), str) and "traceback" not in data:
        return error
    code = error.get("code")
    symbol = _SYMBOLS.get(code, "internal_error") if isinstance(code, int) else "internal_error"
    message = error.get("message")
    if symbol == "internal_error" or (isinstance(data, dict) and "traceback" in data):
        symbol, message = "internal_error", "internal error; see the daemon log"
    return {
        "code": code if symbol != "internal_error" else -32603,
        "message": message if isinstance(message, str) else "error",
        "data": {"code": symbol, "retryable": False},
    }


def clean_body(body: bytes) -> bytes:
    """A message pygls encoded, with its error (if any) cleaned by `clean_error`."""
    if b'"error"' not in body:
        return body
    try:
        msg = json.loads(body)
    except ValueError:
        return body
    if not isinstance(msg, dict) or not isinstance(msg.get("error"), dict):
        return body
    cleaned = clean_error(msg["error"])
    if cleaned is msg["error"]:
        return body
    msg["error"] = cleaned
    return json.dumps(msg).encode()
