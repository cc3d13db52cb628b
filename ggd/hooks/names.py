"""gg's tool names and arguments as Claude Code's hooks see them.

A matcher is tried against both names, so `Bash` and `bash`, `Edit|Write` and `edit|write` all
work. `tool_input` is gg's arguments plus Claude Code's field names where gg's differ, so a
script written for Claude Code reads `tool_input.file_path` (absolute) or `tool_input.command`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CLAUDE_NAMES = {
    "bash": "Bash",
    "read": "Read",
    "write": "Write",
    "edit": "Edit",
    "grep": "Grep",
    "list": "LS",
    "todo_write": "TodoWrite",
    "task": "Task",
}


def claude_name(name: str) -> str:
    """Claude Code's name of a gg tool (other tools keep gg's name, e.g. mcp_time_now)."""
    return CLAUDE_NAMES.get(name, name)


def tool_input(name: str, args: dict[str, Any], workspace: Path) -> dict[str, Any]:
    """The call's arguments with Claude Code's names added (gg's own stay too)."""
    out = dict(args)
    path = args.get("path")
    if isinstance(path, str) and path:
        p = Path(path).expanduser()
        out.setdefault("file_path", str(p if p.is_absolute() else workspace / p))
    edits = args.get("edits")
    if (
        name == "edit"
        and isinstance(edits, list)
        and len(edits) == 1
        and isinstance(edits[0], dict)
    ):
        out.setdefault("old_string", edits[0].get("oldText"))
        out.setdefault("new_string", edits[0].get("newText"))
    return out


__all__ = ["CLAUDE_NAMES", "claude_name", "tool_input"]
