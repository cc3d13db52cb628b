"""The `task` tool: hand a self-contained task to a subagent (ggd/app/subagents.py runs it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ggd.protocol import errors as E
from ggd.tools import ApprovalInfo, Tool, ToolError, ToolResult
from ggd.tools.client import TOOL_CALL_ID

from .agentdefs import Catalog

if TYPE_CHECKING:
    from .subagents import SubagentManager


class TaskTool(Tool):
    """`task`: hand a self-contained task to a subagent and get its final answer back."""

    name = "task"
    parallel_safe = True  # several calls of one batch run together (bounded by maxParallel)

    def __init__(self, manager: SubagentManager, catalog: Catalog) -> None:
        self.manager = manager
        self.catalog = catalog
        self.description = (
            "Run a subagent with its own context on a self-contained task; returns its final "
            "answer. Calls in one answer run in parallel."
        )
        self.parameters = {
            "type": "object",
            "properties": {
                "agent": {"type": "string", "enum": catalog.names()},
                "prompt": {"type": "string", "description": "all it needs to know"},
                "description": {"type": "string", "description": "3-5 words"},
            },
            "required": ["agent", "prompt"],
        }

    def summary(self, args: dict[str, Any]) -> str:
        """`task explore: find the config loader`."""
        what = str(args.get("description") or args.get("prompt") or "").strip()
        return f"task {args.get('agent', '?')}: {what.splitlines()[0][:80] if what else ''}"

    def describe(self, args: dict[str, Any], ctx: Any) -> ApprovalInfo:
        """Nothing to approve here: the child asks for each of its own calls."""
        return ApprovalInfo(summary=self.summary(args), risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: Any) -> ToolResult:
        """Start the child run and wait for its answer."""
        definition = self.catalog.get(str(args.get("agent", "")))
        if definition is None:
            raise ToolError(
                f"unknown agent {args.get('agent')!r}; agents: {', '.join(self.catalog.names())}"
            )
        prompt = str(args.get("prompt", "")).strip()
        if not prompt:
            raise ToolError("prompt: say what the subagent should do")
        try:
            parent = self.manager.runs.get(ctx.run_id)
        except E.GgError:
            raise ToolError("task runs only inside a run of the daemon") from None
        description = str(args["description"]).strip()[:200] if args.get("description") else None
        return await self.manager.run_child(
            parent, TOOL_CALL_ID.get() or "", definition, prompt, description or None
        )


__all__ = ["TaskTool"]
