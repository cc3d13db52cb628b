"""The memory section of the system prompt: MEMORY.md (head, budgeted) and today's log (tail)."""

from __future__ import annotations

import datetime as _dt

MEMORY_HINT = (
    "What you remember across sessions. Save durable facts and preferences with memory_add; "
    "find older notes (people, groups, past days) with memory_search."
)


def memory_text(curated: str, today_log: str, day: _dt.date, budget: int, daily: int) -> str:
    """The section body: the hint, MEMORY.md cut to `budget`, today's log tail cut to `daily`."""
    parts = [MEMORY_HINT]
    body = _body(curated)
    if body and budget > 0:
        parts.append("## MEMORY.md\n\n" + head(body, budget, "MEMORY.md"))
    log = _body(today_log)
    if log and daily > 0:
        parts.append(f"## Today's log ({day.isoformat()})\n\n" + tail(log, daily))
    if len(parts) == 1:
        parts.append("Nothing remembered yet.")
    return "\n\n".join(parts)


def head(text: str, budget: int, name: str) -> str:
    """The start of text within budget, cut at a line end, with a note of what was left out."""
    if len(text) <= budget:
        return text
    cut = text.rfind("\n", 0, budget)
    kept = text[: cut if cut > 0 else budget].rstrip()
    left = len(text) - len(kept)
    return f"{kept}\n[... {left} more characters in {name}; memory_search finds them]"


def tail(text: str, budget: int) -> str:
    """The end of text within budget, starting at a line, with a note that earlier lines exist."""
    if len(text) <= budget:
        return text
    start = text.find("\n", len(text) - budget)
    kept = text[start + 1 if start >= 0 else len(text) - budget :].lstrip()
    return f"[... earlier entries of today left out]\n{kept}"


def _body(text: str) -> str:
    """The file without its own title line (the section has one)."""
    lines = text.strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip()


__all__ = ["MEMORY_HINT", "head", "memory_text", "tail"]
