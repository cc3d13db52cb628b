"""A subagent's approvals: asked on its own run and on every ancestor run; the first answer wins.

Clients watch the run they started (the root), so a child that asks only on its own run would
wait for nobody. `ask_chain` adds the approval to the child (with its agent's name) and the same
approval, with the child's run and session ids, to each ancestor; whichever run a client answers,
every other copy is resolved the same way.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ggd.agent import ApprovalDecision
from ggd.agent.loopguard import LoopAsk
from ggd.protocol import Approval
from ggd.providers.types import ToolCall
from ggd.tools import ApprovalInfo, Tool

from .approvers import LOOP_GUARD_TOOL, InteractiveApprover
from .run import Run

if TYPE_CHECKING:
    from .runs import RunManager


def _ancestors(run: Run) -> list[Run]:
    out: list[Run] = []
    link = run.lineage
    while link is not None:
        out.append(link.parent)
        link = link.parent.lineage
    return out


class ChildApprover(InteractiveApprover):
    """A child's approvals: the interactive policy (plan mode, hooks, session allows of the
    child's and every ancestor's session), asked on the child and on every ancestor.

    A root run that nobody can ask (an unattended approver, a chat channel's buttons) decides
    for its whole tree with that approver, so a child never gets more than its root would.
    """

    def __init__(self, runs: RunManager, parent: Run) -> None:
        self.runs = runs
        self.parent = parent
        sessions = [r.session_id for r in (parent, *_ancestors(parent))]

        def allows(session_id: str) -> set[str]:
            out: set[str] = set()
            for sid in (session_id, *sessions):
                out |= runs.session_allows.get(sid, set())
            return out

        super().__init__(allows)

    async def decide(
        self, run: Run, call: ToolCall, tool: Tool, info: ApprovalInfo
    ) -> ApprovalDecision:
        """The root's approver decides; an interactive root asks along the chain."""
        base: Any = self.parent.approver
        while isinstance(base, ChildApprover):
            base = base.parent.approver
        if base is not None and not isinstance(base, InteractiveApprover):
            decision: ApprovalDecision = await base.decide(run, call, tool, info)
            return decision
        return await super().decide(run, call, tool, info)

    async def ask(self, run: Run, approval: Approval) -> tuple[bool, str, str]:
        """On the child and every ancestor run: the first answer on any of them."""
        return await ask_chain(run, approval)


async def ask_chain(run: Run, approval: Approval) -> tuple[bool, str, str]:
    """Ask on `run` and its ancestors; (allow, scope, by) of the first answer on any of them."""
    chain = [run, *_ancestors(run)]
    agent = run.lineage.agent.name if run.lineage is not None else None
    approval = approval.model_copy(update={"agent": agent})
    mirror = approval.model_copy(
        update={"child_run_id": run.id, "child_session_id": run.session_id}
    )
    asked = [run.add_approval(approval)]
    asked += [r.add_approval(mirror) for r in chain[1:] if not r.done]
    answer: tuple[bool, str, str] = (False, "once", "cancel")
    try:
        done, _ = await asyncio.wait({p.future for p in asked}, return_when=asyncio.FIRST_COMPLETED)
        answer = next(iter(done)).result()
    finally:
        # Every other run that still shows it sees it resolved the same way.
        for r in chain:
            pending = r.pending.get(approval.id)
            if pending is not None and not pending.future.done():
                r.answer(approval.id, *answer)
    return answer


def child_loop_asker(run: Run) -> LoopAsk | None:
    """The loop guard's question of a child run (approvers.loop_asker), asked on the chain."""
    if not run.interactive:
        return None

    async def ask(call: ToolCall, message: str) -> bool:
        approval = Approval(
            id=run.new_approval_id(),
            tool_call_id=call.id,
            tool_name=LOOP_GUARD_TOOL,
            summary=f"The run repeats {call.name} with the same arguments: let it go on?",
            details=message,
            arguments={"tool": call.name, "arguments": call.arguments},
            risk="normal",
            risk_reason="loop guard",
        )
        allow, _scope, _by = await ask_chain(run, approval)
        return allow

    return ask


__all__ = ["ChildApprover", "ask_chain", "child_loop_asker"]
