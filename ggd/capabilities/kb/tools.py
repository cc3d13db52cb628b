"""kb_search: the model searches the user's knowledge bases (read-only, never asks)."""

from __future__ import annotations

from typing import Any

from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .embed import EmbedError
from .service import KbService
from .store import KbError


class KbSearch(Tool):
    """Hybrid search over an indexed knowledge base."""

    name = "kb_search"
    deferred = True
    description = (
        "Search the user's indexed knowledge bases (documents, code) by meaning and keywords: "
        "the best passages with file, heading and lines. name: one base (default all)."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "topK": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
            "name": {"type": "string"},
        },
        "required": ["query"],
    }
    parallel_safe = True

    def __init__(self, svc: KbService, names: list[str]) -> None:
        self.svc = svc
        if names:
            self.description += f" Knowledge bases: {', '.join(names[:20])}."

    def summary(self, args: dict[str, Any]) -> str:
        return f"kb_search {str(args.get('query', ''))[:100]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary=self.summary(args), risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("argument 'query' must be a non-empty string")
        top_k = args.get("topK", 5)
        if not isinstance(top_k, int) or not 1 <= top_k <= 20:
            raise ToolError("argument 'topK' must be an integer from 1 to 20")
        name = args.get("name")
        if name is not None and not isinstance(name, str):
            raise ToolError("argument 'name' must be a string")
        try:
            base, hits, mode = await self.svc.search(query, name or None, top_k)
        except (KbError, EmbedError) as exc:
            raise ToolError(str(exc)) from None
        if not hits:
            return ToolResult(output=f"no passage in knowledge base '{base}' matches")
        parts = [
            f"[{i}] {h.path}:{h.start_line}-{h.end_line}"
            + (f" ({h.heading})" if h.heading else "")
            + f"\n{h.snippet}"
            for i, h in enumerate(hits, 1)
        ]
        return ToolResult(
            output=f"{len(hits)} passages from '{base}' ({mode}):\n\n" + "\n\n".join(parts),
            details={
                "name": base,
                "mode": mode,
                "hits": [
                    {
                        "path": h.path,
                        "heading": h.heading,
                        "startLine": h.start_line,
                        "endLine": h.end_line,
                    }
                    for h in hits
                ],
            },
        )
