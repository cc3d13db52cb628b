"""The tools of one run: eager ones declared in every request, deferred ones loaded on demand.

A tool whose `deferred` is true is not declared to the model up front: the system prompt only
names it, and the run carries the core `tool_search` tool. `tool_search(query)` answers with the
declarations of the matching deferred tools and loads them: from the next request of the run they
are declared like any eager tool, after the eager ones (so the request prefix stays stable for
prompt caches). A call of a deferred tool by its name loads it too, then runs through the same
validation and approvals as any call. Tools a session used in an earlier run are loaded again
from its transcript, so a conversation never finds a tool it used missing.

Deferring costs the model a round trip per tool it needs, so it is done only where it pays: with
a declaration budget (a share of the model's context window, tokens), the deferrable tools are
grouped (an MCP server's tools, a capability's) and declared up front while their declarations
fit it; past it the largest groups are deferred first. The choice is made once per run from the
tools and the model, so every request of a run, and every run with the same tools and model,
declares the same prefix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ggd.tools.base import ApprovalInfo, Tool, ToolContext, ToolResult

from .context import estimate_text_tokens

SEARCH_TOOL = "tool_search"
SEARCH_LIMIT = 5
# The first line of a tool_search result; `restore` reads the names back from transcripts.
LOADED_PREFIX = "Loaded: "
_WORD = re.compile(r"[a-z0-9]+")
# Words that would match nearly every tool and say nothing about the task.
_STOP = {"a", "an", "and", "for", "i", "in", "of", "on", "or", "the", "to", "tool", "tools", "with"}


@dataclass(frozen=True)
class ToolGroup:
    """Deferrable tools declared or deferred together, and their declarations' token estimate."""

    name: str
    tools: tuple[Tool, ...]
    tokens: int
    deferred: bool


def group_of(tool: Tool) -> str:
    """The group a deferrable tool is declared or deferred with: its own, else its module's."""
    return tool.defer_group or type(tool).__module__


def plan_groups(tools: Sequence[Tool], budget: int | None) -> list[ToolGroup]:
    """Which groups of deferrable tools are declared up front and which are deferred.

    budget None: every group is deferred (the model's context window is unknown). Otherwise
    groups are declared while the declarations of all declared groups fit `budget` tokens; the
    largest are deferred first (the first seen wins a tie), so one big MCP server is loaded on
    demand while small capabilities stay one call away.
    """
    by_name: dict[str, list[Tool]] = {}
    for tool in tools:
        by_name.setdefault(group_of(tool), []).append(tool)
    sizes = {
        name: estimate_text_tokens(json.dumps([t.spec() for t in members]))
        for name, members in by_name.items()
    }
    deferred: set[str] = set(by_name) if budget is None else set()
    if budget is not None:
        total = sum(sizes.values())
        order = list(by_name)
        for name in sorted(by_name, key=lambda n: (-sizes[n], order.index(n))):
            if total <= budget:
                break
            deferred.add(name)
            total -= sizes[name]
    return [
        ToolGroup(name, tuple(members), sizes[name], name in deferred)
        for name, members in by_name.items()
    ]


class ToolSet:
    """Eager tools, deferred tools and the deferred ones loaded so far in this run.

    `declare_budget`: tokens the declarations of deferrable tools may take up front (None: defer
    them all).
    """

    def __init__(self, tools: Sequence[Tool], declare_budget: int | None = None) -> None:
        self._eager: dict[str, Tool] = {}
        self._deferred: dict[str, Tool] = {}
        deferrable: dict[str, Tool] = {}
        for tool in tools:
            if tool.deferred:
                deferrable.setdefault(tool.name, tool)
            else:
                self._eager.setdefault(tool.name, tool)
        self.budget = declare_budget
        self.groups = plan_groups(list(deferrable.values()), declare_budget)
        for group in self.groups:
            book = self._deferred if group.deferred else self._eager
            for tool in group.tools:
                book.setdefault(tool.name, tool)
        if self._deferred and SEARCH_TOOL not in self._eager:
            self._eager[SEARCH_TOOL] = ToolSearchTool(self)
        self._loaded: dict[str, Tool] = {}

    @property
    def eager(self) -> list[Tool]:
        """The tools every request declares (tool_search included when anything is deferred)."""
        return list(self._eager.values())

    @property
    def deferred_names(self) -> list[str]:
        """Names of every deferred tool, loaded or not, in provider order."""
        return list(self._deferred)

    def declared(self) -> list[Tool]:
        """What the next request declares: the eager tools, then those loaded in load order."""
        return [*self._eager.values(), *self._loaded.values()]

    def get(self, name: str) -> Tool | None:
        """The tool a call names; a deferred one is loaded by being called."""
        tool = self._eager.get(name) or self._loaded.get(name)
        if tool is None and name in self._deferred:
            tool = self._loaded[name] = self._deferred[name]
        return tool

    def load(self, names: Iterable[str]) -> list[Tool]:
        """Load deferred tools by name (unknown names are ignored); returns the tools named."""
        out = []
        for name in names:
            tool = self._deferred.get(name)
            if tool is not None:
                self._loaded.setdefault(name, tool)
                out.append(tool)
        return out

    def search(self, query: str, limit: int = SEARCH_LIMIT) -> list[Tool]:
        """Deferred tools for a query: exact names first, then by words in name and description."""
        names = [n for n in re.split(r"[\s,]+", query.strip()) if n in self._deferred]
        words = set(_WORD.findall(query.lower())) - _STOP
        scored: list[tuple[int, int, Tool]] = []
        for pos, (name, tool) in enumerate(self._deferred.items()):
            if name in names:
                continue
            lname, desc = name.lower(), tool.description.lower()
            name_words = set(_WORD.findall(lname))
            score = 0
            for w in words:
                if w in name_words:
                    score += 3
                elif w in lname:
                    score += 2
                elif w in desc:
                    score += 1
            if score:
                scored.append((-score, pos, tool))
        ranked = [self._deferred[n] for n in names] + [t for _s, _p, t in sorted(scored)]
        return ranked[: max(limit, len(names))]

    def restore(self, messages: Iterable[dict[str, Any]]) -> None:
        """Load the deferred tools an earlier run of the conversation called or loaded."""
        for msg in messages:
            if msg.get("role") == "assistant":
                self.load(c.get("name", "") for c in msg.get("toolCalls") or [])
            elif msg.get("toolName") == SEARCH_TOOL and not msg.get("isError"):
                first = str(msg.get("content") or "").split("\n", 1)[0]
                if first.startswith(LOADED_PREFIX):
                    self.load(n.strip() for n in first[len(LOADED_PREFIX) :].split(","))


class ToolSearchTool(Tool):
    """Finds deferred tools and loads them for the rest of the run."""

    name = SEARCH_TOOL
    description = (
        "Load tools the system prompt lists to load with tool_search. query: tool names, or "
        "words for the task. Returns their schemas; they are callable from your next step."
    )
    parameters = {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
        "additionalProperties": False,
    }
    parallel_safe = True

    def __init__(self, tools: ToolSet) -> None:
        self.tools = tools

    def summary(self, args: dict[str, Any]) -> str:
        """`tool_search <query>`."""
        return f"tool_search {str(args.get('query', ''))[:100]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Never asks: it only reads tool declarations."""
        return ApprovalInfo(summary=self.summary(args), risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The matching tools' declarations, one JSON object a line, after a `Loaded:` line."""
        found = self.tools.search(str(args.get("query", "")))
        if not found:
            names = ", ".join(self.tools.deferred_names)
            return ToolResult(f"No tool matches. Loadable tools: {names}")
        self.tools.load(t.name for t in found)
        lines = [LOADED_PREFIX + ", ".join(t.name for t in found)]
        lines += [
            json.dumps(t.spec()["function"], ensure_ascii=False, separators=(",", ":"))
            for t in found
        ]
        return ToolResult("\n".join(lines), details={"loaded": [t.name for t in found]})


__all__ = ["LOADED_PREFIX", "SEARCH_TOOL", "ToolGroup", "ToolSearchTool", "ToolSet", "plan_groups"]
