"""gg/* dispatch on a per-connection pygls protocol: typed params in, typed results or errors out."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from lsprotocol import types as lsp
from pydantic import BaseModel, TypeAdapter, ValidationError
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage

from ggd.app import HandlerContext, SnapshotView
from ggd.app.snapshot import plain
from ggd.protocol import PROTOCOL_VERSION, MethodSpec
from ggd.protocol import errors as E
from ggd.protocol.methods import METHODS

from .connection import Connection
from .editor.client import ClientRequests, EditorCaps
from .editor.lifecycle import exit_code, watch_client_process
from .pieces import Buffer, Pieces

if TYPE_CHECKING:
    from .editor.commands import EditorSession
    from .hub import Hub

log = logging.getLogger("ggd.rpc")

Handler = Callable[["CallContext", Any], Awaitable[Any]]
_REGISTRY: dict[str, tuple[MethodSpec, Handler]] = {}
F = TypeVar("F", bound=Handler)


def handler(spec: MethodSpec) -> Callable[[F], F]:
    """Register the handler of one table row; a second handler for a row is a bug."""

    def deco(fn: F) -> F:
        if spec.name in _REGISTRY:
            raise RuntimeError(f"duplicate handler for {spec.name}")
        _REGISTRY[spec.name] = (spec, fn)
        return fn

    return deco


def registered() -> dict[str, tuple[MethodSpec, Handler]]:
    """Every registered handler by method name."""
    return dict(_REGISTRY)


@dataclass
class CallContext:
    """What a handler gets besides its params: the app and the calling connection."""

    app: Hub
    conn: Connection
    # gg's own requests to this client (gg/client.*, LSP window/*); None off the LSP protocol.
    requests: ClientRequests | None = None


class GgRpcError(JsonRpcException):
    """A GgError carried through pygls' response path with its data intact."""

    def __init__(self, err: E.GgError) -> None:
        super().__init__(message=err.message, code=err.code, data=err.to_error()["data"])


def validation_message(exc: ValidationError) -> str:
    """A -32602 message naming the first bad field."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first.get("loc", ())) or "params"
    # loc names the client's own keys: bounded so an error never echoes a huge key back
    return f"invalid params: {loc[:80]}: {first.get('msg', 'invalid value')}"


class GgProtocol(LanguageServerProtocol):
    """pygls' LSP protocol, adjusted for a shared daemon.

    gg/* params stay plain dicts (pydantic validates them in the handler), `exit` closes this
    connection only, and the initialize result advertises `experimental.gg`.
    """

    conn: Connection
    app: Hub
    editor: EditorSession

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Keep gg/* params as dicts instead of pygls' namedtuples."""
        method = data.get("method")
        if isinstance(method, str) and method.startswith("gg/") and "jsonrpc" in data:
            if "id" in data:
                return JsonRPCRequestMessage(
                    id=data["id"], method=method, params=data.get("params"), jsonrpc="2.0"
                )
            return JsonRPCNotification(method=method, params=data.get("params"), jsonrpc="2.0")
        return super().structure_message(data)

    @property
    def shut_down(self) -> bool:
        """Whether this connection received `shutdown` (only `exit` is handled afterwards)."""
        return bool(self._shutdown)

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        """Every error pygls sends goes through `clean_error`: a data.code, never a traceback."""
        if error is not None:
            error = clean_error(error)
        elif isinstance(result, dict) and msg_id not in self._result_types:
            # A gg/* result is already a JSON-ready dict. pygls would wrap it in a response
            # object whose cattrs unstructure copies the whole dict value by value, then
            # json.dumps it ASCII-escaped (~60 + ~30 ms of a 10k-message snapshot).
            body = _encode_response(msg_id, result)
            if body is not None:
                self._write_body(body)
                return
            # msgspec refused a value (a lone surrogate, an object): pygls' dict path, with
            # a snapshot's raw JSON parts decoded for it
            self._send_data({"id": msg_id, "jsonrpc": "2.0", "result": plain(result)})
            return
        super()._send_response(msg_id, result, error)

    def _write_body(self, body: bytes | Pieces) -> None:
        """_send_data for an encoded body: pygls' headers, a Content-Length counted in bytes."""
        if self.writer is None:
            log.error("unable to send a response: no transport")
            return
        if self._include_headers:
            head = (
                f"Content-Length: {len(body)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            body = body.framed(head.encode()) if isinstance(body, Pieces) else head.encode() + body
        # gg's writer is synchronous and queues Pieces as they are (ggd.transport.endpoint)
        self.writer.write(body)  # type: ignore[arg-type]

    @lsp_method(lsp.EXIT)
    def lsp_exit(self, *args: Any) -> Any:
        """Close this connection only; other clients keep the daemon (a private one exits)."""
        self.conn.exit_code = exit_code(self.shut_down)
        self.conn.close()
        yield from ()

    @lsp_method(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def lsp_work_done_progress_cancel(self, params: lsp.WorkDoneProgressCancelParams) -> Any:
        """The editor's cancel button on a gg progress bar cancels that run."""
        self.editor.cancel_progress(params.token)
        yield from ()

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Any:
        """LSP initialize, then bind the connection's workspace and advertise gg."""
        result = yield from super().lsp_initialize(params)
        try:
            ws = self.app.bind_workspace(self.conn, params)
        except E.GgError as err:  # e.g. an unknown initializationOptions.workspaceId
            raise GgRpcError(err) from None
        opts = params.initialization_options
        if isinstance(opts, dict) and opts.get("batchFrames") is True:
            # Only a client that asked gets arrays: LSP libraries (VS Code, Neovim) cannot.
            self.conn.start_batching()
        result.capabilities.experimental = {
            "gg": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": self.app.capabilities(ws),
                "workspace": {"id": ws.id, "name": ws.name},
                "batchFrames": self.conn.batch_frames,
            }
        }
        self.editor.caps = EditorCaps.from_initialize(params.capabilities, opts)
        if isinstance(opts, dict) and opts.get("editorCommands") is False:
            # A gg client with commands of its own (the VS Code extension): not advertised, so
            # its LSP library does not register gg.ask & co. a second time.
            result.capabilities.execute_command_provider = None
        watch_client_process(self.conn, params.process_id)
        self.conn.initialized = True
        self.conn.client_name = params.client_info.name if params.client_info else ""
        return result


_SYMBOLS = {
    -32700: "parse_error",
    -32600: "invalid_request",
    -32601: "method_not_found",
    -32602: "invalid_params",
    -32800: "request_cancelled",
    **{cls.code: cls.symbol for cls in E.ERROR_CLASSES if cls.code != -32002},
    -32002: "not_initialized",  # LSP's ServerNotInitialized; gg's run_not_found always has data
}


def clean_error(error: lsp.ResponseError) -> lsp.ResponseError:
    """An error pygls built, made safe for the wire.

    gg's own errors (GgRpcError) already carry `data.code` and pass unchanged. pygls' internal
    errors put the exception text and a traceback (with site-packages paths) in message and data:
    they become a plain internal error, with the details left in the daemon's log.
    """
    data = error.data
    if isinstance(data, dict) and isinstance(data.get("code"), str) and "traceback" not in data:
        return error
    symbol = _SYMBOLS.get(error.code, "internal_error")
    message = error.message
    if symbol == "internal_error" or (isinstance(data, dict) and "traceback" in data):
        symbol, message = "internal_error", "internal error; see the daemon log"
    return lsp.ResponseError(
        code=error.code if symbol != "internal_error" else -32603,
        message=message,
        data={"code": symbol, "retryable": False},
    )


_ENCODER = msgspec.json.Encoder()

# A result's raw JSON value at least this long is not copied into the response: the response goes
# out as Pieces around it (a snapshot's spliced lists). Smaller ones are cheaper joined.
SPLICE_MIN = 64 * 1024
# What stands in for a spliced value while the envelope is encoded: msgspec escapes every
# control character inside strings, so a raw NUL in its output is one of these.
_MARK = msgspec.Raw(b"\x00")


def _encode_response(msg_id: Any, result: dict[str, Any]) -> bytes | Pieces | None:
    """A success response as compact UTF-8 JSON (msgspec, ~6x json.dumps), or None if refused.

    The same JSON value pygls sends, in its key order; only the spacing and the \\u escapes of
    non-ASCII characters differ, as in every notification gg sends (ggd.protocol.encode_message).
    A result holding long msgspec.Raw values comes back as Pieces: the envelope's parts and
    views of those values, the same bytes never copied into one buffer (ggd.rpc.pieces).
    """
    try:
        spliced = [k for k, v in result.items() if type(v) is msgspec.Raw and len(v) >= SPLICE_MIN]
        if spliced:
            shell = dict(result)
            for key in spliced:
                shell[key] = _MARK
            cuts = _ENCODER.encode({"id": msg_id, "jsonrpc": "2.0", "result": shell}).split(b"\x00")
            if len(cuts) == len(spliced) + 1:  # else a small raw value held a NUL: encode whole
                parts: list[Buffer] = [cuts[0]]
                for key, cut in zip(spliced, cuts[1:], strict=True):
                    parts += (memoryview(result[key]), cut)
                return Pieces(parts)
        return _ENCODER.encode({"id": msg_id, "jsonrpc": "2.0", "result": result})
    except (TypeError, ValueError, OverflowError):  # UnicodeEncodeError is a ValueError
        return None


def _to_result(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, SnapshotView):  # built in wire form (ggd.app.snapshot)
        return value.data
    return value


def _adapter(spec: MethodSpec) -> TypeAdapter[Any]:
    return TypeAdapter(spec.params)


_ADAPTERS: dict[str, TypeAdapter[Any]] = {}


def _adapter_for(app: Hub, method: str) -> TypeAdapter[Any]:
    # One adapter per row for the daemon's life: building them costs more than a request.
    # Made at the row's first call: a capability's row (and its models) is imported only then.
    adapter = _ADAPTERS.get(method)
    if adapter is None:
        spec = app.row(method)
        if spec is None:
            raise RuntimeError(f"no method row for {method}")
        adapter = _ADAPTERS[method] = _adapter(spec)
    return adapter


def warm_steps(app: Hub) -> Iterator[Callable[[], object]]:
    """One step per core request row whose params adapter is not made yet (ggd.daemon.warmup).

    Only the core rows: a capability's row would import the capability's modules.
    """
    for spec in METHODS:
        if spec.kind == "request" and spec.direction == "client" and spec.name not in _ADAPTERS:
            yield functools.partial(_warm_adapter, app, spec.name)


def _warm_adapter(app: Hub, method: str) -> None:
    adapter = _adapter_for(app, method)
    # Made over a deferred model, the adapter builds its validator at its first call: now.
    rebuild = getattr(adapter, "rebuild", None)  # pydantic >= 2.10
    if rebuild is not None:
        rebuild()


def bind(server: LanguageServer, app: Hub, conn: Connection) -> frozenset[str]:
    """Register a feature per gg request row (core and capability) on this connection's server;
    returns the names bound, the set the protocol gate accepts."""
    from . import handlers  # noqa: F401 - importing registers the handlers
    from .editor.commands import EditorSession, register

    proto = server.protocol
    requests: ClientRequests | None = None
    if isinstance(proto, GgProtocol):  # plain LSP clients: workspace/executeCommand gg.*
        proto.editor = EditorSession(app, conn)
        register(server, proto.editor)
        requests = proto.editor.requests

    registry = app.core.registry
    bound: set[str] = set()
    # Client requests only: notifications and gg's own requests to the client have no handler.
    for method in app.requests():
        entry = _REGISTRY.get(method)
        fn: Handler | None = entry[1] if entry is not None else None
        if fn is None:
            owned = registry.handler(method)
            if owned is None:
                continue
            fn = _capability_handler(owned[0].config_key, owned[1])
        server.feature(method)(_wrap(method, fn, app, conn, requests))
        bound.add(method)
    return frozenset(bound)


def _capability_handler(config_key: str | None, fn: Any) -> Handler:
    """Adapt a capability handler (HandlerContext, params) to the rpc layer's CallContext."""

    async def call(ctx: CallContext, params: Any) -> Any:
        hub = ctx.app
        hctx = HandlerContext(
            services=hub.core,
            workspace=hub.workspace(ctx.conn),
            config=hub.core.registry.section(config_key) if config_key else None,
            notify=lambda method, p: ctx.conn.notify(method, p, droppable=False),
            remote=ctx.conn.remote,
        )
        return await fn(hctx, params)

    return call


def _wrap(
    method: str,
    fn: Handler,
    app: Hub,
    conn: Connection,
    requests: ClientRequests | None = None,
) -> Callable[[Any], Awaitable[Any]]:
    async def feature(raw: Any) -> Any:
        try:
            if not conn.initialized:
                raise E.NotInitializedError("send initialize before gg methods")
            if raw is None:
                raw = {}
            if not isinstance(raw, dict):
                raise E.InvalidParamsError("invalid params: params must be an object")
            try:
                params = _adapter_for(app, method).validate_python(raw)
            except ValidationError as exc:
                raise E.InvalidParamsError(validation_message(exc)) from None
            return _to_result(await fn(CallContext(app, conn, requests), params))
        except E.GgError as err:
            raise GgRpcError(err) from None
        except JsonRpcException:
            raise
        except Exception:
            log.exception("handler failed", extra={"method": method, "conn": conn.id})
            raise GgRpcError(E.InternalError("internal error; see the daemon log")) from None

    feature.__name__ = f"gg_{method.removeprefix('gg/').replace('.', '_')}"
    # pygls decides per registration whether to pass the server first: a parameter named `ls`
    # or one annotated with the server's type. With no hints left to resolve, the answer ("no")
    # comes without evaluating this function's string annotations: bind() registers ~64
    # features on every connection, before its initialize is answered.
    feature.__annotations__ = {}
    return feature
