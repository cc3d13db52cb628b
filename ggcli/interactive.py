"""The line-based interactive session: readline prompt, turns, steering and slash commands."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ggcli import __version__
from ggcli.attach import AttachError, clipboard_image, describe, dropped_paths, image_param
from ggcli.commands import checkpoints
from ggcli.expand import FORCE_PREFIX, expand_prompt
from ggcli.render import format_context, format_sessions, format_tree, format_usage, todo_block
from ggcli.rpc import METHOD_NOT_FOUND, Client, RpcError
from ggcli.session import start_run
from ggcli.turn import TurnOptions, TurnRunner, Ui

__all__ = ["HELP", "Repl"]

APPROVAL_MODES = ("auto", "on-request", "yolo", "never", "plan")
HELP = """\
Type a message and press Enter. While the agent works, typing steers it; Ctrl+C cancels the turn.
Ctrl+D (on an empty line) leaves. Commands:
  /model [name]     show the model, or use NAME for the next turns
  /mode [MODE]      show the approval mode, or use MODE (auto, yolo, never, plan) from now on
  /todos            show the session's todo list
  /compact [NOTE]   summarise older turns to make room (NOTE: what to keep)
  /context          show how full the context window is
  /status           the session's model, context, tokens and cost
  /name NAME        rename this session
  /tree [all]       show the conversation tree (● active branch, ◀ head; all: no collapsing)
  /checkout ID [--files]  move the head to message ID (a user message comes back as a draft);
                    --files also restores the workspace files to that message (asks first)
  /undo             restore the files to before the last turn (again: the turn before)
  /redo             reapply the files the last /undo took back
  /diff [ID]        what the last turn (or the turn of user message ID) changed
  /fork [ID]        new session from message ID (default: here)
  /clone            new session holding this whole branch
  /new              start a new session
  /sessions         list this workspace's sessions
  /resume ID        switch to session ID
  /skill:NAME TASK  run TASK with skill NAME (gg skills list shows them)
  /image PATH       attach an image to the next message (/image alone: list, /image clear)
  /paste            attach the clipboard's image to the next message
  (a dropped image file's path in a message attaches it too)
  /help             this help"""


class Repl:
    """One interactive session on an initialized connection."""

    def __init__(
        self,
        client: Client,
        ui: Ui,
        snapshot: dict[str, Any],
        info: dict[str, Any],
        history: Path,
        approval: str | None = None,
        model: str | None = None,
        verbose: bool = False,
    ) -> None:
        self.client = client
        self.ui = ui
        self.snapshot = snapshot
        self.info = info
        self.history = history
        self.approval = approval
        self.model = model
        self.verbose = verbose
        self.draft: str | None = None
        # Images for the next message (gg/run.start images entries, ggcli.attach).
        self.images: list[dict[str, Any]] = []
        # gg/run.start fields of every turn (the budget and reasoning flags).
        self.run_params: dict[str, Any] = {}
        # Approvals can be answered only when the question (stderr) reaches the terminal too.
        self.interactive = _isatty(sys.stdin) and _isatty(sys.stderr)
        self.commands: dict[str, Callable[[str], None]] = {
            "model": self.cmd_model,
            "mode": self.cmd_mode,
            "todos": self.cmd_todos,
            "compact": self.cmd_compact,
            "context": self.cmd_context,
            "status": self.cmd_status,
            "name": self.cmd_name,
            "tree": self.cmd_tree,
            "checkout": self.cmd_checkout,
            "undo": self.cmd_undo,
            "redo": self.cmd_redo,
            "diff": self.cmd_diff,
            "fork": self.cmd_fork,
            "clone": self.cmd_clone,
            "new": self.cmd_new,
            "sessions": self.cmd_sessions,
            "resume": self.cmd_resume,
            "help": self.cmd_help,
            "image": self.cmd_image,
            "paste": self.cmd_paste,
        }

    @property
    def session_id(self) -> str:
        """The current session's id."""
        return str(self.snapshot.get("sessionId"))

    def run(self) -> int:
        """Read lines until Ctrl+D; returns the exit code."""
        readline = _setup_readline(self.history)
        self._banner()
        try:
            while True:
                if readline is not None and self.draft:
                    _prefill(readline, self.draft)
                self.draft = None
                try:
                    line = input("gg> ")
                except EOFError:
                    self.ui.err.write("\n")
                    return 0
                except KeyboardInterrupt:
                    self.ui.err.write("^C\n")
                    continue
                text = line.strip()
                if not text:
                    continue
                if text.startswith(FORCE_PREFIX):
                    self.skill_turn(text)
                elif text.startswith("/"):
                    if text in ("/quit", "/exit"):
                        return 0
                    self.command(text)
                else:
                    self.turn(line)
        finally:
            if readline is not None:
                try:
                    readline.write_history_file(str(self.history))
                except OSError:
                    pass

    def _banner(self) -> None:
        name = self.snapshot.get("name") or self.session_id
        model = self.model or self.snapshot.get("model") or "default model"
        self.ui.note(f"gg {__version__} · session {name} · {model}", "bold")
        self.ui.note("Ctrl+D to leave, Ctrl+C cancels a turn, /help for commands", "dim")

    def turn(self, prompt: str) -> None:
        """Run one prompt in the current session and follow it."""
        dropped = dropped_paths(prompt)
        # Files dragged into the terminal type their paths alone on the line: attached, and the
        # message comes next. A path inside a sentence stays text (the model may take no images).
        if dropped and len(dropped) == len(shlex.split(prompt)):
            self.images += [image_param(p) for p in dropped]
            self.ui.note(f"attached {describe(self.images)}; now type the message", "dim")
            return
        images, self.images = self.images, []
        try:
            run_id = start_run(
                self.client,
                self.session_id,
                prompt,
                interactive=self.interactive,
                approval=self.approval,
                model=self.model,
                images=images,
                extra=self.run_params,
            )
        except RpcError as exc:
            self.ui.note(f"gg: {exc.message}", "red")
            if images and exc.symbol == "invalid_params" and "images" in exc.message:
                self.ui.note("the images were not sent: /image clear, or attach others", "yellow")
                self.images = images
            if self.model and exc.symbol == "invalid_params" and "model" in exc.message:
                # A /model typo must not stick: go back to the session's model.
                self.ui.note(
                    f"/model {self.model} was not used; back to the session's model", "yellow"
                )
                self.model = None
            return
        opts = TurnOptions(
            interactive=self.interactive,
            steer=True,
            stdin_fd=sys.stdin.fileno(),
            verbose=self.verbose,
            show_usage=True,
        )
        runner = TurnRunner(self.client, self.ui, self.session_id, run_id, opts)
        runner.run()
        if runner.leftover:  # typed during the run but not sent: it comes back as a draft
            self.draft = runner.leftover

    def skill_turn(self, text: str) -> None:
        """Run `/skill:<name> task`: the daemon inlines the skill, then it is an ordinary turn."""
        try:
            prompt = expand_prompt(self.client, text)
        except RpcError as exc:
            self.ui.note(f"gg: {exc.message}", "red")
            return
        self.turn(prompt)

    def command(self, text: str) -> None:
        """Dispatch one slash command; errors from the daemon are printed, never raised."""
        name, _, arg = text[1:].partition(" ")
        handler = self.commands.get(name)
        if handler is None:
            self.ui.note(f"unknown command /{name} (try /help)", "yellow")
            return
        try:
            handler(arg.strip())
        except RpcError as exc:
            if exc.code == METHOD_NOT_FOUND:
                self.ui.note(f"/{name} is not supported by this ggd yet", "yellow")
            else:
                self.ui.note(f"gg: {exc.message}", "red")

    def _switch(self, snap: dict[str, Any], verb: str) -> None:
        self.snapshot = snap
        name, sid = snap.get("name"), snap.get("sessionId")
        if snap.get("notice"):  # the daemon's own line says it ("Forked into ..."): once only
            self.ui.note(str(snap["notice"]), "green")
        else:
            self.ui.note(
                f"{verb} session {name} ({sid})" if name else f"{verb} session {sid}", "green"
            )
        if snap.get("draft"):
            self.draft = str(snap["draft"])

    def _take_update(self, update: dict[str, Any]) -> None:
        if update.get("notice"):
            self.ui.note(str(update["notice"]), "dim")
        if update.get("draft"):
            self.draft = str(update["draft"])

    def cmd_model(self, arg: str) -> None:
        """Show or set the model for the next turns."""
        if arg:
            # Checked now, not at the next send: a typo is said at once and changes nothing.
            try:
                res = self.client.request("gg/model.check", {"model": arg})
            except RpcError as exc:
                if exc.code != METHOD_NOT_FOUND:  # an older ggd checks it at the next send
                    raise
                res = {"ok": True}
            if not res.get("ok"):
                self.ui.note(f"gg: {res.get('problem') or 'unknown model'}", "red")
                current = self.model or self.snapshot.get("model") or "the default"
                self.ui.note(f"model unchanged: {current}", "yellow")
                return
            self.model = arg
            self.ui.note(f"model for the next turns: {arg}", "green")
            return
        self.ui.note(f"model: {self.model or self.snapshot.get('model') or 'default'}")
        models = self.info.get("models") or []
        if models:
            self.ui.note("available: " + ", ".join(str(m) for m in models), "dim")

    def cmd_compact(self, arg: str) -> None:
        """Ask the daemon to summarise older turns now (arg: instructions for the summary)."""
        params: dict[str, Any] = {"sessionId": self.session_id}
        if arg:
            params["instructions"] = arg
        self.ui.note("compacting…", "dim")
        result = self.client.request("gg/session.compact", params) or {}
        if not isinstance(result, dict) or not result.get("compacted"):
            self.ui.note("nothing to compact yet: the conversation is still short", "yellow")
            return
        self.ui.note("context compacted; the model now sees this summary of older turns:", "green")
        self.ui.err.write(str(result.get("summary") or "") + "\n")
        self.ui.err.flush()
        self.cmd_context("")

    def cmd_context(self, arg: str) -> None:
        """Show how full the context window is."""
        result = self.client.request("gg/session.context", {"sessionId": self.session_id})
        self.ui.note(format_context(result if isinstance(result, dict) else {}))

    def cmd_status(self, arg: str) -> None:
        """The session, its model, how full the context is, and what the session has spent."""
        result = self.client.request("gg/session.context", {"sessionId": self.session_id})
        info = result if isinstance(result, dict) else {}
        name = self.snapshot.get("name") or self.session_id
        self.ui.note(f"session: {name} ({self.session_id})")
        self.ui.note(f"model: {self.model or info.get('model') or 'default'}")
        self.ui.note(format_context(info))
        usage = info.get("usage")
        if isinstance(usage, dict):
            self.ui.note(format_usage(usage, "session"))
        else:
            self.ui.note("session: no model requests yet", "dim")

    def cmd_name(self, arg: str) -> None:
        """Rename the session."""
        if not arg:
            self.ui.note("usage: /name NAME", "yellow")
            return
        params = {"sessionId": self.session_id, "name": arg}
        self.snapshot = self.client.request("gg/session.rename", params) or self.snapshot
        self.ui.note(f"renamed to {arg}", "green")

    def cmd_tree(self, arg: str) -> None:
        """Print the conversation tree."""
        self.snapshot = self.client.request("gg/session.get", {"sessionId": self.session_id})
        tree = self.snapshot.get("tree") or []
        self.ui.err.write(format_tree(tree, self.ui.err_style, full=arg == "all") + "\n")
        self.ui.err.flush()

    def cmd_checkout(self, arg: str) -> None:
        """Move the head to a message (--files: and restore the files there, asking first)."""
        words = arg.split()
        files = "--files" in words
        words = [w for w in words if w != "--files"]
        if len(words) != 1:
            self.ui.note("usage: /checkout ID [--files] (ids from /tree)", "yellow")
            return
        arg = words[0]
        if files:
            params = {"sessionId": self.session_id, "nodeId": arg}
            preview = checkpoints.show_preview(
                self.client, "gg/session.restore", params, self.ui.err
            )
            conflicts = bool(preview.get("conflicts"))
            if not self._ask("move the head there and restore these files?") or (
                conflicts and not self._ask("overwrite the files changed outside gg?")
            ):
                self.ui.note("nothing changed", "yellow")
                return
            update = self._action("tree", arg, restore_files=True, confirm=conflicts)
            self.snapshot = update
            self.ui.note(f"head moved to {arg}; files restored", "green")
            self._take_update(update)
            return
        update = self._action("tree", arg)
        self.snapshot = update
        self.ui.note(f"head moved to {arg}", "green")
        self._take_update(update)

    def cmd_undo(self, arg: str) -> None:
        """Restore the files to before the last turn, after showing which files change."""
        params = {"sessionId": self.session_id}
        checkpoints.restore(self.client, "gg/session.undo", params, self.ui.err, self._ask)

    def cmd_redo(self, arg: str) -> None:
        """Reapply what the last /undo took back."""
        params = {"sessionId": self.session_id}
        checkpoints.restore(self.client, "gg/session.redo", params, self.ui.err, self._ask)

    def cmd_diff(self, arg: str) -> None:
        """Show what the last turn (or the turn of user message ARG) changed."""
        params: dict[str, Any] = {"sessionId": self.session_id}
        if arg:
            params["nodeId"] = arg
        checkpoints.show_diff(self.client.request("gg/session.diff", params), self.ui.err)

    def _ask(self, question: str) -> bool:
        if not self.interactive:
            self.ui.note(f"{question} (no terminal to ask: use gg undo --yes)", "yellow")
            return False
        try:
            return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")
        except (EOFError, KeyboardInterrupt):
            return False

    def cmd_fork(self, arg: str) -> None:
        """Fork a new session from a message (default: the current head)."""
        self._switch(self._action("fork", arg or None), "forked into")

    def cmd_clone(self, arg: str) -> None:
        """Clone the active branch into a new session."""
        self._switch(self._action("clone", None), "cloned into")

    def cmd_new(self, arg: str) -> None:
        """Start a new session."""
        params = {"name": arg} if arg else {}
        self._switch(self.client.request("gg/session.create", params), "new")

    def cmd_sessions(self, arg: str) -> None:
        """List this workspace's sessions."""
        page = self.client.request("gg/session.list", {"limit": 20}) or {}
        text = format_sessions(page.get("sessions") or [], self.ui.err_style)
        self.ui.err.write(text + "\n")
        self.ui.err.flush()

    def cmd_resume(self, arg: str) -> None:
        """Switch to another session."""
        if not arg:
            self.ui.note("usage: /resume ID (ids from /sessions)", "yellow")
            return
        self._switch(self.client.request("gg/session.open", {"sessionId": arg}), "resumed")

    def cmd_image(self, arg: str) -> None:
        """Attach an image file to the next message, list the attachments, or clear them."""
        if arg == "clear":
            self.images = []
            self.ui.note("no images attached", "dim")
            return
        if arg:
            try:
                paths = shlex.split(arg)
                self.images += [image_param(p) for p in paths]
            except (AttachError, ValueError) as exc:
                self.ui.note(f"gg: /image: {exc}", "red")
                return
        if self.images:
            self.ui.note(f"attached to the next message: {describe(self.images)}", "dim")
        else:
            self.ui.note("no images attached (/image PATH attaches one)", "dim")

    def cmd_paste(self, arg: str) -> None:
        """Attach the clipboard's image to the next message."""
        try:
            self.images.append(clipboard_image())
        except AttachError as exc:
            self.ui.note(f"gg: /paste: {exc}", "red")
            return
        self.ui.note(f"attached to the next message: {describe(self.images)}", "dim")

    def cmd_mode(self, arg: str) -> None:
        """Show or set the approval mode of the next turns (plan mode: research, then a plan)."""
        if not arg:
            self.ui.note(f"approval mode: {self.approval or 'the daemon default'}", "dim")
            return
        if arg not in APPROVAL_MODES:
            self.ui.note(f"unknown mode {arg!r}; use one of {', '.join(APPROVAL_MODES)}", "yellow")
            return
        self.approval = arg
        self.ui.note(f"approval mode {arg} from the next turn", "green")

    def cmd_todos(self, arg: str) -> None:
        """Print the session's current todo list."""
        res = self.client.request("gg/session.todos", {"sessionId": self.session_id}) or {}
        self.ui.err.write(todo_block(list(res.get("todos") or []), self.ui.err_style))
        self.ui.err.flush()

    def cmd_help(self, arg: str) -> None:
        """Print the help."""
        self.ui.err.write(HELP + "\n")
        self.ui.err.flush()

    def _action(
        self,
        action: str,
        node_id: str | None,
        *,
        restore_files: bool = False,
        confirm: bool = False,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"sessionId": self.session_id, "action": action}
        if node_id:
            params["nodeId"] = node_id
        if restore_files:
            params["restoreFiles"] = True
            params["confirmConflicts"] = confirm
        return dict(self.client.request("gg/session.action", params) or {})


def _setup_readline(history: Path) -> Any:
    try:
        import readline
    except ImportError:
        return None
    try:
        history.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Create it owner-only before readline writes to it: prompts can hold private text.
        os.close(os.open(history, os.O_CREAT | os.O_WRONLY, 0o600))
        readline.read_history_file(str(history))
    except OSError:
        pass
    readline.set_history_length(2000)
    return readline


def _prefill(readline: Any, text: str) -> None:
    def hook() -> None:
        readline.insert_text(text)
        readline.redisplay()
        readline.set_pre_input_hook(None)

    readline.set_pre_input_hook(hook)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
