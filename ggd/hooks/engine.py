"""Firing hooks: the JSON each event gets on stdin, and what exit codes and JSON output decide.

As Claude Code's hook reference specifies:
- exit 0: go on. Stdout that is a JSON object is read (below); other stdout is context for the
  model on UserPromptSubmit and SessionStart, and ignored elsewhere.
- exit 2: block. Stderr is the reason: given to the model (PreToolUse denies the call, PostToolUse
  adds it to the result, Stop and SubagentStop send the model back to work) or to the user
  (UserPromptSubmit refuses the prompt).
- any other exit, a timeout, a command that cannot start: a failure, reported (a `hook_failed`
  run event where a run exists, and the log); the run goes on as if the hook had said nothing.
- JSON: `continue: false` (+ `stopReason`) blocks; `decision: "block"` (+ `reason`) blocks;
  `hookSpecificOutput.permissionDecision` allow / deny / ask (+ `permissionDecisionReason`) for
  PreToolUse (the older `decision: "approve" | "block"` too); `hookSpecificOutput.
  additionalContext` is added for the model.
Several hooks of one event run in parallel; a block or deny wins over ask, ask over allow.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import HookCommand, load
from .names import claude_name, tool_input
from .runner import HookRun, hook_env, run_hook

log = logging.getLogger("ggd.hooks")

Report = Callable[[str, str, str], None]  # (event, command, problem)

# gg's approval modes as Claude Code's permission_mode values.
PERMISSION_MODES = {
    "auto": "default",
    "on-request": "default",
    "yolo": "bypassPermissions",
    "never": "bypassPermissions",
    "plan": "plan",
}
_RANK = {"deny": 3, "ask": 2, "allow": 1}


@dataclass(frozen=True)
class Scope:
    """Where hooks fire: the session, its workspace and run, and where failures are reported."""

    session_id: str
    workspace: Path
    transcript_path: Path
    approval_mode: str = "auto"
    report: Report | None = None

    def common(self, event: str) -> dict[str, Any]:
        """The fields every event's input has."""
        return {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript_path),
            "cwd": str(self.workspace),
            "permission_mode": PERMISSION_MODES.get(self.approval_mode, "default"),
            "hook_event_name": event,
        }


@dataclass
class Outcome:
    """What the hooks of one event decided together."""

    blocked: bool = False
    reason: str = ""
    decision: str | None = None  # PreToolUse: allow, deny or ask
    decision_reason: str = ""
    context: list[str] = field(default_factory=list)
    runs: list[tuple[str, HookRun]] = field(default_factory=list)  # (command, what it did)
    stdin: dict[str, Any] = field(default_factory=dict)  # the input the hooks were given

    @property
    def context_text(self) -> str:
        """The additional context of every hook, one block each."""
        return "\n\n".join(c for c in self.context if c)


def _json_object(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _read_one(event: str, hook: HookCommand, run: HookRun, out: Outcome, report: Report) -> None:
    if run.error:
        report(event, hook.command, run.error)
        return
    if run.exit_code == 2:
        out.blocked = True
        out.reason = out.reason or run.stderr.strip() or "blocked by a hook (exit 2)"
        if event == "PreToolUse":
            _decide(out, "deny", run.stderr.strip())
        return
    if run.exit_code != 0:
        tail = run.stderr.strip()[-500:]
        report(event, hook.command, f"exit {run.exit_code}" + (f": {tail}" if tail else ""))
        return
    data = _json_object(run.stdout)
    if data is None:
        if event in ("UserPromptSubmit", "SessionStart") and run.stdout.strip():
            out.context.append(run.stdout.strip())
        return
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if data.get("continue") is False:
        out.blocked = True
        out.reason = out.reason or str(data.get("stopReason") or "a hook stopped it")
    decision, reason = data.get("decision"), str(data.get("reason") or "")
    if event == "PreToolUse":
        verdict = specific.get("permissionDecision")
        if verdict in _RANK:
            _decide(out, str(verdict), str(specific.get("permissionDecisionReason") or ""))
        elif decision in ("approve", "block"):
            _decide(out, "allow" if decision == "approve" else "deny", reason)
    elif decision == "block":
        out.blocked = True
        out.reason = out.reason or reason or "blocked by a hook"
    context = specific.get("additionalContext")
    if isinstance(context, str) and context.strip():
        out.context.append(context.strip())


def _decide(out: Outcome, decision: str, reason: str) -> None:
    if out.decision is None or _RANK[decision] > _RANK[out.decision]:
        out.decision, out.decision_reason = decision, reason


class HookEngine:
    """The daemon's hooks: reads the configuration at each event (edits apply at once)."""

    def __init__(
        self, home: Path, config_section: Any = None, env: Mapping[str, str] | None = None
    ) -> None:
        self.home = home
        self.config_section = config_section
        self.env = dict(os.environ if env is None else env)
        self._started: set[str] = set()  # sessions whose SessionStart fired in this daemon
        self._reported: set[tuple[str, str]] = set()  # (session, configuration problem) said
        # The hooks of each live run by run id (ggd.app.hooks.RunHooks), held weakly.
        self.runs: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()

    def hooks_for(
        self, workspace: Path, event: str, *names: str, scope: Scope | None = None
    ) -> list[HookCommand]:
        """The hooks an event runs in a workspace (untrusted workspace hooks never). A broken
        source is reported once per session (its hooks do not run; the others do)."""
        loaded = load(self.home, workspace, self.config_section)
        for problem in loaded.errors:
            key = (scope.session_id if scope else "", problem)
            if key in self._reported:
                continue
            self._reported.add(key)
            log.warning("hooks configuration: %s", problem)
            if scope is not None and scope.report is not None:
                scope.report(event, "(configuration)", problem)
        hooks = [h for h in loaded.for_event(event) if not names or h.matches(*names)]
        unique: dict[str, HookCommand] = {}
        for h in hooks:  # the same command configured twice runs once, as in Claude Code
            unique.setdefault(h.command, h)
        return list(unique.values())

    def configured(self, workspace: Path) -> bool:
        """Whether any hook would run in this workspace."""
        return bool(load(self.home, workspace, self.config_section).hooks)

    async def fire(
        self, event: str, payload: dict[str, Any], scope: Scope, names: Sequence[str] = ()
    ) -> Outcome:
        """Run the matching hooks of one event in parallel and combine what they say."""
        out = Outcome(stdin={**scope.common(event), **payload})
        hooks = self.hooks_for(scope.workspace, event, *names, scope=scope)
        if not hooks:
            return out
        stdin = json.dumps(out.stdin).encode()
        env = hook_env(
            self.env,
            session_id=scope.session_id,
            workspace=scope.workspace,
            event=event,
            home=self.home,
        )

        def report(ev: str, command: str, problem: str) -> None:
            log.warning("hook failed", extra={"event": ev, "command": command, "problem": problem})
            if scope.report is not None:
                scope.report(ev, command, problem)

        runs = await asyncio.gather(
            *(
                run_hook(h.command, stdin, env=env, cwd=scope.workspace, seconds=h.timeout)
                for h in hooks
            )
        )
        for hook, run in zip(hooks, runs, strict=True):
            out.runs.append((hook.command, run))
            try:
                _read_one(event, hook, run, out, report)
            except Exception as exc:  # a hook's odd output must never fail the run
                report(event, hook.command, f"unreadable output: {exc}")
        return out

    # -- events before a run ------------------------------------------------------------------

    async def before_prompt(self, scope: Scope, prompt: str, resumed: bool, model: str) -> str:
        """SessionStart (first prompt of a session in this daemon), then UserPromptSubmit.

        Returns the prompt with the hooks' context appended; raises PromptBlocked with the
        reason for the user when a UserPromptSubmit hook blocks it.
        """
        notes: list[str] = []
        if scope.session_id not in self._started:
            self._started.add(scope.session_id)
            source = "resume" if resumed else "startup"
            started = await self.fire(
                "SessionStart", {"source": source, "model": model}, scope, names=(source,)
            )
            if started.context_text:
                notes.append(started.context_text)
        submitted = await self.fire("UserPromptSubmit", {"prompt": prompt}, scope)
        if submitted.blocked:
            raise PromptBlocked(submitted.reason)
        if submitted.context_text:
            notes.append(submitted.context_text)
        if not notes:
            return prompt
        return prompt + "".join(f"\n\n<hook-context>\n{n}\n</hook-context>" for n in notes)

    # -- tool and stop events ------------------------------------------------------------------

    async def pre_tool(
        self, scope: Scope, name: str, call_id: str, args: dict[str, Any]
    ) -> Outcome:
        """PreToolUse for one call (matched by Claude Code's name of the tool or gg's)."""
        payload = {
            "tool_name": claude_name(name),
            "tool_input": tool_input(name, args, scope.workspace),
            "tool_use_id": call_id,
            "gg_tool_name": name,
        }
        return await self.fire("PreToolUse", payload, scope, names=(claude_name(name), name))

    async def post_tool(
        self, scope: Scope, name: str, call_id: str, args: dict[str, Any], output: str, error: bool
    ) -> Outcome:
        """PostToolUse after one call ran (also when the tool reported an error)."""
        payload = {
            "tool_name": claude_name(name),
            "tool_input": tool_input(name, args, scope.workspace),
            "tool_response": {"output": output, "is_error": error, "success": not error},
            "tool_use_id": call_id,
            "gg_tool_name": name,
        }
        return await self.fire("PostToolUse", payload, scope, names=(claude_name(name), name))

    async def stop(self, scope: Scope, event: str, answer: str, active: bool) -> str:
        """Stop or SubagentStop: '' lets the run end, else the reason it must go on."""
        payload = {"stop_hook_active": active, "last_assistant_message": answer}
        out = await self.fire(event, payload, scope)
        return (out.reason or "a Stop hook asked to continue") if out.blocked else ""

    async def sample(
        self, scope: Scope, event: str, tool: str, args: dict[str, Any], prompt: str
    ) -> Outcome:
        """`gg hooks test EVENT`: fire one event with sample input, as a run would."""
        if event == "PreToolUse":
            return await self.pre_tool(scope, tool, "call_test", args)
        if event == "PostToolUse":
            return await self.post_tool(scope, tool, "call_test", args, "sample output", False)
        samples: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
            "SessionStart": ({"source": "startup", "model": ""}, ("startup",)),
            "UserPromptSubmit": ({"prompt": prompt}, ()),
            "Stop": ({"stop_hook_active": False, "last_assistant_message": "Done."}, ()),
            "SubagentStop": ({"stop_hook_active": False, "last_assistant_message": "Done."}, ()),
            "Notification": (
                {
                    "message": "gg needs your permission to use bash",
                    "notification_type": "permission_prompt",
                },
                ("permission_prompt",),
            ),
        }
        payload, names = samples[event]
        return await self.fire(event, payload, scope, names=names)

    async def notify(self, scope: Scope, message: str, kind: str) -> None:
        """Notification: gg needs the user (an approval waits). Nothing it says is used."""
        payload = {"message": message, "notification_type": kind}
        await self.fire("Notification", payload, scope, names=(kind,))


class PromptBlocked(Exception):
    """A UserPromptSubmit hook refused the prompt; the message is its reason for the user."""


__all__ = ["PERMISSION_MODES", "HookEngine", "Outcome", "PromptBlocked", "Scope"]
