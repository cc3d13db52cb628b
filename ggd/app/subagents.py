"""Subagents: a `task` call runs a child run in a child session and returns its final answer.

The child is an ordinary session and run (listed with `includeChildren`, replayable with
gg/run.subscribe, forkable); what ties it to its parent lives here:

- `shape()`: what one run's loop gets: a root run (and a child whose definition names `task`,
  depth at most MAX_DEPTH) gets the `task` tool and the list of agents in its prompt; a child gets
  its definition's tools, instructions and turn limit.
- `run_child()`: the child session (its header links to the parent session, run and tool call),
  the child run started with `ChildApprover`, the parent's `child_run_*` events, the bound on
  parallel children, cancel (cancelling the parent's task cancels the child) and the result.
- `ChildApprover`: a child's approval is shown on the child and on every ancestor run, with the
  agent's name; the first answer on any of them decides.

`stop_hooks`: awaited with a `ChildOutcome` when a child ends (the SubagentStop hook's place).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggd.agent import PromptSection
from ggd.protocol import errors as E
from ggd.protocol import events as W
from ggd.tools import Tool, ToolError, ToolResult

from .agentdefs import AgentDefinition, listing, load_catalog
from .child_approvals import ChildApprover
from .lineage import MAX_DEPTH, Lineage
from .run import Run
from .task_tool import TaskTool

if TYPE_CHECKING:
    from .runs import RunManager

log = logging.getLogger("ggd.app")

# How long a cancelled parent waits for a child to record its cancel (the executor's own grace).
CANCEL_GRACE_SECONDS = 10.0
# Model aliases of other agents' definitions that mean "the parent's model" here.
_INHERIT = frozenset({"inherit", "sonnet", "opus", "haiku", "default"})
SUBAGENT_ORDER = 90  # the child's instructions come last in its system prompt
LISTING_ORDER = 70


@dataclass(frozen=True)
class ChildOutcome:
    """How one child run ended, for the parent's result and the SubagentStop hook."""

    parent: Run
    child: Run
    agent: str
    tool_call_id: str
    status: str  # completed | failed | canceled
    answer: str | None
    error: str | None


StopHook = Callable[[ChildOutcome], Awaitable[None]]


class SubagentManager:
    """Starts and follows the child runs of every run of one daemon."""

    def __init__(self, runs: RunManager) -> None:
        self.runs = runs
        self._gates: dict[str, tuple[asyncio.Semaphore, int]] = {}
        # Awaited when a child ends (failures logged): where the SubagentStop hook plugs in.
        self.stop_hooks: list[StopHook] = []

    @property
    def max_parallel(self) -> int:
        """Children of one run that may run at once (`subagents.maxParallel`)."""
        return self.runs.opts.subagents_max_parallel

    async def shape(
        self,
        run: Run,
        workspace: Path,
        tools: Sequence[Tool],
        sections: Sequence[PromptSection],
        max_turns: int,
    ) -> tuple[list[Tool], list[PromptSection], int]:
        """The tools, prompt sections and turn limit of one run's loop."""
        out_tools, out_sections = list(tools), list(sections)
        lineage = run.lineage
        depth = 0
        if lineage is not None:
            depth = lineage.depth
            agent = lineage.agent
            if agent.tools is not None:
                out_tools = [t for t in out_tools if t.name in agent.tools]
            if agent.max_turns is not None:
                max_turns = min(max_turns, agent.max_turns)
            text = (
                f"You are the subagent `{agent.name}`, started by another agent for one task. "
                "Work on your own: nobody reads your messages but the final one, which is "
                "returned to that agent as the result. Make it complete and self-contained."
            )
            if agent.prompt:
                text += "\n\n" + agent.prompt
            out_sections.append(PromptSection("Subagent", text, order=SUBAGENT_ORDER))
        if depth == 0 or (lineage is not None and lineage.agent.may_delegate and depth < MAX_DEPTH):
            catalog = await asyncio.to_thread(load_catalog, workspace)
            out_tools.append(TaskTool(self, catalog))
            out_sections.append(
                PromptSection(
                    "Subagents",
                    "Agents for the task tool (each knows only its prompt):\n" + listing(catalog),
                    order=LISTING_ORDER,
                )
            )
        return out_tools, out_sections, max_turns

    # -- one child ------------------------------------------------------------------------------

    async def run_child(
        self,
        parent: Run,
        tool_call_id: str,
        definition: AgentDefinition,
        prompt: str,
        description: str | None,
    ) -> ToolResult:
        """Run one child to its end under the parent's bound; its answer or error as the result."""
        depth = (parent.lineage.depth if parent.lineage is not None else 0) + 1
        if depth > MAX_DEPTH:
            raise ToolError(f"subagents may nest at most {MAX_DEPTH} deep")
        async with self._gate(parent.id):
            child = await self._start(parent, tool_call_id, definition, prompt, description, depth)
            return await self._follow(parent, child)

    @contextlib.asynccontextmanager
    async def _gate(self, parent_id: str) -> Any:
        sem, users = self._gates.get(parent_id) or (asyncio.Semaphore(self.max_parallel), 0)
        self._gates[parent_id] = (sem, users + 1)
        try:
            async with sem:
                yield
        finally:
            sem, users = self._gates[parent_id]
            if users <= 1:
                del self._gates[parent_id]
            else:
                self._gates[parent_id] = (sem, users - 1)

    async def _start(
        self,
        parent: Run,
        tool_call_id: str,
        definition: AgentDefinition,
        prompt: str,
        description: str | None,
        depth: int,
    ) -> Run:
        runtime = self.runs.runtime
        ws = runtime.workspaces.get(parent.workspace_id)
        if ws is None:
            raise ToolError("the parent's workspace is gone")
        model = await self._model(definition, parent)
        budget = parent.tree_budget
        seconds = budget.remaining_seconds() if budget is not None else None
        if seconds is not None and seconds < 1:
            raise ToolError("the run has no time left for a subagent (runTimeoutSeconds)")
        title = (description or (prompt.strip().splitlines() or [""])[0])[:80]
        link = {
            "kind": "child",
            "sessionId": parent.session_id,
            "runId": parent.id,
            "toolCallId": tool_call_id,
            "agent": definition.name,
        }
        try:
            view = await runtime.create_session(
                ws, f"{definition.name}: {title}" if title else definition.name, model, link
            )
            svc = await runtime.service(view.session_id, ws)
            return await self.runs.start(
                svc,
                prompt,
                approver=ChildApprover(self.runs, parent),
                mode=parent.approval_mode,
                interactive=parent.interactive,
                model=model,
                time_limit=seconds,
                # The parent's run budget bounds its children too (they count the tree's spend).
                budget=parent.budget,
                budget_name=parent.budget_name,
                lineage=Lineage(parent, tool_call_id, definition, depth, description),
            )
        except E.GgError as exc:
            raise ToolError(f"the subagent could not start: {exc.message}") from None

    async def _model(self, definition: AgentDefinition, parent: Run) -> str:
        """The definition's model when this daemon can use it, else the parent's.

        A definition written for another agent names that agent's models (`claude-...`): it
        still works here, on the parent's model, rather than failing the task.
        """
        wanted = definition.model
        if wanted is None or wanted.lower() in _INHERIT:
            return parent.model
        try:
            await self.runs.turns.check_model_ref(wanted)
        except E.GgError as exc:
            log.info(
                "agent model not usable here; the parent's model runs it",
                extra={"agent": definition.name, "model": wanted, "why": exc.message},
            )
            return parent.model
        return wanted

    async def _follow(self, parent: Run, child: Run) -> ToolResult:
        lineage = child.lineage
        assert lineage is not None
        agent = lineage.agent.name
        parent.emit(
            W.ChildRunStartedEvent,
            tool_call_id=lineage.tool_call_id,
            child_run_id=child.id,
            child_session_id=child.session_id,
            agent=agent,
            description=lineage.description,
        )
        progress = _Progress(parent, child, lineage)
        child.subscribe(progress, 0)
        try:
            await child.finished()
        except asyncio.CancelledError:
            # The parent was cancelled: so is its child, and the child records it first.
            self.runs.cancel(child)
            if child.task is not None:
                await asyncio.wait({child.task}, timeout=CANCEL_GRACE_SECONDS)
            raise
        finally:
            progress.closed = True
            child.subscribers.discard(progress)
            self._finished(parent, child, lineage)
            # A child session is done with its run: what its tools opened (MCP servers, a
            # browser) closes now, not when 64 later sessions push it out of the cache.
            self.runs.runtime.manager.evict(child.session_id)
        outcome = ChildOutcome(
            parent,
            child,
            agent,
            lineage.tool_call_id,
            child.status,
            child.result if child.status == "completed" else None,
            child.error,
        )
        await self.subagent_stopped(outcome)
        details = {
            "childRunId": child.id,
            "childSessionId": child.session_id,
            "agent": agent,
            "status": child.status,
        }
        if child.status == "completed":
            answer = child.result or "(the subagent ended without an answer)"
            return ToolResult(output=answer, details=details)
        if child.status == "canceled":
            return ToolResult(f"subagent {agent} was canceled", is_error=True, details=details)
        why = child.error or "unknown error"
        return ToolResult(f"subagent {agent} failed: {why}", is_error=True, details=details)

    def _finished(self, parent: Run, child: Run, lineage: Lineage) -> None:
        status = child.status if child.done else "canceled"
        parent.emit(
            W.ChildRunFinishedEvent,
            tool_call_id=lineage.tool_call_id,
            child_run_id=child.id,
            child_session_id=child.session_id,
            agent=lineage.agent.name,
            status=status,
            error=child.error if status == "failed" else None,
            turns=lineage.turns,
            tool_calls=lineage.tool_calls,
        )

    async def subagent_stopped(self, outcome: ChildOutcome) -> None:
        """The SubagentStop point: every stop hook, each failure logged, never the parent's."""
        for hook in list(self.stop_hooks):
            try:
                await hook(outcome)
            except Exception:
                log.exception("subagent stop hook failed", extra={"run": outcome.parent.id})


class _Progress:
    """Follows a child's events in-process; one line of progress each to the parent's stream."""

    def __init__(self, parent: Run, child: Run, lineage: Lineage) -> None:
        self.parent = parent
        self.child = child
        self.lineage = lineage
        self.closed = False

    def notify(
        self,
        method: str,
        params: dict[str, Any],
        *,
        droppable: bool = True,
        body: bytes | None = None,
    ) -> bool:
        kind = params.get("type")
        lin = self.lineage
        if kind == "usage":
            lin.turns += 1
            return True
        if kind == "tool_call_start":
            lin.tool_calls += 1
            text = str(params.get("summary") or params.get("toolName") or "")
        elif kind == "approval_requested":
            text = "waiting for approval: " + str(params["approval"].get("summary", ""))
        else:
            return True
        if self.parent.done:
            return True
        try:
            self.parent.emit(
                W.ChildRunProgressEvent,
                tool_call_id=lin.tool_call_id,
                child_run_id=self.child.id,
                agent=lin.agent.name,
                text=text[:200],
                turns=lin.turns,
                tool_calls=lin.tool_calls,
            )
        except Exception:  # called inside the child's emit: never let it break the child
            log.exception("subagent progress failed", extra={"run": self.parent.id})
        return True


__all__ = ["ChildApprover", "ChildOutcome", "StopHook", "SubagentManager"]
