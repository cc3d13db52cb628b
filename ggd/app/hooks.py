"""Hooks bound to gg's runs: the agent's ToolHooks, the prompt hooks of run.start, Notification
for a waiting approval, and `fire_subagent_stop` for the subagent code.

The app calls four functions here and nothing else: `RunHooks.for_run` (turns.py, the loop's
hooks), `before_prompt` (runs.py, before the prompt is saved), `approval_pending` (runs.py, when
a run starts waiting for a person) and `fire_subagent_stop` (the subagents' runner).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggd.agent.hooks import PreToolVerdict
from ggd.hooks import HookCommand, HookConfigError, HookEngine, Scope, load, trust_workspace
from ggd.hooks.engine import PromptBlocked
from ggd.protocol import errors as E
from ggd.protocol import events as W
from ggd.providers.types import ToolCall
from ggd.tools.base import ApprovalInfo, Tool, ToolResult

if TYPE_CHECKING:
    from .run import Run
    from .service import Service

log = logging.getLogger("ggd.hooks")
# Notification hooks in flight (fire and forget: an approval never waits for them).
_NOTIFYING: set[asyncio.Task[None]] = set()


def transcript_path(home: Path, session_id: str) -> Path:
    """The session's journal, the `transcript_path` hooks are given (gg's JSONL format)."""
    return home / "sessions" / f"{session_id}.jsonl"


def reporter(run: Run) -> Any:
    """Report a failed hook as a `hook_failed` event of the run (every client sees it)."""

    def report(event: str, command: str, problem: str) -> None:
        try:
            run.emit(W.HookFailedEvent, hook_event=event, command=command, error=problem)
        except Exception:  # reporting must never fail the run
            log.debug("could not emit hook_failed", exc_info=True)

    return report


class RunHooks:
    """The hooks of one run, as the agent loop calls them (ggd.agent.hooks.ToolHooks)."""

    def __init__(
        self, engine: HookEngine, scope: Scope, run_id: str, stop_event: str = "Stop"
    ) -> None:
        self.engine = engine
        self.scope = scope
        self.stop_event = stop_event
        self.notified: set[str] = set()
        engine.runs[run_id] = self  # weakly: the run's loop holds it, and it goes with the run

    @classmethod
    def for_run(
        cls, engine: HookEngine, run: Run, svc: Service, stop_event: str = "Stop"
    ) -> RunHooks:
        """The hooks of a run (its loop holds them; they go with it). A subagent's child run
        passes stop_event="SubagentStop": its answer fires SubagentStop instead of Stop."""
        scope = Scope(
            session_id=svc.id,
            workspace=svc.workspace.root,
            transcript_path=transcript_path(engine.home, svc.id),
            approval_mode=run.approval_mode,
            report=reporter(run),
        )
        return cls(engine, scope, run.id, stop_event)

    @staticmethod
    def of(engine: HookEngine, run_id: str) -> RunHooks | None:
        """The hooks of a live run, if its loop was built."""
        hooks = engine.runs.get(run_id)
        return hooks if isinstance(hooks, RunHooks) else None

    async def pre_tool(self, call: ToolCall, tool: Tool, info: ApprovalInfo) -> PreToolVerdict:
        """PreToolUse: the combined decision, its reason and context."""
        out = await self.engine.pre_tool(self.scope, call.name, call.id, call.arguments)
        decision = out.decision
        if decision not in ("allow", "deny", "ask"):
            decision = None
        return PreToolVerdict(decision, out.decision_reason, out.context_text)  # type: ignore[arg-type]

    async def post_tool(self, call: ToolCall, result: ToolResult) -> str:
        """PostToolUse: a block's reason and any context, for the model."""
        out = await self.engine.post_tool(
            self.scope, call.name, call.id, call.arguments, result.output, result.is_error
        )
        notes = [f"[PostToolUse hook] {out.reason}"] if out.blocked else []
        if out.context_text:
            notes.append(out.context_text)
        return "\n\n".join(notes)

    async def stop(self, answer: str, active: bool) -> str:
        """Stop: '' ends the run, else the reason the model goes on with."""
        return await self.engine.stop(self.scope, self.stop_event, answer, active)


async def before_prompt(
    engine: HookEngine, svc: Service, prompt: str, mode: str, model: str
) -> str:
    """SessionStart and UserPromptSubmit before a run's prompt is saved; a block is a typed
    error whose message is the hook's reason (the user reads it; nothing was saved)."""
    if svc.active_run_id is not None or not engine.configured(svc.workspace.root):
        return prompt  # a busy session refuses the prompt anyway: its hooks do not run for it
    scope = Scope(
        session_id=svc.id,
        workspace=svc.workspace.root,
        transcript_path=transcript_path(engine.home, svc.id),
        approval_mode=mode,
    )
    try:
        return await engine.before_prompt(scope, prompt, svc.file.message_count > 0, model)
    except PromptBlocked as exc:
        raise E.InvalidActionError(f"a UserPromptSubmit hook blocked the prompt: {exc}") from None


def approval_pending(engine: HookEngine, run: Run) -> None:
    """Notification for each approval the run starts waiting on (once per approval)."""
    hooks = RunHooks.of(engine, run.id)
    if hooks is None:
        return
    for approval_id, pending in list(run.pending.items()):
        if approval_id in hooks.notified:
            continue
        hooks.notified.add(approval_id)
        message = f"gg needs your permission to use {pending.approval.tool_name}"
        task = asyncio.get_running_loop().create_task(
            hooks.engine.notify(hooks.scope, message, "permission_prompt")
        )
        _NOTIFYING.add(task)
        task.add_done_callback(_NOTIFYING.discard)


async def fire_subagent_stop(
    engine: HookEngine, child: Run, svc: Service, answer: str, active: bool = False
) -> str:
    """SubagentStop for a child run that answered: '' lets it end, else the reason it must go
    on (give it to the child as its next message). For the subagent runner to call."""
    scope = Scope(
        session_id=svc.id,
        workspace=svc.workspace.root,
        transcript_path=transcript_path(engine.home, svc.id),
        approval_mode=child.approval_mode,
        report=reporter(child),
    )
    return await engine.stop(scope, "SubagentStop", answer, active)


__all__ = [
    "HookCommand",
    "HookConfigError",
    "HookEngine",
    "RunHooks",
    "Scope",
    "approval_pending",
    "before_prompt",
    "fire_subagent_stop",
    "load",
    "transcript_path",
    "trust_workspace",
]
