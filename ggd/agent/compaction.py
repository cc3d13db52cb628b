"""Compaction: summarise the older part of a conversation with one model request."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ggd.providers.types import (
    ChatProvider,
    ChatRequest,
    Completed,
    ProviderError,
    TextDelta,
    Usage,
)

from .context import estimate_tokens
from .errors import AgentError
from .events import CompactionEvent, Sink, safe_emit
from .transcript import Transcript

# Told what a summary request spent (None: no usage reported), to count it like any request.
UsageHook = Callable[[Usage | None], Awaitable[None]]

# A tool result longer than this is cut in the text given to the summariser.
SUMMARY_INPUT_TOOL_CHARS = 2000

SUMMARY_PROMPT = """\
You compress a coding agent's conversation so the work can continue without it.
Write a concise summary that keeps: the user's goals and constraints, decisions made, files
read or changed (with paths), commands run and their outcomes, errors still open, and the
next steps. Use short bullet points. Do not invent anything; do not call tools."""


@dataclass
class CompactionSettings:
    """When and how much to compact (token counts are estimates)."""

    prompt_budget: int = 24000
    reserve_output: int = 4000
    keep_tail_turns: int = 6
    summary_tokens: int = 1200

    def budget(self, context_window: int | None) -> int:
        """The prompt size above which the loop compacts before a request."""
        if context_window:
            return min(self.prompt_budget, context_window - self.reserve_output)
        return self.prompt_budget


def plan_cut(messages: Sequence[dict[str, Any]], settings: CompactionSettings) -> int | None:
    """Index of the first message to keep, or None when nothing can be summarised.

    Keeps the last `keep_tail_turns` turns (a turn starts at a user message), fewer when the
    tail alone would fill half the budget. A cut never lands on a tool result, so an assistant
    tool call always stays together with its results.
    """
    safe = [i for i in range(1, len(messages)) if messages[i].get("role") != "tool"]
    if not safe:
        return None
    starts = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    keep = max(1, settings.keep_tail_turns)
    cut = starts[-keep] if len(starts) >= keep else 0
    if cut == 0 and starts and starts[-1] > 0:
        cut = starts[-1]
    target = settings.prompt_budget // 2
    while cut == 0 or estimate_tokens(messages[cut:]) > target:
        later = [i for i in safe if i > cut]
        if not later:
            break
        cut = later[0]
    return cut if cut > 0 else None


def render_for_summary(previous: str | None, messages: Sequence[dict[str, Any]]) -> str:
    """The older conversation as plain text for the summariser."""
    lines: list[str] = []
    if previous:
        lines.append(f"[earlier summary]\n{previous}\n")
    for msg in messages:
        role = msg.get("role", "user")
        content = str(msg.get("content") or "")
        if role == "tool":
            if len(content) > SUMMARY_INPUT_TOOL_CHARS:
                content = content[:SUMMARY_INPUT_TOOL_CHARS] + " [...]"
            status = " (error)" if msg.get("isError") else ""
            lines.append(f"[tool result {msg.get('toolName', '')}{status}]\n{content}\n")
            continue
        lines.append(f"[{role}]\n{content}\n" if content else f"[{role}]")
        if msg.get("images"):  # the summariser reads text: it is told pictures were there
            lines.append(f"[{role} attached {len(msg['images'])} image(s), not shown here]")
        for call in msg.get("toolCalls") or []:
            args = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
            lines.append(f"[{role} calls {call.get('name', '')}] {args}")
    return "\n".join(lines)


async def summarise(
    provider: ChatProvider,
    model: str,
    previous: str | None,
    messages: Sequence[dict[str, Any]],
    settings: CompactionSettings,
    instructions: str | None = None,
    on_usage: UsageHook | None = None,
) -> str:
    """Ask the model for a summary in one request without tools; its streamed text is the summary.

    `on_usage` gets what the request spent (None: the server reported no usage), so the summary's
    tokens and cost count like any request's.
    """
    prompt = SUMMARY_PROMPT + (f"\n\nAlso: {instructions}" if instructions else "")
    request = ChatRequest(
        model=model,
        messages=[
            {"role": "system", "content": prompt},
            {"role": "user", "content": render_for_summary(previous, messages)},
        ],
        tools=[],
        max_tokens=settings.summary_tokens,
    )
    parts: list[str] = []
    final: str | None = None
    usage: Usage | None = None
    try:
        async for ev in provider.stream(request):
            if isinstance(ev, TextDelta):
                parts.append(ev.text)
            elif isinstance(ev, Usage):
                usage = ev
            elif isinstance(ev, Completed):
                final = ev.text
                usage = ev.usage or usage
    except ProviderError as exc:
        raise AgentError(f"compaction failed: {exc.message}", exc.code, exc.retryable) from exc
    if on_usage is not None:
        await on_usage(usage)
    text = (final if final else "".join(parts)).strip()
    if not text:
        raise AgentError("compaction failed: the model returned an empty summary", "compaction")
    return text


async def compact(
    provider: ChatProvider,
    model: str,
    transcript: Transcript,
    settings: CompactionSettings,
    sink: Sink | None = None,
    instructions: str | None = None,
    on_usage: UsageHook | None = None,
) -> str | None:
    """Summarise everything but the recent tail now (`/compact`); returns the summary or None."""
    ctx = transcript.context()
    msgs = [m for _, m in ctx.messages]
    cut = plan_cut(msgs, settings)
    if cut is None:
        return None
    summary = await summarise(
        provider, model, ctx.summary, msgs[:cut], settings, instructions, on_usage
    )
    first_kept_id = ctx.messages[cut][0]
    await transcript.append_summary(summary, first_kept_id)
    if sink is not None:
        safe_emit(sink, CompactionEvent(summary=summary, first_kept_id=first_kept_id))
    return summary
