"""workspace/executeCommand gg.ask, gg.askAboutSelection and gg.cancel for plain LSP clients."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.workspace import TextDocument

from ggd.app.routes import validation_message
from ggd.protocol import errors as E

from ..connection import Connection
from ..responses import GgRpcError
from .approver import editor_approver
from .client import ClientRequestError, ClientRequests, EditorCaps
from .progress import RunProgress

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from ggd.app import Run

    from ..hub import Hub

log = logging.getLogger("ggd.rpc")

ASK, ASK_SELECTION, CANCEL = "gg.ask", "gg.askAboutSelection", "gg.cancel"
COMMANDS = (ASK, ASK_SELECTION, CANCEL)
MAX_SELECTION_BYTES = 1024 * 1024
_DEFAULT_QUESTION = "Explain this code."


class _Args(BaseModel):
    # Deferred: built at an editor's first gg.* command, not at every daemon start.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True, defer_build=True)


class AskArgs(_Args):
    """gg.ask: a prompt, optionally for a given session (else the editor's current one)."""

    prompt: str = Field(min_length=1, max_length=100_000)
    session_id: str | None = Field(default=None, alias="sessionId")
    new_session: bool = Field(default=False, alias="newSession")


class Position(_Args):
    """An LSP position (line and character, zero-based)."""

    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Range(_Args):
    """An LSP range."""

    start: Position
    end: Position


class SelectionArgs(AskArgs):
    """gg.askAboutSelection: a file and a range in it, and a question about them."""

    uri: str
    range: Range
    prompt: str = Field(default=_DEFAULT_QUESTION, min_length=1, max_length=100_000)


class CancelArgs(_Args):
    """gg.cancel: a run id, else the editor's current run."""

    run_id: str | None = Field(default=None, alias="runId")


def _parse(model: type[_Args], args: tuple[Any, ...]) -> Any:
    """Arguments are one object, or (for gg.ask) a bare prompt string."""
    if len(args) == 1 and isinstance(args[0], str) and model is AskArgs:
        raw: Any = {"prompt": args[0]}
    elif len(args) == 0:
        raw = {}
    elif len(args) == 1 and isinstance(args[0], dict):
        raw = args[0]
    else:
        raise GgRpcError(E.InvalidParamsError("invalid params: arguments must be one object"))
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise GgRpcError(E.InvalidParamsError(validation_message(exc))) from None


def _selected(doc: TextDocument, rng: Range) -> str:
    """The text of a range, its characters counted in the negotiated position encoding."""
    lines = doc.lines
    if rng.start.line >= len(lines):
        return ""
    start = lsp.Position(line=rng.start.line, character=rng.start.character)
    if rng.end.line >= len(lines):  # past the last line: to the end of the text
        return doc.source[doc.offset_at_position(start) :]
    stop = lsp.Position(line=rng.end.line, character=rng.end.character)
    return doc.text_in_client_range(lsp.Range(start=start, end=stop))


class EditorSession:
    """One LSP connection's editor state: capabilities, its session and its current run."""

    def __init__(self, app: Hub, conn: Connection) -> None:
        self.app = app
        self.conn = conn
        self.requests = ClientRequests(conn)
        self.caps = EditorCaps()
        self.session_id: str | None = None
        self.run: Run | None = None
        self.progress: dict[str, str] = {}  # progress token -> run id
        self.server: LanguageServer | None = None  # its open documents (set by `register`)
        self._tasks: set[asyncio.Task[None]] = set()  # the loop keeps only weak references
        self._started: list[Run] = []  # runs of this editor that may still be going
        conn.on_close.append(lambda _c: self._cancel_started())

    async def ask(self, args: AskArgs, prompt: str | None = None) -> dict[str, Any]:
        """Start a run through the app core; progress and the answer follow asynchronously.

        The connection is initialized: the gate (ggd.rpc.envelope) lets no request but
        `initialize` through before, workspace/executeCommand included."""
        ws = self.app.workspace(self.conn)
        runtime = self.app.runtime
        sid = args.session_id or (None if args.new_session else self.session_id)
        try:
            if sid is None:
                sid = (await runtime.create_session(ws, None, None)).session_id
            svc = await runtime.service(sid, ws)
            run = await self.app.runs.start(
                svc,
                prompt or args.prompt,
                approver=editor_approver(self.app.runs, self.requests, self.caps),
                interactive=True,
            )
        except E.GgError as err:
            raise GgRpcError(err) from None
        self.session_id, self.run = sid, run
        self._started = [r for r in self._started if not r.done] + [run]
        transcript = self.app.core.home / "transcripts" / f"{sid}.md"
        task = asyncio.get_running_loop().create_task(
            self._follow(run, prompt or args.prompt, transcript)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return {"sessionId": sid, "runId": run.id, "transcript": str(transcript)}

    async def ask_selection(self, args: SelectionArgs) -> dict[str, Any]:
        """Ask about a range of a workspace file: the editor's buffer if it sent it, else disk."""
        ws = self.app.workspace(self.conn)
        path = self._workspace_file(args.uri, ws.root)
        doc = self._document(args.uri)
        if doc is None:
            try:
                data = await asyncio.to_thread(self._read, path)
            except OSError as exc:
                raise GgRpcError(
                    E.InvalidParamsError(f"cannot read {path.name}: {exc.strerror or exc}")
                ) from None
            codec = self.server.workspace.position_codec if self.server is not None else None
            doc = TextDocument(args.uri, data, position_codec=codec)
        code = _selected(doc, args.range)
        rel = path.relative_to(ws.root.resolve())
        where = f"{rel} lines {args.range.start.line + 1}-{args.range.end.line + 1}"
        prompt = f"{args.prompt}\n\nThe selection from {where}:\n```\n{code}\n```"
        return await self.ask(args, prompt)

    def _document(self, uri: str) -> TextDocument | None:
        """The editor's open buffer of uri (textDocument/didOpen and didChange), if any."""
        if self.server is None:
            return None
        doc = self.server.workspace.text_documents.get(uri)
        return doc if isinstance(doc, TextDocument) else None

    def _cancel_started(self) -> None:
        """The editor went away (exit, a closed pipe): nobody is left to see or answer its runs."""
        for run in self._started:
            if not run.done:
                self.app.runs.cancel(run)
        self._started = []

    def cancel(self, args: CancelArgs) -> dict[str, Any]:
        """Cancel a run of this workspace (the current one by default)."""
        run = self.run
        try:
            if args.run_id is not None:
                run = self.app.runs.get(args.run_id, workspace_id=self.app.workspace(self.conn).id)
        except E.GgError as err:
            raise GgRpcError(err) from None
        if run is None or run.done:
            return {"canceled": False}
        self.app.runs.cancel(run)
        return {"canceled": True, "runId": run.id}

    def cancel_progress(self, token: Any) -> None:
        """The editor's cancel button on a progress bar cancels that run."""
        rid = self.progress.get(token) if isinstance(token, str) else None
        if rid is not None:
            self.cancel(CancelArgs(run_id=rid))

    async def _follow(self, run: Run, prompt: str, transcript: Path) -> None:
        token: str | None = None
        if self.caps.work_done_progress:
            token = f"gg-{run.id}"
            try:
                await self.requests.request("window/workDoneProgress/create", {"token": token})
            except ClientRequestError:
                token = None  # the editor refused the token: no bar, the answer still comes
        if token is not None:
            self.progress[token] = run.id

        def ended() -> None:
            run.subscribers.discard(sink)
            if token is not None:
                self.progress.pop(token, None)

        sink = RunProgress(self.requests, self.caps, transcript, token, prompt, ended)
        if token is not None:
            sink.begin()
        run.subscribe(sink, 0)  # replays what happened while the token was being created

    @staticmethod
    def _workspace_file(uri: str, root: Path) -> Path:
        parsed = urlparse(uri)
        if parsed.scheme != "file":
            raise GgRpcError(E.InvalidParamsError("invalid params: uri must be a file:// URI"))
        path = Path(unquote(parsed.path)).resolve()
        if not path.is_relative_to(root.resolve()):
            raise GgRpcError(
                E.InvalidParamsError("invalid params: uri is outside the connection's workspace")
            )
        return path

    @staticmethod
    def _read(path: Path) -> str:
        with path.open("rb") as f:
            data = f.read(MAX_SELECTION_BYTES + 1)
        if len(data) > MAX_SELECTION_BYTES:
            raise OSError(0, f"the file is larger than {MAX_SELECTION_BYTES} bytes")
        return data.decode("utf-8", "replace")


def register(server: LanguageServer, session: EditorSession) -> None:
    """Register the commands on a connection's server (pygls then advertises them)."""

    async def ask(*args: Any) -> dict[str, Any]:
        return await session.ask(_parse(AskArgs, args))

    async def ask_selection(*args: Any) -> dict[str, Any]:
        return await session.ask_selection(_parse(SelectionArgs, args))

    async def cancel(*args: Any) -> dict[str, Any]:
        return session.cancel(_parse(CancelArgs, args))

    session.server = server
    server.command(ASK)(ask)
    server.command(ASK_SELECTION)(ask_selection)
    server.command(CANCEL)(cancel)
