"""RunManager: admission, the run task, approvals, steering, subscriptions and expiry."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggd.agent import (
    AgentError,
    AgentLoop,
    AgentOptions,
    ApprovalDecision,
    CompactionSettings,
    PathLocks,
    compact,
    estimate_tokens,
)
from ggd.protocol import Approval, SessionEvent, UsageInfo
from ggd.protocol import errors as E
from ggd.providers.types import ToolCall
from ggd.tools import Tool, ToolContext, builtin_tools
from ggd.tools.base import ApprovalInfo

from .events import to_wire
from .policy import decide, start_refusal
from .run import Run
from .runtime import Runtime
from .service import Service
from .transcript import SessionTranscript

log = logging.getLogger("ggd.app")


@dataclass
class RunOptions:
    """Admission, timeouts and retention."""

    max_active: int = 16
    run_timeout: float = 1800.0
    keep_completed: int = 256
    keep_seconds: float = 3600.0
    sandbox: bool = False
    max_turns: int = 500
    default_approval_mode: str = "auto"
    bash_login_shell: bool = False  # newcomer fix: bash -c unless config bashLoginShell


class RunManager:
    """Every run of the daemon; one active run per session."""

    def __init__(self, runtime: Runtime, registry: Any, opts: RunOptions, home: Path) -> None:
        self.runtime = runtime
        self.registry = registry
        self.opts = opts
        self.home = home
        self.path_locks = PathLocks()
        self.active: dict[str, Run] = {}
        self.finished: OrderedDict[str, Run] = OrderedDict()
        self.session_allows: dict[str, set[str]] = {}

    # -- queries ------------------------------------------------------------------------------

    def capabilities(self) -> list[str]:
        """Capabilities the run layer adds."""
        caps = ["runs", "approvals", "steering", "tools.builtin"]
        if self.opts.sandbox:
            caps.append("sandbox")
        return caps

    def active_count(self) -> int:
        """Runs admitted and not finished."""
        return len(self.active)

    def active_by_session(self) -> dict[str, str]:
        """Session id -> active run id."""
        return {r.session_id: r.id for r in self.active.values()}

    def get(self, run_id: str) -> Run:
        """A run by id (active or recently finished)."""
        self._expire()
        run = self.active.get(run_id) or self.finished.get(run_id)
        if run is None:
            raise E.RunNotFoundError(f"no run with id {run_id!r} (it may have expired)")
        return run

    def active_for(self, session_id: str) -> Run | None:
        """The session's active run."""
        return next((r for r in self.active.values() if r.session_id == session_id), None)

    # -- commands -----------------------------------------------------------------------------

    async def start(
        self, svc: Service, prompt: str, mode: str | None, interactive: bool, model: str | None
    ) -> Run:
        """Admit and start a run on a session."""
        mode = mode or self.opts.default_approval_mode
        if self.runtime.closed:
            raise E.RuntimeClosedError("the daemon is shutting down")
        refusal = start_refusal(mode, interactive)
        if refusal:
            raise E.InvalidActionError(refusal)
        # newcomer fix: an unknown provider or a model the endpoint does not list is an error
        # before the run starts (it used to fall through to the default/demo model). Checked
        # first: nothing may await between the admission checks below and registering the run.
        check = getattr(self.registry, "check_model", None)
        if check is not None:
            problem = await check(model or svc.file.model or self.registry.default_model)
            if problem:
                raise E.InvalidParamsError(problem)
        if svc.active_run_id is not None:
            raise E.RunConflictError(
                "the session already has an active run; steer it, wait, or cancel it first"
            )
        if len(self.active) >= self.opts.max_active:
            raise E.RunCapacityError(
                f"the daemon is running {self.opts.max_active} runs, its limit; try again shortly"
            )
        model_ref = model or svc.file.model or self.registry.default_model
        try:
            provider, bare = self.registry.get(model_ref)
        except (ValueError, KeyError):
            raise E.InvalidParamsError(
                f"invalid params: model: unknown model {model_ref!r}"
            ) from None
        run = Run(
            session_id=svc.id,
            interactive=interactive,
            approval_mode=mode,
            model=model_ref,
            workspace_id=svc.workspace.id,
        )
        run.on_pending_change = self._pending_changed
        svc.active_run_id = run.id
        self.active[run.id] = run
        run.emit("run_started", prompt=prompt)
        log.info(
            "run started",
            extra={"run": run.id, "session": svc.id, "model": model_ref, "mode": mode},
        )
        self.runtime.bus.publish(
            SessionEvent(session_id=svc.id, type="run_started", run_id=run.id), svc.workspace.id
        )
        loop = AgentLoop(
            provider,
            bare,
            builtin_tools(),
            ToolContext(
                workspace=svc.workspace.root,
                log_dir=self.home / "logs" / "tools",
                sandbox=self.opts.sandbox,
                session_id=svc.id,
                run_id=run.id,
                login_shell=self.opts.bash_login_shell,
            ),
            SessionTranscript(svc),
            lambda ev: _emit_agent(run, ev),
            self._approver(run),
            run.steering,
            self.path_locks,
            AgentOptions(
                max_turns=self.opts.max_turns,
                gg_home=self.home,
                context_window=self.registry.context_window(model_ref),
            ),
        )
        switch = model if model and model != svc.file.model else None
        run.task = asyncio.create_task(
            self._drive(run, svc, loop, prompt, switch), name=f"run {run.id}"
        )
        return run

    async def _drive(
        self, run: Run, svc: Service, loop: AgentLoop, prompt: str, switch: str | None
    ) -> None:
        try:
            async with asyncio.timeout(self.opts.run_timeout):
                if switch is not None:  # the session remembers the model it was last run with
                    await svc.write(lambda sf: sf.append("model", {"model": switch}))
                outcome = await loop.run(prompt)
            u = outcome.usage
            run.usage = UsageInfo(
                prompt_tokens=u.prompt_tokens,
                completion_tokens=u.completion_tokens,
                total_tokens=u.total_tokens,
            )
            run.emit("run_completed", content=outcome.content, usage=run.usage)
        except asyncio.CancelledError:
            run.cancel_approvals("cancel")
            run.emit("run_canceled")
        except TimeoutError:
            run.cancel_approvals("timeout")
            # Name the limit and how to raise it (newcomer fix).
            run.error = (
                f"run timeout reached: the run took longer than {self.opts.run_timeout:g} s "
                "(runTimeoutSeconds); raise it with `ggd --run-timeout SECONDS` or "
                '"runTimeoutSeconds" in GG_HOME/config.json'
            )
            run.emit("run_failed", error=run.error, error_code="run_timeout", retryable=True)
        except AgentError as exc:
            run.cancel_approvals("cancel")
            run.error = exc.message if hasattr(exc, "message") else str(exc)
            run.emit("run_failed", error=run.error, error_code=exc.code, retryable=exc.retryable)
        except E.GgError as exc:
            run.cancel_approvals("cancel")
            run.error = exc.message
            run.emit(
                "run_failed", error=exc.message, error_code=exc.symbol, retryable=exc.is_retryable
            )
        except Exception:
            log.exception("run crashed", extra={"run": run.id, "session": run.session_id})
            run.cancel_approvals("cancel")
            run.error = "internal error; see the daemon log"
            run.emit("run_failed", error=run.error, error_code="internal_error", retryable=False)
        finally:
            self.active.pop(run.id, None)
            if svc.active_run_id == run.id:
                svc.active_run_id = None
            self.finished[run.id] = run
            self._expire()
            log.info(
                "run finished",
                extra={"run": run.id, "session": run.session_id, "status": run.status},
            )
            self.runtime.bus.publish(
                SessionEvent(
                    session_id=run.session_id, type="run_finished", run_id=run.id, status=run.status
                ),
                run.workspace_id,
            )

    def cancel(self, run_id: str) -> Run:
        """Cancel a run: its task is cancelled, which kills running tools."""
        run = self.get(run_id)
        if run.task is not None and not run.task.done():
            run.task.cancel()
        return run

    def approve(self, run_id: str, approval_id: str, allow: bool, scope: str) -> None:
        """Answer an approval; allow-for-session remembers the tool for this session."""
        run = self.get(run_id)
        pending = run.pending.get(approval_id)
        run.answer(approval_id, allow, scope)
        if allow and scope == "session" and pending is not None:
            if pending.approval.risk != "dangerous":
                self.session_allows.setdefault(run.session_id, set()).add(
                    pending.approval.tool_name
                )

    def steer(self, session_id: str, text: str, follow_up: bool) -> Run:
        """Queue steering (next model boundary) or a follow-up (after the answer)."""
        run = self.active_for(session_id)
        if run is None:
            raise E.RunNotFoundError("the session has no active run; start one with gg/run.start")
        run.steering.push(text, follow_up=follow_up)
        return run

    async def compact(self, svc: Service, instructions: str | None) -> str | None:
        """Summarise older turns now; refused while a run is active."""
        if svc.active_run_id is not None:
            raise E.RunConflictError("the session has an active run; compact after it finishes")
        model_ref = svc.file.model or self.registry.default_model
        provider, bare = self.registry.get(model_ref)
        try:
            summary = await compact(
                provider, bare, SessionTranscript(svc), CompactionSettings(), None, instructions
            )
        except AgentError as exc:
            raise E.InternalError(str(exc), retryable=exc.retryable) from None
        if summary is not None:
            self.runtime.bus.publish(
                SessionEvent(session_id=svc.id, type="compacted"), svc.workspace.id
            )
        return summary

    def context(self, svc: Service) -> dict[str, Any]:
        """Estimated context use of the session (what the next request would carry)."""
        ctx = SessionTranscript(svc).context()
        msgs = [m for _, m in ctx.messages]
        model_ref = svc.file.model or self.registry.default_model
        window = self.registry.context_window(model_ref)
        summary_tokens = (
            estimate_tokens([{"role": "system", "content": ctx.summary}]) if ctx.summary else 0
        )
        return {
            "model": model_ref,
            "context_tokens": estimate_tokens(msgs) + summary_tokens,
            "context_window": window,
            "prompt_budget": CompactionSettings().budget(window),
            "message_count": len(msgs),
            "has_summary": ctx.summary is not None,
        }

    def drop_subscriber(self, conn: Any) -> None:
        """A connection closed: forget its subscriptions (runs and approvals go on)."""
        for run in [*self.active.values(), *self.finished.values()]:
            run.subscribers.discard(conn)

    async def close(self) -> None:
        """Cancel every active run and wait for them to record it."""
        tasks = [r.task for r in self.active.values() if r.task is not None]
        for t in tasks:
            t.cancel()
        if tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait(tasks, timeout=10)

    # -- internals ----------------------------------------------------------------------------

    def _approver(self, run: Run) -> Any:
        async def approve(call: ToolCall, tool: Tool, info: ApprovalInfo) -> ApprovalDecision:
            dangerous = info.risk == "dangerous"
            if not dangerous and tool.name in self.session_allows.get(run.session_id, set()):
                return ApprovalDecision(allow=True)
            verdict = decide(run.approval_mode, run.interactive, dangerous)
            if verdict.verdict != "ask":
                return ApprovalDecision(allow=verdict.verdict == "allow", reason=verdict.reason)
            approval = Approval(
                id=Run.new_approval_id(),
                tool_call_id=call.id,
                tool_name=tool.name,
                summary=info.summary,
                details=info.details,
                arguments=call.arguments,
                risk=info.risk,
                risk_reason=info.risk_reason or None,
            )
            pending = run.add_approval(approval)
            allow, _scope, by = await pending.future
            reason = (
                "" if allow else ("the user denied it" if by == "user" else f"no approval ({by})")
            )
            return ApprovalDecision(allow=allow, reason=reason)

        return approve

    def _pending_changed(self, run: Run) -> None:
        self.runtime.bus.publish(
            SessionEvent(
                session_id=run.session_id,
                type="approval_pending",
                run_id=run.id,
                count=len(run.pending),
            ),
            run.workspace_id,
        )

    def _expire(self) -> None:
        now = time.monotonic()
        while self.finished and len(self.finished) > self.opts.keep_completed:
            self.finished.popitem(last=False)
        for rid, run in list(self.finished.items()):
            if run.finished_mono is not None and now - run.finished_mono > self.opts.keep_seconds:
                del self.finished[rid]


def _emit_agent(run: Run, ev: Any) -> None:
    type_, fields = to_wire(ev)
    run.emit(type_, **fields)


def build_run_manager(
    *, runtime: Runtime, registry: Any, config: Any, ns: Any, home: Path
) -> RunManager:
    """The daemon's factory: flags win over config.json."""
    opts = RunOptions(
        max_active=ns.max_active_runs or config.maxActiveRuns,
        run_timeout=ns.run_timeout or config.runTimeoutSeconds,
        sandbox=bool(ns.sandbox or config.sandbox),
        default_approval_mode=config.approvalMode,
        max_turns=ns.max_turns or config.maxTurns,
        bash_login_shell=bool(getattr(config, "bashLoginShell", False)),
    )
    return RunManager(runtime, registry, opts, home)
