"""A provider's failed parts (MCP servers) are reported one by one and cleared when they build."""

from __future__ import annotations

from ggd.app.capabilities import DegradedBook


def test_parts_replace_the_previous_build_parts() -> None:
    book = DegradedBook()
    book.ok("w", "mcp", {"bad": "command not found: x", "hang": "timed out"})
    assert book.report("w") == [
        {"name": "mcp:bad", "reason": "command not found: x"},
        {"name": "mcp:hang", "reason": "timed out"},
    ]
    book.ok("w", "mcp", {"hang": "timed out"})
    assert [d["name"] for d in book.report("w")] == ["mcp:hang"]
    book.failed("w", "mcp", "mcp.json is invalid")
    book.ok("w", "mcp")
    assert book.report("w") == []
    book.ok("w", "mcpx", {"a": "b"})
    book.ok("w", "mcp")
    assert [d["name"] for d in book.report("w")] == ["mcpx:a"]
