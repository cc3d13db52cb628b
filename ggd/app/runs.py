"""RunManager: every run of the daemon and its lifecycle (start, cancel, approve, steer, expire).

Admission rules live in `admission.py`, the agent wiring in `turns.py` and the mapping of an
outcome to terminal events in `outcome.py`; this module owns the table of runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from ggd.agent import AgentLoop, TurnOutcome, begin_turn
from ggd.agent.usage import side_request
from ggd.protocol import Budget, SessionEvent
from ggd.protocol import errors as E
from ggd.protocol import events as W
from ggd.protocol.run import ImageInput
from ggd.providers.types import ChatProvider, Usage

from .admission import RunOptions, admit
from .approvers import Approver, InteractiveApprover
from .attachments import prompt_images
from .delegate import ClientDelegate
from .hooks import approval_pending, before_prompt
from .lineage import Lineage, TreeBudget
from .naming import session_name
from .outcome import drive
from .run import Run, Subscriber
from .runtime import Runtime
from .service import Service
from .subagents import SubagentManager
from .titles import ask_title, title_model
from .transcript import SessionTranscript
from .turns import TurnAssembler

log = logging.getLogger("ggd.app")


class RunManager:
    """Every run of the daemon; one active run per session."""

    def __init__(
        self,
        runtime: Runtime,
        turns: TurnAssembler,
        opts: RunOptions,
        *,
        on_first_run: Callable[[], None] | None = None,
    ) -> None:
        self.runtime = runtime
        self.turns = turns
        self.opts = opts
        self.active: dict[str, Run] = {}
        self.finished: OrderedDict[str, Run] = OrderedDict()
        self.session_allows: dict[str, set[str]] = {}
        self.interactive = InteractiveApprover(lambda sid: self.session_allows.get(sid, set()))
        # Snapshot files being refreshed after runs (awaited at close, so none is cut short).
        self._warming: set[asyncio.Task[None]] = set()
        # Background title requests (ggd/app/titles.py), cancelled at close.
        self._titling: set[asyncio.Task[None]] = set()
        # Called once, as the first run starts: start-up is over (the daemon freezes its heap).
        self._first_run = on_first_run
        # The `task` tool's child runs (subagents); the assembler asks it to shape each turn.
        self.subagents = SubagentManager(self)
        turns.subagents = self.subagents

    # -- queries ------------------------------------------------------------------------------

    def active_count(self) -> int:
        """Runs admitted and not finished."""
        return len(self.active)

    def active_by_session(self) -> dict[str, str]:
        """Session id -> active run id."""
        return {r.session_id: r.id for r in self.active.values()}

    def get(self, run_id: str, workspace_id: str | None = None) -> Run:
        """A run by id (active or recently finished), visible only from its own workspace."""
        self._expire()
        run = self.active.get(run_id) or self.finished.get(run_id)
        if run is None or (workspace_id is not None and run.workspace_id != workspace_id):
            raise E.RunNotFoundError(f"no run with id {run_id!r} here (it may have expired)")
        return run

    def active_for(self, session_id: str) -> Run | None:
        """The session's active run."""
        return next((r for r in self.active.values() if r.session_id == session_id), None)

    # -- commands -----------------------------------------------------------------------------

    async def start(
        self,
        svc: Service,
        prompt: str,
        *,
        approver: Approver | None,
        mode: str | None = None,
        interactive: bool = False,
        model: str | None = None,
        time_limit: float | None = None,
        client: ClientDelegate | None = None,
        images: list[ImageInput] | None = None,
        remote: bool = False,
        budget: Budget | None = None,
        budget_name: str = "run budget",
        reasoning_effort: str | None = None,
        lineage: Lineage | None = None,
    ) -> Run:
        """Admit and start a run on a session; an approver is required (there is no default).

        `client`: the editor that started it, offering to read, write or run for it; `lineage`:
        a subagent's child run; `images`: the prompt's pictures (no paths over `remote`)."""
        if approver is None:
            raise E.InternalError("a run needs an approver; none was given")
        mode = mode or self.opts.default_approval_mode
        prompt, refs = await self._checked_prompt(
            svc, prompt, mode, model, images, remote=remote, child=lineage is not None
        )
        admit(
            self.opts,
            closed=self.runtime.closed,
            mode=mode,
            interactive=interactive,
            busy=svc.active_run_id is not None,
            active=len(self.active),
        )
        provider, bare, model_ref = self.turns.resolve_model(svc, model)
        run = Run(
            session_id=svc.id,
            interactive=interactive,
            approval_mode=mode,
            model=model_ref,
            workspace_id=svc.workspace.id,
            budget=budget,
            budget_name=budget_name,
            reasoning_effort=reasoning_effort,
            lineage=lineage,
            approver=approver,
        )
        limit = time_limit or self.opts.run_timeout
        run.tree_budget = self._tree_budget(lineage, limit)
        # Decided before the prompt is saved: once it is, the session has a first prompt.
        unnamed = not session_name(svc.file.name, svc.file.first_prompt)
        await self._register(run, svc, prompt, refs)
        self._announce(run, svc, prompt, refs, unnamed=unnamed)
        switch = model if model and model != svc.file.model else None
        title = prompt if unnamed and lineage is None else None
        work = self._work(run, svc, approver, (provider, bare), client, switch, title)
        run.task = asyncio.create_task(self._drive(run, svc, work, limit), name=f"run {run.id}")
        return run

    async def _work(
        self,
        run: Run,
        svc: Service,
        approver: Approver,
        model: tuple[ChatProvider, str],
        client: ClientDelegate | None,
        switch: str | None,
        title_prompt: str | None,
    ) -> TurnOutcome:
        """The run's turn: its loop inside a checkpointed turn, then a title if it is the first."""
        if switch is not None:  # the session remembers the model it was last run with
            await svc.write(lambda sf: sf.append("model", {"model": switch}))
        provider, bare = model
        # The turn's checkpoint (undo/redo of its files) is taken while the loop is built and
        # its first request goes out; the loop's writes wait for it (ggd/app/checkpoints.py).
        async with self.runtime.checkpoints.turn(svc, run.id):
            loop: AgentLoop = await self.turns.loop_for(run, svc, approver, provider, bare, client)
            outcome = await loop.run_from_begun()  # start() already ran begin_turn
        if title_prompt is not None:
            self._title_later(svc, run.model, title_prompt, outcome.content)
        return outcome

    async def _register(
        self, run: Run, svc: Service, prompt: str, refs: list[dict[str, Any]] | None
    ) -> None:
        """Make the run the session's active one and its prompt durable (undone if that fails).

        Durable before acknowledged: the prompt is in the journal before run_started is
        emitted and before the reply carries the run id (a kill right after loses nothing).
        """
        run.on_pending_change = self._pending_changed
        svc.active_run_id = run.id
        self.active[run.id] = run
        try:
            await begin_turn(SessionTranscript(svc), prompt, refs)
        except BaseException:
            self.active.pop(run.id, None)
            if svc.active_run_id == run.id:
                svc.active_run_id = None
            raise

    async def _checked_prompt(
        self,
        svc: Service,
        prompt: str,
        mode: str,
        model: str | None,
        images: list[ImageInput] | None,
        *,
        remote: bool,
        child: bool,
    ) -> tuple[str, list[dict[str, Any]] | None]:
        """The checks a start makes before admission, and the prompt and its images as saved."""
        await svc.refresh()  # another process (a private ggd --stdio) may have appended
        await svc.ensure_loaded()  # check_model reads the session's model on the loop
        # An unknown provider or a model the endpoint does not list is an error before the run
        # starts (it used to fall through to the demo model). Checked first: nothing may await
        # between the admission checks after this and registering the run.
        await self.turns.check_model(svc, model)
        if images:
            self.turns.check_images(svc, model)
        # Stored before admission (the checks after must not await); unused files are harmless.
        refs = await prompt_images(self.turns.images, images, svc.workspace.root, remote=remote)
        # SessionStart and UserPromptSubmit: a block refuses the prompt before anything is saved.
        # A subagent's prompt is the model's, not the user's: those hooks are the user's.
        if not child:
            prompt = await before_prompt(self.turns.hooks, svc, prompt, mode, model or "")
        # Idle during that await, the session may have been released: rebuild it in a thread
        # now (no await when loaded); once the run is registered it is never released.
        await svc.ensure_loaded()
        return prompt, refs

    def _tree_budget(self, lineage: Lineage | None, limit: float) -> TreeBudget:
        """A child shares its root's turns, deadline and spend; a root run starts its tree's."""
        if lineage is not None and lineage.parent.tree_budget is not None:
            return lineage.parent.tree_budget
        return TreeBudget(self.opts.max_turns, time.monotonic() + limit)

    def _announce(
        self,
        run: Run,
        svc: Service,
        prompt: str,
        refs: list[dict[str, Any]] | None,
        *,
        unnamed: bool,
    ) -> None:
        """The run's start, once its prompt is durable: its event, the log, the session bus."""
        if self._first_run is not None:  # the daemon's memory policy (ggd/daemon/memory.py)
            hook, self._first_run = self._first_run, None
            hook()
        run.emit(W.RunStartedEvent, prompt=prompt, images=refs)
        log.info(
            "run started",
            extra={"run": run.id, "session": svc.id, "model": run.model, "mode": run.approval_mode},
        )
        self.runtime.bus.publish(
            SessionEvent(session_id=svc.id, type="run_started", run_id=run.id), svc.workspace.id
        )
        if unnamed:
            # The first prompt names an unnamed session (ggd.app.naming): every client shows it now.
            self.runtime.bus.publish(
                SessionEvent(session_id=svc.id, type="renamed", name=session_name(None, prompt)),
                svc.workspace.id,
            )

    async def _drive(
        self, run: Run, svc: Service, work: Awaitable[TurnOutcome], time_limit: float
    ) -> None:
        try:
            await drive(run, work, time_limit)
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
            if svc.active_run_id is None and not self.runtime.closed:
                # The run wrote to the session: refresh its snapshot file off the loop now, so
                # the next gg/session.open (a client coming back to it) reads the file.
                task = asyncio.get_running_loop().create_task(svc.warm(), name=f"warm {svc.id}")
                self._warming.add(task)
                task.add_done_callback(self._warming.discard)

    def _title_later(self, svc: Service, model_ref: str, prompt: str, answer: str) -> None:
        """Rename a session its first answer just finished with a model's title, in the
        background (ggd/app/titles.py); the run's end is never delayed by it."""
        try:
            ref = title_model(self.opts.title_model, self.turns.models, model_ref)
        except (KeyError, ValueError):  # a model reference it cannot place: no title, no error
            log.info("no model title for %s", model_ref)
            return
        if ref is None or self.runtime.closed:
            return

        async def rename() -> None:
            try:
                reply = await ask_title(self.turns.models, ref, prompt, answer)
                title = reply.title
                if (reply.answered or reply.usage is not None) and not self.runtime.closed:
                    await self._count_title(svc, ref, reply.usage)
                await svc.ensure_loaded()
                # A name the user gave while the title was asked for stays.
                if title and not (svc.file.name or "").strip() and not self.runtime.closed:
                    await self.runtime.rename(svc, title)
            except Exception:  # the first prompt's name stays; the run is long over
                log.warning("titling session %s failed", svc.id, exc_info=True)

        task = asyncio.get_running_loop().create_task(rename(), name=f"title {svc.id}")
        self._titling.add(task)
        task.add_done_callback(self._titling.discard)
        task.add_done_callback(lambda t: None if t.cancelled() else t.exception())

    async def _count_title(self, svc: Service, ref: str, usage: Usage | None) -> None:
        """The title request is paid for like any other: the session's totals include it."""
        _provider, bare = self.turns.models.get(ref)
        _used, _cost, record = side_request(usage, self.turns.opts.prices.get(ref), bare, "title")
        await SessionTranscript(svc).append_usage(record)

    def cancel(self, run: Run) -> None:
        """Cancel a run: its task is cancelled, which kills running tools."""
        if run.task is not None and not run.task.done():
            run.task.cancel()

    def approve(self, run: Run, approval_id: str, allow: bool, scope: str) -> None:
        """Answer an approval; allow-for-session remembers the tool for this session."""
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

    def drop_subscriber(self, conn: Subscriber) -> None:
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
        for title in self._titling:  # a title is not worth waiting for at shutdown
            title.cancel()
        if self._warming:
            with contextlib.suppress(Exception):
                await asyncio.wait(set(self._warming), timeout=10)

    # -- internals ----------------------------------------------------------------------------

    def _pending_changed(self, run: Run) -> None:
        approval_pending(self.turns.hooks, run)  # Notification hooks, once per approval
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


__all__ = ["RunManager", "RunOptions"]
