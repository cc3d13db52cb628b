"""The model's memory tools: memory_add (no approval, as in the reference design) and memory_search."""

from __future__ import annotations

import asyncio
from typing import Any

from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult
from ggd.tools.paths import arg_int, arg_str

from .scope import MemoryInputError, parse_scope
from .search import DEFAULT_LIMIT, MAX_LIMIT, search
from .store import MemoryBusyError, MemoryStore


class MemoryAddTool(Tool):
    """Append one memory to MEMORY.md, today's log, or a person's or group's file."""

    name = "memory_add"
    description = (
        "Remember one short fact the user would want kept across sessions (never secrets). "
        "scope: general (default; durable facts and preferences, in MEMORY.md, shown every "
        "turn), daily (what happened today), person:<name> or group:<name>."
    )
    parameters = {
        "type": "object",
        "properties": {"content": {"type": "string"}, "scope": {"type": "string"}},
        "required": ["content"],
        "additionalProperties": False,
    }

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def summary(self, args: dict[str, Any]) -> str:
        """`remember (scope): content`."""
        content = " ".join(str(args.get("content", "")).split())
        short = content if len(content) <= 60 else content[:59] + "…"
        return f"remember ({args.get('scope') or 'general'}): {short}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Writes only the user's own memory store, so no approval (the README says so)."""
        return ApprovalInfo(
            self.summary(args), "normal", "writes the user's memory store", needs_approval=False
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Append the entry."""
        content = arg_str(args, "content")
        try:
            scope = parse_scope(arg_str(args, "scope", "general"))
            added = await asyncio.to_thread(self.store.add, content, scope)
        except (MemoryInputError, MemoryBusyError) as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(
            f"remembered in {added.path}", details={"path": added.path, "scope": str(scope)}
        )


class MemorySearchTool(Tool):
    """Keyword search across every memory file."""

    name = "memory_search"
    description = (
        "Search your memory (MEMORY.md, daily logs, people, groups) for keywords, any case. "
        f"Prints path:line: text, best first; limit: default {DEFAULT_LIMIT}."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    parallel_safe = True

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def summary(self, args: dict[str, Any]) -> str:
        """`memory_search <query>`."""
        return f"memory_search {args.get('query', '')!r}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Reading the user's own memory is read-only."""
        return ApprovalInfo(self.summary(args), "read_only", "reads the memory store", False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Search and format the hits."""
        query = arg_str(args, "query")
        limit = arg_int(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        try:
            hits = await asyncio.to_thread(search, self.store, query, limit)
        except MemoryInputError as exc:
            raise ToolError(str(exc)) from None
        if not hits:
            return ToolResult("no memories match", details={"hits": 0})
        return ToolResult("\n".join(str(h) for h in hits), details={"hits": len(hits)})


__all__ = ["MemoryAddTool", "MemorySearchTool"]
