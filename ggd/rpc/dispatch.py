"""One connection's dispatch: gg/* requests through the daemon's method table, LSP through pygls.

A gg/* request never enters pygls: the endpoint hands it to `Dispatcher.request`, which finds its
`Route` in the one table (built once per daemon, ggd.app.capabilities), lets the route validate
the params and run the handler, and queues the encoded answer itself. pygls' per-connection
`LanguageServer` serves what is LSP: the lifecycle (initialize, shutdown, exit), the editor
commands (workspace/executeCommand) and their progress' cancel button. `GgProtocol` adjusts it
through pygls' documented customisation only: a `protocol_cls` whose `@lsp_method` overrides
replace built-in features, and a writer set with `set_writer` (docs/internals.md).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.protocol import LanguageServerProtocol, lsp_method

from ggd.app import HandlerContext, Route
from ggd.protocol import PROTOCOL_VERSION
from ggd.protocol import errors as E

from .connection import Connection
from .editor.client import ClientRequests, EditorCaps
from .editor.lifecycle import exit_code, watch_client_process
from .responses import GgRpcError, clean_body, encode_response, error_body

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from .editor.commands import EditorSession
    from .hub import Hub

log = logging.getLogger("ggd.rpc")


class BodyWriter:
    """pygls' writer (set with `include_headers=False`): frames each body for the connection.

    pygls builds its own error responses with the exception text and a traceback in them; the
    few it still sends (LSP methods only) are cleaned here before they leave (`clean_body`).
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def write(self, data: bytes) -> None:
        """Queue one message pygls encoded."""
        self.conn.send_body(clean_body(data))

    def close(self) -> None:
        """pygls closes its writer on `exit`: this connection only."""
        self.conn.close()


class GgProtocol(LanguageServerProtocol):
    """pygls' LSP protocol for one connection of a shared daemon.

    `exit` closes this connection only, `shutdown` is remembered for the gate (and cancels this
    connection's gg/* requests in flight, as pygls does its own), and the initialize result
    advertises `experimental.gg`.
    """

    conn: Connection
    app: Hub
    editor: EditorSession
    dispatcher: Dispatcher
    shut_down: bool = False

    @lsp_method(lsp.EXIT)
    def lsp_exit(self, *args: Any) -> Any:
        """Close this connection only; other clients keep the daemon (a private one exits)."""
        self.conn.exit_code = exit_code(self.shut_down)
        self.conn.close()
        yield from ()

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Any:
        """pygls' shutdown, plus gg's own requests in flight on this connection."""
        self.shut_down = True
        self.dispatcher.cancel_all()
        return (yield from super().lsp_shutdown(*args))

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


class Dispatcher:
    """gg/* requests of one connection: the table's routes, called with this connection."""

    def __init__(self, hub: Hub, conn: Connection, client: ClientRequests | None) -> None:
        self.hub = hub
        self.conn = conn
        self.client = client
        self._inflight: dict[int | str, asyncio.Task[None]] = {}

    def request(self, msg_id: int | str, method: str, params: dict[str, Any] | None) -> None:
        """Start serving one request (the gate has checked its envelope and lifecycle)."""
        task = asyncio.ensure_future(self._serve(msg_id, method, params or {}))
        self._inflight[msg_id] = task
        task.add_done_callback(lambda _t: self._inflight.pop(msg_id, None))

    def cancel(self, msg_id: object) -> bool:
        """$/cancelRequest of one of ours: True when it named a request in flight."""
        task = self._inflight.get(msg_id) if isinstance(msg_id, int | str) else None
        if task is None:
            return False
        task.cancel()
        return True

    def cancel_all(self) -> None:
        """Cancel every request in flight (shutdown)."""
        for task in list(self._inflight.values()):
            task.cancel()

    def _context(self, route: Route) -> HandlerContext:
        conn = self.conn
        return HandlerContext(
            services=self.hub.core,
            workspace=self.hub.workspace(conn),
            config=route.config,
            notify=lambda method, p: conn.notify(method, p, droppable=False),
            remote=conn.remote,
            caller=conn,
            client=self.client,
            own_state=route.state,
            env=self.hub.core.registry.env,
        )

    async def _serve(self, msg_id: int | str, method: str, params: dict[str, Any]) -> None:
        conn = self.conn
        try:
            route = self.hub.core.registry.route(method)
            if route is None:  # the gate lets only the table's names through
                raise E.InternalError(f"no route for {method}")
            result = await route.call(params, self._context)
        except asyncio.CancelledError:
            conn.send_body(error_body(msg_id, _cancelled(msg_id)))
            raise
        except E.GgError as exc:
            conn.send_body(error_body(msg_id, exc.to_error()))
            return
        except Exception:
            log.exception("handler failed", extra={"method": method, "conn": conn.id})
            err = E.InternalError("internal error; see the daemon log")
            conn.send_body(error_body(msg_id, err.to_error()))
            return
        conn.send_body(encode_response(msg_id, result))


def _cancelled(msg_id: int | str) -> dict[str, Any]:
    return {
        "code": -32800,
        "message": f'Request with id "{msg_id}" is canceled',
        "data": {"code": "request_cancelled", "retryable": False},
    }


def bind(server: LanguageServer, app: Hub, conn: Connection) -> Dispatcher:
    """Set up one connection's protocol: its editor session (plain LSP clients' gg.* commands)
    and the dispatcher of its gg/* requests. The method table itself is the daemon's."""
    from .editor.commands import EditorSession, register

    proto = server.protocol
    assert isinstance(proto, GgProtocol)
    proto.conn = conn
    proto.app = app
    # Bodies, framed by the connection: pygls' own headers are not used.
    proto.set_writer(BodyWriter(conn), include_headers=False)
    proto.editor = EditorSession(app, conn)
    register(server, proto.editor)
    proto.dispatcher = Dispatcher(app, conn, proto.editor.requests)
    return proto.dispatcher
