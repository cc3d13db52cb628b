"""A run's events as LSP work-done progress, and its answer as a transcript document."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ggd.protocol.events import TERMINAL_STATUS

from .client import ClientRequestError, ClientRequests, EditorCaps

log = logging.getLogger("ggd.rpc")

_TAIL = 160  # characters of streamed text shown in one report: a status line, not the answer
_INFO, _ERROR = 3, 1  # LSP MessageType


def _tail(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _TAIL else "..." + flat[-_TAIL:]


class RunProgress:
    """Subscribed to one run (the `Subscriber` protocol): events become `$/progress`.

    At the end, the answer is appended to GG_HOME/transcripts/<session>.md, which is opened with
    window/showDocument when the editor can show documents, else sent as window/logMessage.
    """

    def __init__(
        self,
        requests: ClientRequests,
        caps: EditorCaps,
        transcript: Path,
        token: str | None,
        prompt: str,
        on_end: Callable[[], None],
    ) -> None:
        self.requests = requests
        self.conn = requests.conn
        self.caps = caps
        self.transcript = transcript
        self.token = token
        self.prompt = prompt
        self.on_end = on_end
        self.text = ""
        self.tools: list[str] = []
        self.ended = False
        self._finishing: asyncio.Task[None] | None = None  # held: the loop keeps weak refs

    @property
    def closed(self) -> bool:
        """The editor went away (a run drops closed subscribers)."""
        return self.conn.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        """Runs never set it; the Subscriber protocol declares it settable."""

    def notify(
        self,
        method: str,
        params: dict[str, Any],
        *,
        droppable: bool = True,
        body: bytes | None = None,
    ) -> bool:
        """Take one gg/run.event; never awaits the editor."""
        kind = params.get("type")
        if kind == "text_delta":
            self.text += params.get("text", "")
            self._report(_tail(self.text))
        elif kind == "tool_call_start":
            line = f"{params.get('toolName')}: {params.get('summary')}"
            self.tools.append(line)
            self.text = ""  # the next text is a new message; show it from its start
            self._report(f"running {line}")
        elif kind == "tool_call_finish":
            verdict = "failed" if params.get("isError") else "done"
            self._report(f"{params.get('toolName')} {verdict}")
        elif kind == "approval_requested":
            self._report("waiting for approval")
        elif kind in TERMINAL_STATUS and not self.ended:
            self.ended = True
            self._finishing = asyncio.get_running_loop().create_task(self._finish(kind, params))
        return True

    def begin(self) -> None:
        """Open the progress bar (after the editor created the token)."""
        self._progress(
            {"kind": "begin", "title": "gg", "message": _tail(self.prompt), "cancellable": True},
            droppable=False,
        )

    def _report(self, message: str) -> None:
        self._progress({"kind": "report", "message": message}, droppable=True)

    def _progress(self, value: dict[str, Any], *, droppable: bool) -> None:
        if self.token is not None:
            self.conn.notify(
                "$/progress", {"token": self.token, "value": value}, droppable=droppable
            )

    async def _finish(self, kind: str, params: dict[str, Any]) -> None:
        try:
            status = TERMINAL_STATUS[kind]
            if kind == "run_completed":
                answer = str(params.get("content") or "")
                self._progress({"kind": "end", "message": "done"}, droppable=False)
            elif kind == "run_failed":
                answer = f"The run failed: {params.get('error') or 'unknown error'}"
                self._progress({"kind": "end", "message": "failed"}, droppable=False)
            else:
                answer = "The run was canceled."
                self._progress({"kind": "end", "message": "canceled"}, droppable=False)
            await asyncio.to_thread(self._append, answer)
            await self._deliver(answer, error=status == "failed")
        except Exception:  # the run is over either way; the editor must not hang on it
            log.exception("could not deliver a run's answer to the editor")
        finally:
            self.on_end()

    def _append(self, answer: str) -> None:
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        parts = [f"## You\n\n{self.prompt}\n"]
        if self.tools:
            parts.append("\n".join(f"- {t}" for t in self.tools) + "\n")
        parts.append(f"## gg\n\n{answer}\n\n")
        with self.transcript.open("a", encoding="utf-8") as f:
            f.write("\n".join(parts))

    async def _deliver(self, answer: str, *, error: bool) -> None:
        if self.caps.show_document:
            try:
                shown = await self.requests.request(
                    "window/showDocument",
                    {"uri": self.transcript.as_uri(), "takeFocus": True},
                )
                if isinstance(shown, dict) and shown.get("success"):
                    return
            except ClientRequestError:
                pass
        self.conn.notify(
            "window/logMessage",
            {"type": _ERROR if error else _INFO, "message": f"gg: {answer}"},
            droppable=False,
        )
