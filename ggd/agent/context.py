"""System prompt assembly (instructions, workspace, AGENTS.md files) and token estimates."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggd.tools.base import Tool
from ggd.tools.images import IMAGE_TOKENS

AGENTS_FILE = "AGENTS.md"
# One AGENTS.md larger than this is cut: it is guidance, not a place for whole documents.
AGENTS_MAX_CHARS = 32_000
# The names of deferred tools the prompt lists, at most (a big MCP server must not undo deferral).
LOADABLE_MAX_CHARS = 1500
# Per-message framing the chat format adds on top of the text (role, separators).
MESSAGE_OVERHEAD_TOKENS = 4

INSTRUCTIONS = """\
You are gg, a coding agent working in the user's project through tools.

- Read before you change: look at the relevant files with the read, list and grep tools first.
- Make small, focused edits with the edit tool; use write only for new files or full rewrites.
- Run commands with bash to build, test and check your work; prefer the project's own scripts.
- Paths are relative to the workspace root unless absolute.
- When a tool fails, read the error and adapt; do not repeat the same failing call.
- Keep answers short and concrete; say what you changed and what you could not do.
- Follow the AGENTS.md instructions below; a nearer file wins over a farther one."""


# Where AGENTS.md sits among prompt sections: lower orders come before it, higher after.
AGENTS_ORDER = 50


@dataclass(frozen=True)
class PromptSection:
    """A part of the system prompt a capability contributes (profile, memory, skills)."""

    title: str
    text: str
    order: int = 60


def _read_agents(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text:
        return None
    if len(text) > AGENTS_MAX_CHARS:
        text = text[:AGENTS_MAX_CHARS] + "\n[... truncated]"
    return text


def agents_files(workspace: Path, gg_home: Path | None) -> list[tuple[str, Path, str]]:
    """AGENTS.md files that apply, farthest first: GG_HOME, then root .. workspace."""
    found: list[tuple[str, Path, str]] = []
    seen: set[Path] = set()
    candidates: list[tuple[str, Path]] = []
    if gg_home is not None:
        candidates.append(("global", gg_home / AGENTS_FILE))
    ws = workspace.resolve()
    for folder in reversed([ws, *ws.parents]):
        label = "workspace" if folder == ws else "parent folder"
        candidates.append((label, folder / AGENTS_FILE))
    for label, path in candidates:
        key = path.resolve()
        if key in seen:
            continue
        seen.add(key)
        text = _read_agents(path)
        if text is not None:
            found.append((label, path, text))
    return found


def build_system_prompt(
    workspace: Path,
    gg_home: Path | None,
    tools: Sequence[Tool],
    extra: str | None = None,
    today: _dt.date | None = None,
    sections: Sequence[PromptSection] = (),
    loadable: Sequence[str] = (),
) -> str:
    """The system prompt: instructions, workspace, date, tools (and the deferred, `loadable`
    ones), then sections by order with the AGENTS.md files (nearest last) at AGENTS_ORDER.

    Reads a few small files; call it from a worker thread inside the daemon.
    """
    day = today or _dt.date.today()
    parts = [
        INSTRUCTIONS,
        f"Workspace: {workspace}\nToday's date: {day.isoformat()}",
        "Tools: " + (", ".join(t.name for t in tools) if tools else "none"),
    ]
    if loadable:
        parts[-1] += "\nLoad with tool_search before use: " + _listing(loadable)
    ordered = sorted(sections, key=lambda s: s.order)
    parts += [_section(s) for s in ordered if s.order < AGENTS_ORDER and s.text.strip()]
    for label, path, text in agents_files(workspace, gg_home):
        parts.append(f"# AGENTS.md ({label}: {path})\n\n{text}")
    parts += [_section(s) for s in ordered if s.order >= AGENTS_ORDER and s.text.strip()]
    if extra:
        parts.append(extra.strip())
    return "\n\n".join(parts)


def _listing(names: Sequence[str]) -> str:
    """Names up to LOADABLE_MAX_CHARS; the rest counted (tool_search finds them by words)."""
    shown: list[str] = []
    used = 0
    for name in names:
        if used + len(name) + 2 > LOADABLE_MAX_CHARS:
            break
        shown.append(name)
        used += len(name) + 2
    text = ", ".join(shown)
    left = len(names) - len(shown)
    return f"{text} and {left} more (search by words)" if left else text


def _section(section: PromptSection) -> str:
    return f"# {section.title}\n\n{section.text.strip()}"


def _message_chars(msg: dict[str, Any]) -> int:
    content = msg.get("content") or ""
    if isinstance(content, list):  # OpenAI content parts: an image counts as IMAGE_TOKENS
        chars = sum(
            IMAGE_TOKENS * 4 if p.get("type") == "image_url" else len(str(p.get("text") or ""))
            for p in content
            if isinstance(p, dict)
        )
    else:
        chars = len(str(content))
    chars += IMAGE_TOKENS * 4 * len(msg.get("images") or [])
    for call in msg.get("toolCalls") or []:
        chars += len(call.get("name", "")) + len(json.dumps(call.get("arguments") or {}))
    for call in msg.get("tool_calls") or []:
        fn = call.get("function") or {}
        chars += len(fn.get("name", "")) + len(str(fn.get("arguments", "")))
    return chars


def estimate_tokens(messages: Iterable[dict[str, Any]]) -> int:
    """A cheap token estimate (characters / 4) over protocol or OpenAI messages, tool args included."""
    total = 0
    for msg in messages:
        total += (_message_chars(msg) + 3) // 4 + MESSAGE_OVERHEAD_TOKENS
    return total


def estimate_text_tokens(text: str) -> int:
    """Token estimate of a bare string."""
    return (len(text) + 3) // 4
