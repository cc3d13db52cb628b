"""Following one run to its end: streaming output, tool lines, approvals, steering, Ctrl+C."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import termios
import time
import tty
from collections import deque
from typing import Any, NamedTuple, TextIO

from ggcli.inputline import GuardedStream, InputArea
from ggcli.render import (
    MarkdownStream,
    Style,
    approval_prompt,
    format_tool_result,
    format_usage,
    todo_block,
    use_color,
)
from ggcli.rpc import Client, ConnectionLost, RpcError

__all__ = ["EXIT_CANCELED", "Outcome", "TurnOptions", "TurnRunner", "Ui"]

EXIT_CANCELED = 130
CANCEL_GRACE = 10.0


class Ui:
    """Where output goes: stdout carries the answer, stderr everything about the run."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out: TextIO = out if out is not None else sys.stdout
        self.err: TextIO = err if err is not None else sys.stderr
        self.out_style = Style(use_color(self.out))
        self.err_style = Style(use_color(self.err))
        self.shared_tty = _isatty(self.out) and _isatty(self.err)
        # On a terminal Markdown is rendered (tables, fences) and wrapped between words.
        self.out_tty = _isatty(self.out)
        self.width = _columns(self.out) if self.out_tty else 0

    def note(self, text: str, *styles: str) -> None:
        """One line on stderr."""
        self.err.write(self.err_style(text, *styles) + "\n")
        self.err.flush()


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 0


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class TurnOptions(NamedTuple):
    """How to follow a run: JSON lines, whether a human answers approvals, whether typing steers."""

    json_mode: bool = False
    interactive: bool = False
    steer: bool = False
    stdin_fd: int = 0
    verbose: bool = False  # show every line of tool output, not the first few
    show_usage: bool = False  # a line of tokens and cost (stderr) when the run ends


class Outcome(NamedTuple):
    """How a run ended and the exit code gg should use."""

    status: str
    exit_code: int
    error: str | None = None
    usage: dict[str, Any] | None = None  # the run's totals (tokens, cache, cost)


class TurnRunner:
    """Follows one run's gg/run.event stream on a connection until a terminal event."""

    def __init__(
        self, client: Client, ui: Ui, session_id: str, run_id: str, opts: TurnOptions
    ) -> None:
        self.client = client
        self.ui = ui
        self.session_id = session_id
        self.run_id = run_id
        self.opts = opts
        self.md = MarkdownStream(ui.out_style, render=ui.out_tty, width=ui.width)
        self.wrote_text = False
        self.out_col0 = True
        self.new_message = False
        self.last_seq = 0
        self.tools: dict[str, str] = {}
        self.approvals: deque[dict[str, Any]] = deque()
        self.prompting: str | None = None
        self.interrupts = 0
        self.canceled_at: float | None = None
        self._stdin_buf = ""
        self._saved_tty: list[Any] | None = None  # terminal settings while keys answer approvals
        self.area: InputArea | None = None  # typing during a run, kept apart from the stream
        self.leftover = ""  # typed but not sent when the run ended (the REPL's next draft)
        self.usage: dict[str, Any] | None = None  # the run's totals from its last usage event
        self.thinking = False  # reasoning is being written (dimmed, on stderr)

    def run(self) -> Outcome:
        """Follow the run to its end, with SIGINT turned into gg/run.cancel."""
        rfd, wfd = os.pipe()
        os.set_blocking(rfd, False)
        os.set_blocking(wfd, False)
        old_wakeup = signal.set_wakeup_fd(wfd)
        old_handler = signal.signal(signal.SIGINT, self._on_sigint)
        self._start_area()
        try:
            return self._loop(rfd)
        except ConnectionLost as exc:
            self._end_line()
            self.ui.note(f"gg: error: {exc}", "red")
            return Outcome("lost", 1, str(exc))
        finally:
            self._stop_area()
            self._key_mode(False)
            signal.signal(signal.SIGINT, old_handler)
            signal.set_wakeup_fd(old_wakeup)
            os.close(rfd)
            os.close(wfd)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self.interrupts += 1

    def _loop(self, wake_fd: int) -> Outcome:
        handled = 0
        while True:
            while self.client.notifications:
                outcome = self._handle(self.client.notifications.popleft())
                if outcome is not None:
                    return outcome
            if self.interrupts > handled:
                handled = self.interrupts
                if self.canceled_at is not None or handled > 1:
                    self._end_line()
                    return Outcome("canceled", EXIT_CANCELED)
                self._cancel()
                continue
            if self.canceled_at is not None and time.monotonic() - self.canceled_at > CANCEL_GRACE:
                return Outcome("canceled", EXIT_CANCELED)
            fds = [self.client.fileno(), wake_fd]
            if self.opts.interactive or self.opts.steer:
                fds.append(self.opts.stdin_fd)
            ready, _, _ = select.select(fds, [], [], 0.5 if self.canceled_at else None)
            if wake_fd in ready:
                try:
                    os.read(wake_fd, 512)
                except BlockingIOError:
                    pass
            if self.client.fileno() in ready:
                self.client.read_available()
            if self.opts.stdin_fd in ready and self.opts.stdin_fd in fds:
                self._read_stdin()

    # -- input -------------------------------------------------------------------------------

    def _cancel(self) -> None:
        self._end_line()
        self.ui.note("^C canceling the run… (Ctrl+C again to quit now)", "yellow")
        self.canceled_at = time.monotonic()
        try:
            self.client.request("gg/run.cancel", {"runId": self.run_id})
        except RpcError:
            pass  # the run ended meanwhile: its terminal event is on its way

    def _read_stdin(self) -> None:
        try:
            data = os.read(self.opts.stdin_fd, 4096)
        except OSError:
            return
        if not data:
            return  # Ctrl+D on a terminal is not sticky; nothing to do mid-run
        text = data.decode("utf-8", "replace")
        while text and self.prompting is not None and self._saved_tty is not None:
            key, text = text[0], text[1:]
            self._key(key)
        if self.area is not None:
            for ch in text:
                line = self.area.key(ch) if self.prompting is None else None
                if line is not None and line.strip():
                    self._line(line)
            self.area.hide()
            if self.prompting is None:
                self._end_line()  # the typed line goes below the stream, never into it
                self.area.show()
            return
        self._stdin_buf += text
        while "\n" in self._stdin_buf:
            line, self._stdin_buf = self._stdin_buf.split("\n", 1)
            self._line(line.rstrip("\r"))

    def _line(self, line: str) -> None:
        if self.prompting is not None:
            self._answer(line.strip().lower())
            return
        if self.opts.steer and line.strip():
            try:
                self.client.request("gg/run.steer", {"sessionId": self.session_id, "text": line})
                if self.area is not None:
                    self.area.queued.append(line)  # listed until user_message says it was taken
                else:
                    self.ui.note("  (steering: the agent reads this at its next step)", "dim")
            except RpcError as exc:
                self.ui.note(f"gg: could not steer: {exc.message}", "red")

    def _start_area(self) -> None:
        """Steering in a terminal: read keys without echo and draw them below the stream."""
        if not (self.opts.steer and self.ui.shared_tty and os.isatty(self.opts.stdin_fd)):
            return
        area = InputArea(self.ui.err, self.ui.width, self.ui.err_style)
        self._cbreak(True)
        if self._saved_tty is None:
            return
        self.area = area
        self.ui = Ui(out=GuardedStream(self.ui.out, area), err=GuardedStream(self.ui.err, area))

    def _stop_area(self) -> None:
        if self.area is None:
            return
        self.area.hide()
        for text in self.area.queued:  # canceled or failed before the model read them
            self.ui.note(f"  (steer not taken: {text})", "yellow")
        self.leftover, self.area = self.area.typing, None
        self._cbreak(False)

    def _redraw(self) -> None:
        if self.area is not None and self.out_col0 and self.prompting is None:
            self.area.show()

    def _key_mode(self, on: bool) -> None:
        """In a terminal, one key (y/n/a) answers an approval: cbreak mode, no Enter needed."""
        if self.area is not None:  # already in cbreak: the question just owns the screen
            self.area.suspended = on
            return
        if self.opts.interactive:
            self._cbreak(on)

    def _cbreak(self, on: bool) -> None:
        fd = self.opts.stdin_fd
        if on and self._saved_tty is None and os.isatty(fd):
            try:
                self._saved_tty = termios.tcgetattr(fd)
                tty.setcbreak(fd, termios.TCSANOW)  # ISIG stays on: Ctrl+C still cancels
            except termios.error:
                self._saved_tty = None
        elif not on and self._saved_tty is not None:
            try:
                termios.tcsetattr(fd, termios.TCSANOW, self._saved_tty)
            except termios.error:
                pass
            self._saved_tty = None

    def _key(self, key: str) -> None:
        if key in "\r\n":
            return
        if key.lower() in ("y", "n", "a"):
            self.ui.err.write(key + "\n")  # cbreak mode does not echo
            self._answer(key.lower())
            return
        self.ui.err.write("\n")
        self._answer(key)  # says which keys answer

    def _answer(self, word: str) -> None:
        choices = {"y": (True, "once"), "yes": (True, "once"), "n": (False, "once")}
        choices |= {"no": (False, "once"), "a": (True, "session"), "always": (True, "session")}
        if word not in choices:
            self.ui.err.write(self.ui.err_style("  please answer y, n or a: ", "bold"))
            self.ui.err.flush()
            return
        allow, scope = choices[word]
        approval_id = self.prompting
        self.prompting = None
        params: dict[str, Any] = {"runId": self.run_id, "approvalId": approval_id, "allow": allow}
        if allow:
            params["scope"] = scope
        try:
            self.client.request("gg/run.approve", params)
            verdict = "allowed for this session" if scope == "session" and allow else None
            self.ui.note(f"  → {verdict or ('allowed' if allow else 'denied')}", "dim")
        except RpcError as exc:
            self.ui.note(f"  → not applied: {exc.message}", "yellow")
        self.approvals = deque(a for a in self.approvals if a.get("id") != approval_id)
        self._next_prompt()

    def _next_prompt(self) -> None:
        if self.prompting is None and self.approvals:
            approval = self.approvals[0]
            self.prompting = str(approval.get("id"))
            self._end_line()
            self._key_mode(True)
            self.ui.err.write(approval_prompt(approval, self.ui.err_style))
            self.ui.err.flush()
        elif self.prompting is None:
            self._key_mode(False)  # back to lines (steering) until the next question

    # -- events ------------------------------------------------------------------------------

    def _handle(self, msg: dict[str, Any]) -> Outcome | None:
        if msg.get("method") != "gg/run.event":
            return None
        ev = msg.get("params") or {}
        if ev.get("runId") != self.run_id:
            return None
        seq = int(ev.get("sequence") or 0)
        if seq and seq <= self.last_seq:
            return None  # a replayed duplicate
        self.last_seq = max(self.last_seq, seq)
        if self.opts.json_mode:
            self.ui.out.write(json.dumps(ev, ensure_ascii=False, separators=(",", ":")) + "\n")
            self.ui.out.flush()
        kind = ev.get("type")
        handler = getattr(self, f"_on_{kind}", None)
        outcome = handler(ev) if handler is not None else None
        if outcome is None:
            self._redraw()
        return outcome

    def _write(self, text: str) -> None:
        if self.opts.json_mode or not text:
            return
        rendered = self.md.feed(text)
        self.ui.out.write(rendered)
        self.ui.out.flush()
        self.wrote_text = True
        self.out_col0 = text.endswith("\n")

    def _end_line(self) -> None:
        """Finish a half-written answer line before stderr writes on the same terminal."""
        if not self.out_col0 and self.ui.shared_tty:
            self._write("\n")

    def _on_thinking_delta(self, ev: dict[str, Any]) -> None:
        """Reasoning, dimmed on stderr: never in the answer (stdout carries only the answer)."""
        text = str(ev.get("text") or "")
        if self.opts.json_mode or not text:
            return
        if not self.thinking:
            self._end_line()
            self.ui.err.write(self.ui.err_style("thinking: ", "dim", "italic"))
            self.thinking = True
        self.ui.err.write(self.ui.err_style(text, "dim", "italic"))
        self.ui.err.flush()

    def _end_thinking(self) -> None:
        if self.thinking:
            self.thinking = False
            self.ui.err.write("\n")
            self.ui.err.flush()

    def _on_usage(self, ev: dict[str, Any]) -> None:
        if isinstance(ev.get("run"), dict):
            self.usage = ev["run"]

    def _on_text_delta(self, ev: dict[str, Any]) -> None:
        self._end_thinking()
        text = str(ev.get("text") or "")
        if self.new_message and self.wrote_text and text:
            # A new assistant message after tool calls: keep it a separate paragraph.
            self._write("\n" if self.out_col0 else "\n\n")
        self.new_message = False
        self._write(text)

    def _on_tool_call_start(self, ev: dict[str, Any]) -> None:
        self._end_thinking()
        self.tools[str(ev.get("toolCallId"))] = str(ev.get("summary") or "")
        self.new_message = True

    def _on_tool_call_finish(self, ev: dict[str, Any]) -> None:
        if self.opts.json_mode:
            return
        self._end_line()
        summary = self.tools.pop(str(ev.get("toolCallId")), "")
        name = str(ev.get("toolName") or "tool")
        ok = not ev.get("isError")
        output = str(ev.get("output") or "")
        details = ev.get("details") if isinstance(ev.get("details"), dict) else None
        text = format_tool_result(
            name, summary, ok, output, self.ui.err_style, details=details, verbose=self.opts.verbose
        )
        self.ui.err.write(text + "\n")
        self.ui.err.flush()

    def _on_approval_requested(self, ev: dict[str, Any]) -> None:
        approval = ev.get("approval") or {}
        if self.opts.interactive:
            self.approvals.append(approval)
            self._next_prompt()
        elif not self.opts.json_mode:
            self._end_line()
            self.ui.note(
                f"  ! {approval.get('toolName')} needs approval: {approval.get('summary', '')}",
                "yellow",
            )

    def _on_approval_resolved(self, ev: dict[str, Any]) -> None:
        approval_id = str(ev.get("approvalId"))
        self.approvals = deque(a for a in self.approvals if str(a.get("id")) != approval_id)
        if self.prompting == approval_id:
            self.prompting = None
            verdict = "allowed" if ev.get("allow") else "denied"
            self.ui.err.write("\n")
            self.ui.note(f"  → {verdict} ({ev.get('by', 'elsewhere')})", "dim")
            self._next_prompt()

    def _on_user_message(self, ev: dict[str, Any]) -> None:
        if self.area is not None:
            self.area.taken(str(ev.get("text", "")))
        if not self.opts.json_mode:
            self._end_line()
            self.ui.note(f"› {ev.get('text', '')}", "cyan")

    def _on_plan_updated(self, ev: dict[str, Any]) -> None:
        if not self.opts.json_mode:
            self._end_line()
            self.ui.err.write(todo_block(list(ev.get("todos") or []), self.ui.err_style))
            self.ui.err.flush()

    def _on_hook_failed(self, ev: dict[str, Any]) -> None:
        if not self.opts.json_mode:
            self._end_line()
            self.ui.note(
                f"  ! {ev.get('hookEvent')} hook failed ({ev.get('error')}): {ev.get('command')}",
                "yellow",
            )

    def _on_compaction(self, ev: dict[str, Any]) -> None:
        if not self.opts.json_mode:
            self._end_line()
            self.ui.note("  (older context was summarised to make room)", "dim")

    def _finish_text(self) -> None:
        self._end_thinking()
        tail = self.md.finish()
        if tail:
            self.ui.out.write(tail)
        if self.wrote_text and not self.out_col0:
            self.ui.out.write("\n")
            self.out_col0 = True
        self.ui.out.flush()

    def _on_run_completed(self, ev: dict[str, Any]) -> Outcome:
        if not self.wrote_text and ev.get("content"):
            self._write(str(ev["content"]))
        self._finish_text()
        self._show_usage(ev)
        return Outcome("completed", EXIT_CANCELED if self.interrupts else 0, usage=self.usage)

    def _on_run_failed(self, ev: dict[str, Any]) -> Outcome:
        self._finish_text()
        error = str(ev.get("error") or "the run failed")
        if not self.opts.json_mode:
            self.ui.note(f"gg: error: {error}", "red")
        self._show_usage(ev)
        code = EXIT_CANCELED if self.interrupts else 1
        return Outcome("failed", code, error, usage=self.usage)

    def _show_usage(self, ev: dict[str, Any]) -> None:
        if isinstance(ev.get("usage"), dict):
            self.usage = ev["usage"]
        usage = self.usage
        if not (self.opts.show_usage and not self.opts.json_mode and usage):
            return
        if usage.get("totalTokens") or usage.get("costUsd") is not None:  # else nothing to say
            self.ui.note(format_usage(usage), "dim")

    def _on_run_canceled(self, ev: dict[str, Any]) -> Outcome:
        self._finish_text()
        if self.interrupts:
            return Outcome("canceled", EXIT_CANCELED)
        if not self.opts.json_mode:
            self.ui.note("gg: the run was canceled", "yellow")
        return Outcome("canceled", 1, "canceled")
