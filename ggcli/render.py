"""Terminal output: colours (NO_COLOR aware), tool lines, approval prompts, trees, sessions."""

from __future__ import annotations

import os
import time
from typing import Any, NamedTuple, TextIO

from ggcli.markdown import MarkdownStream  # re-exported: callers import it from here
from ggcli.tree import format_tree  # re-exported

__all__ = [
    "MarkdownStream",
    "Style",
    "approval_prompt",
    "format_context",
    "format_sessions",
    "format_tool_line",
    "format_tool_result",
    "format_tree",
    "todo_block",
    "use_color",
]

_CODES = {
    "bold": "1",
    "dim": "2",
    "italic": "3",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, never with NO_COLOR set or TERM=dumb."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Style(NamedTuple):
    """Wraps text in ANSI styles when enabled; identity otherwise."""

    enabled: bool = False

    def code(self, *names: str) -> str:
        """The escape sequence that turns the named styles on ('' when disabled)."""
        if not self.enabled or not names:
            return ""
        return "\x1b[" + ";".join(_CODES[n] for n in names) + "m"

    @property
    def reset(self) -> str:
        """The escape sequence that resets styles ('' when disabled)."""
        return "\x1b[0m" if self.enabled else ""

    def __call__(self, text: str, *names: str) -> str:
        """Text wrapped in the named styles."""
        if not self.enabled or not names:
            return text
        return self.code(*names) + text + self.reset


def format_tool_line(
    name: str, summary: str, ok: bool | None, output: str = "", style: Style | None = None
) -> str:
    """One line for a tool call: status mark, tool name, summary, first error line."""
    st = style or Style()
    if ok is None:
        mark = st("…", "dim")
    elif ok:
        mark = st("✓", "green")
    else:
        mark = st("✗", "red")
    # Summaries often start with the tool's name already ("read a.txt"): don't say it twice.
    if summary.split(" ", 1)[0] == name:
        line = f"  {mark} {st(name, 'bold')}{summary[len(name) :]}".rstrip()
    else:
        line = f"  {mark} {st(name, 'bold')} {summary}".rstrip()
    if ok is False and output.strip():
        first = output.strip().splitlines()[0]
        line += " " + st("— " + _clip(first, 120), "red")
    return line


PREVIEW_LINES = 5
PREVIEW_WIDTH = 200
_DENIED = "denied: "
# The daemon's reasons name protocol values; a person at gg needs gg's own flags.
NOT_INTERACTIVE_HINT = "rerun with --yolo, or with --approval on-request in a terminal"
DANGEROUS_HINT = "run gg in a terminal to approve it yourself"


def format_tool_result(
    name: str,
    summary: str,
    ok: bool,
    output: str,
    style: Style | None = None,
    *,
    details: dict[str, Any] | None = None,
    verbose: bool = False,
) -> str:
    """A finished tool call: its line, then the first lines of its output (all when verbose).

    A denial prints its whole reason and how to allow it with gg's flags; a bash failure says
    its exit code on the tool line.
    """
    st = style or Style()
    text = output.strip("\n")
    if not ok and text.startswith(_DENIED):
        reason = text[len(_DENIED) :].strip()
        line = format_tool_line(name, summary, False, "", st) + " " + st("— denied", "red")
        out = [line, "    " + st(reason, "red")]
        hint = _deny_hint(reason)
        if hint:
            out.append("    " + st("hint: " + hint, "yellow"))
        return "\n".join(out)
    code = (details or {}).get("exitCode")
    body = text.splitlines()
    if name == "bash" and body and body[-1].startswith("[exit code:"):
        body = body[:-1]  # said on the tool line instead
    if not ok and isinstance(code, int) and not isinstance(code, bool):
        line = format_tool_line(name, summary, False, "", st) + " " + st(f"— exit {code}", "red")
    else:
        line = format_tool_line(name, summary, ok, text, st)
        if not ok:
            body = body[1:]  # its first line is on the tool line already
    if name == "read" and ok:
        return line + ("" if not body else " " + st(f"({_read_extent(details, body)})", "dim"))
    return "\n".join([line, *_preview(body, st, verbose)])


def _read_extent(details: dict[str, Any] | None, body: list[str]) -> str:
    """How much of the file a read showed: all N lines, or lines A-B of N (from its details)."""
    d = details or {}
    total, first, last = d.get("lines"), d.get("from"), d.get("to")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (total, first, last)):
        return f"{len(body)} lines"
    if first == 1 and last == total:
        return f"{total} lines"
    return f"lines {first}-{last} of {total}"


def _preview(body: list[str], st: Style, verbose: bool) -> list[str]:
    while body and not body[-1].strip():
        body = body[:-1]
    shown = body if verbose else body[:PREVIEW_LINES]
    out = ["    " + st("│ ", "dim") + _clip(ln.rstrip(), PREVIEW_WIDTH) for ln in shown]
    if len(body) > len(shown):
        more = len(body) - len(shown)
        out.append(
            "    "
            + st(f"… {more} more line{'s' if more != 1 else ''} (--verbose shows all)", "dim")
        )
    return out


def _deny_hint(reason: str) -> str:
    if "not interactive" in reason:
        return NOT_INTERACTIVE_HINT
    if "dangerous" in reason and "person" in reason:
        return DANGEROUS_HINT
    return ""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def approval_prompt(approval: dict[str, Any], style: Style | None = None) -> str:
    """The approval request as shown to the user: tool, summary, risk, reason, diff, question."""
    st = style or Style()
    risk = str(approval.get("risk") or "normal")
    risk_colour = {"dangerous": "red", "read_only": "green"}.get(risk, "yellow")
    lines = [
        st("? approve ", "bold", "yellow")
        + st(str(approval.get("toolName", "tool")), "bold")
        + f": {approval.get('summary', '')}",
        f"  risk: {st(risk, risk_colour)}"
        + (f" ({approval['riskReason']})" if approval.get("riskReason") else ""),
    ]
    details = approval.get("details")
    if isinstance(details, dict):
        diff = details.get("diff")
        body = diff or details.get("preview") or details.get("command")
        if isinstance(body, str) and body.strip():
            lines += [
                _diff_line(dl, st) if diff else "  " + dl for dl in body.rstrip("\n").split("\n")
            ]
    elif isinstance(details, str) and details.strip():
        body_lines = details.rstrip("\n").split("\n")
        is_diff = any(dl.startswith(("@@", "+++ ", "--- ")) for dl in body_lines)
        lines += [_diff_line(dl, st) if is_diff else "  " + dl for dl in body_lines]
    lines.append(st("  allow? [y]es / [n]o / [a]lways this session: ", "bold"))
    return "\n".join(lines)


def _diff_line(line: str, st: Style) -> str:
    if line.startswith(("+++", "---")):
        return "  " + st(line, "bold")
    if line.startswith("+"):
        return "  " + st(line, "green")
    if line.startswith("-"):
        return "  " + st(line, "red")
    if line.startswith("@@"):
        return "  " + st(line, "cyan")
    return "  " + line


def format_sessions(sessions: list[dict[str, Any]], style: Style | None = None) -> str:
    """A table of sessions, newest first as the daemon lists them."""
    st = style or Style()
    if not sessions:
        return "no sessions in this workspace"
    rows = []
    for s in sessions:
        when = _when(s.get("updatedAt"))
        name = str(s.get("name") or "-")
        busy = " (running)" if s.get("activeRunId") else ""
        preview = _clip(str(s.get("preview") or "").replace("\n", " "), 50)
        ws = s.get("workspace")
        where = ""
        if isinstance(ws, dict):  # an all-workspace listing: say where each one lives
            where = "  " + st(f"[{ws.get('root') or ws.get('name')}]", "cyan")
        rows.append(
            f"{st(str(s.get('id')), 'bold')}  {name}{busy}  {s.get('messageCount', 0)} msgs  "
            f"{when}{where}  {st(preview, 'dim')}".rstrip()
        )
    return "\n".join(rows)


def format_context(info: dict[str, Any]) -> str:
    """One line for gg/session.context: tokens against the budget, messages, summary, model."""
    tokens, budget = info.get("contextTokens"), info.get("promptBudget")
    if isinstance(tokens, int) and isinstance(budget, int) and budget > 0:
        used = f"{tokens:,} of {budget:,} tokens ({round(100 * tokens / budget)}%)"
    elif isinstance(tokens, int):
        used = f"{tokens:,} tokens"
    else:
        used = "unknown size"
    parts = [f"context: {used}", f"{info.get('messageCount', '?')} messages in context"]
    if info.get("hasSummary"):
        parts.append("older turns summarised")
    if info.get("model"):
        parts.append(str(info["model"]))
    return " · ".join(parts)


def format_usage(usage: dict[str, Any], label: str = "this turn") -> str:
    """One line of tokens and cost: input (cached, written), output (reasoning), USD.

    "cost unknown" when the daemon sent none: the model has no known price, or its server
    reported no usage.
    """

    def n(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) else 0

    input_part = f"{n('promptTokens'):,} in"
    cache = [f"{n('cacheReadTokens'):,} cached"] if n("cacheReadTokens") else []
    if n("cacheWriteTokens"):
        cache.append(f"{n('cacheWriteTokens'):,} written to cache")
    if cache:
        input_part += f" ({', '.join(cache)})"
    output_part = f"{n('completionTokens'):,} out"
    if n("reasoningTokens"):
        output_part += f" ({n('reasoningTokens'):,} reasoning)"
    parts = [f"{label}: {input_part}", output_part]
    cost = usage.get("costUsd")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        parts.append(format_usd(float(cost)))
    else:
        parts.append("cost unknown")
    if isinstance(usage.get("requests"), int):
        parts.append(f"{usage['requests']} requests")
    return " · ".join(parts)


def format_usd(cost: float) -> str:
    """$0.0123 below a dollar (4 decimals: a turn often costs cents), $12.34 above."""
    return f"${cost:.4f}" if cost < 1 else f"${cost:,.2f}"


def _when(ms: Any) -> str:
    if not isinstance(ms, int | float):
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))


_TODO_MARKS = {"completed": ("☒", "green"), "in_progress": ("◐", "yellow"), "pending": ("☐", "dim")}


def todo_block(todos: list[dict[str, Any]], style: Style | None = None) -> str:
    """The session's todo list as a block: a header with the count done, one line per item."""
    st = style or Style()
    if not todos:
        return st("  todo list: empty", "dim") + "\n"
    done = sum(1 for t in todos if t.get("status") == "completed")
    lines = [st(f"  todo list ({done}/{len(todos)} done)", "bold")]
    for t in todos:
        mark, colour = _TODO_MARKS.get(str(t.get("status")), ("?", "dim"))
        text = str(t.get("content", ""))
        if t.get("status") == "in_progress":
            text = st(text, "bold")
        lines.append(f"    {st(mark, colour)} {text}")
    return "\n".join(lines) + "\n"
