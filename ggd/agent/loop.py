"""The tool loop: one run of one conversation, from a prompt to the model's final answer."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggd.providers.prices import Price, Spend
from ggd.providers.types import (
    ChatProvider,
    ChatRequest,
    Completed,
    ProviderError,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)
from ggd.tools.base import Tool, ToolContext

from .approval import Approver
from .budget import BudgetLimit, budget_stop
from .compaction import CompactionSettings, compact, plan_cut
from .context import PromptSection, build_system_prompt, estimate_text_tokens, estimate_tokens
from .errors import AgentError
from .events import (
    DISPLAY_LIMIT,
    DeltaKind,
    Sink,
    UserMessageEvent,
    delta_writer,
    safe_emit,
)
from .executor import ToolExecutor
from .hooks import ToolHooks
from .locks import PathLocks
from .loopguard import LoopAsk, LoopGuard, LoopGuardSettings
from .messages import (
    INTERRUPTED,
    ImageUrls,
    assistant_message,
    to_openai_request,
    tool_message,
    trailing_dangling,
    user_message,
)
from .steering import SteeringQueue
from .toolset import ToolSet
from .transcript import Transcript
from .usage import add_usage, side_request, usage_event, usage_record

log = logging.getLogger(__name__)

TURN_LIMIT_CODE = "turn_limit"


def turn_limit_message(requests: int) -> str:
    """Which limit stopped the run and how to raise it."""
    return (
        f"turn limit reached: the run stopped after {requests} model requests (maxTurns); "
        'raise it with `ggd --max-turns N` or "maxTurns": N in GG_HOME/config.json'
    )


@dataclass
class AgentOptions:
    """Limits and prompt settings of the loop."""

    max_turns: int = 500
    max_tokens: int = 4096
    system_prompt: str | None = None
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    context_window: int | None = None
    gg_home: Path | None = None
    # Capability sections (profile, memory, skills), read at the start of this run.
    prompt_sections: Sequence[PromptSection] = ()
    max_parallel: int = 4
    display_limit: int = DISPLAY_LIMIT
    loop_guard: LoopGuardSettings = field(default_factory=LoopGuardSettings)
    # Called before each model request: the reason to stop when a budget shared with other
    # loops (a run's subagents) is spent, else None. Counts the request.
    turn_gate: Callable[[], str | None] | None = None
    # A stored image's data URL for requests; None when the model takes no images.
    image_urls: ImageUrls | None = None
    # Hooks of this run (PreToolUse, PostToolUse, Stop), or None: ggd.hooks implements them.
    hooks: ToolHooks | None = None
    # What a request of this model costs (None: unknown, tokens only), the budgets the run
    # counts against, and what the session spent before this run.
    price: Price | None = None
    budgets: tuple[BudgetLimit, ...] = ()
    # The spending of the whole run tree (this run and its subagents), shared by their loops:
    # every request is added to it and the budgets count against it. None: this run's own.
    tree_spend: Spend | None = None
    session_before: Spend | None = None
    # Sent as ChatRequest.reasoning_effort (a run's, else the model's configured value).
    reasoning_effort: str | None = None
    # The share of the context window deferrable tools may be declared in up front (toolset.py).
    tool_share: float = 0.1

    def tool_budget(self) -> int | None:
        """Tokens of deferrable tool declarations sent up front; None: defer them all."""
        if not self.context_window or self.tool_share <= 0:
            return None
        return int(self.context_window * self.tool_share)


@dataclass
class TurnOutcome:
    """How a run ended: the final answer, summed usage, the stop reason and the request count."""

    content: str
    usage: Usage
    stop_reason: str
    requests: int = 0
    spend: Spend = field(default_factory=Spend)


async def begin_turn(
    transcript: Transcript, prompt: str, images: list[dict[str, Any]] | None = None
) -> None:
    """Make a turn durable before anyone is told it started (no loop needed yet).

    Closes tool calls a crashed run left dangling (recorded as interrupted, never replayed), then
    appends the prompt (fsynced). The app awaits this before it acknowledges `gg/run.start`.
    """
    msgs = [m for _, m in transcript.context().messages]
    for call in trailing_dangling(msgs):
        await transcript.append_message(
            tool_message(call["id"], call.get("name", ""), INTERRUPTED, True)
        )
    await transcript.append_message(user_message(prompt, images))


class AgentLoop:
    """Drives model requests and tool batches for one conversation; one run at a time."""

    def __init__(
        self,
        provider: ChatProvider,
        model: str,
        tools: Sequence[Tool],
        tool_ctx: ToolContext,
        transcript: Transcript,
        sink: Sink,
        approver: Approver,
        steering: SteeringQueue,
        path_locks: PathLocks,
        options: AgentOptions | None = None,
        loop_ask: LoopAsk | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.options = options or AgentOptions()
        self.tools = ToolSet(tools, self.options.tool_budget())
        self.tool_ctx = tool_ctx
        self.transcript = transcript
        self.sink = sink
        self.steering = steering
        self._system: str | None = self.options.system_prompt
        self._sent: ChatRequest | None = None
        # This run's tokens and cost so far (the app reads it when a run stops early too).
        self.spend = Spend()
        # --- loop guard (ggd/agent/loopguard.py): sees every batch and every tool result ---
        self._guard = LoopGuard(self.options.loop_guard, loop_ask)

        async def append_result(message: dict[str, Any]) -> str:
            return await transcript.append_message(self._guard.result(message))

        # --- end loop guard ---
        self._executor = ToolExecutor(
            self.tools,
            tool_ctx,
            sink,
            approver,
            path_locks,
            append_result,
            max_parallel=self.options.max_parallel,
            display_limit=self.options.display_limit,
            hooks=self.options.hooks,
        )

    async def run(self, prompt: str) -> TurnOutcome:
        """Run the conversation from `prompt` until the model answers without tool calls."""
        await self.begin(prompt)
        return await self.run_from_begun()

    async def begin(self, prompt: str) -> None:
        """Make the turn durable before anyone is told it started.

        Closes tool calls a crashed run left dangling, then appends the prompt (fsynced). The
        app awaits this before it acknowledges `gg/run.start`, so a kill right after the reply
        never loses the prompt; `run_from_begun` then drives the model.
        """
        await begin_turn(self.transcript, prompt)

    async def run_from_begun(self) -> TurnOutcome:
        """Drive the model and tools after `begin` until the model answers without tool calls."""
        totals = Usage()
        requests = 0
        stop_hook_active = False
        # Deferred tools the conversation already used stay declared in this run too.
        self.tools.restore(m for _, m in self.transcript.context().messages)
        while True:
            if requests >= self.options.max_turns:
                raise AgentError(turn_limit_message(requests), TURN_LIMIT_CODE, retryable=False)
            if self.options.turn_gate is not None and (why := self.options.turn_gate()):
                raise AgentError(why, TURN_LIMIT_CODE, retryable=False)
            if requests:
                await self._take_user_messages(self.steering.drain_steering())
            stop = self._budget_stop()
            if stop is not None:
                raise stop
            completed = await self._request(totals)
            requests += 1
            if completed.tool_calls:
                stop = self._budget_stop()
                if stop is not None:  # the calls this request asked for are answered, not run
                    await self._not_run(completed.tool_calls, stop)
                await self._guarded(completed.tool_calls)  # loop guard, then the batch
                await self._executor.run_batch(completed.tool_calls)
                continue
            # Steering that arrived during the last request was never taken: treat it like a
            # follow-up instead of dropping it.
            more = self.steering.drain_steering() + self.steering.drain_follow_ups()
            if not more and self.options.hooks is not None:
                # A Stop hook may send the model back to work with its reason (Claude Code's
                # stop_hook_active says it already did once); the turn limit still bounds it.
                reason = await self.options.hooks.stop(completed.text, stop_hook_active)
                if reason:
                    stop_hook_active = True
                    more = [reason]
            if more:
                await self._take_user_messages(more)
                continue
            return TurnOutcome(
                content=completed.text,
                usage=totals,
                stop_reason=completed.stop_reason,
                requests=requests,
                spend=self.spend,
            )

    def _budget_stop(self) -> AgentError | None:
        priced = self.options.price is not None
        tree = self.options.tree_spend
        spent = tree if tree is not None else self.spend
        return budget_stop(self.options.budgets, spent, self.model, priced=priced)

    async def _guarded(self, calls: list[ToolCall]) -> None:
        """Loop guard: a stopped run still answers every call it was given (as not run)."""
        try:
            await self._guard.check(calls)
        except AgentError as exc:
            await self._not_run(calls, exc)

    async def _not_run(self, calls: list[ToolCall], exc: AgentError) -> None:
        """Answer every call of a stopped run as not run, then raise why it stopped."""
        for call in calls:
            note = f"not run: {exc.message}"
            await self.transcript.append_message(tool_message(call.id, call.name, note, True))
        raise exc

    async def compact(self, instructions: str | None = None) -> str | None:
        """Compact the conversation now (`/compact`); returns the summary or None."""
        return await compact(
            self.provider,
            self.model,
            self.transcript,
            self.options.compaction,
            self.sink,
            instructions,
            self._count_summary,
        )

    async def _count_summary(self, usage: Usage | None) -> None:
        """A compaction's request counts against the run and its budgets like any other."""
        used, cost, record = side_request(usage, self.options.price, self.model, "compaction")
        self.spend.add(used, cost)
        if self.options.tree_spend is not None:
            self.options.tree_spend.add(used, cost)
        await self.transcript.append_usage(record)

    async def _take_user_messages(self, texts: list[str]) -> None:
        for text in texts:
            await self.transcript.append_message(user_message(text))
            safe_emit(self.sink, UserMessageEvent(text=text))

    async def _system_prompt(self) -> str:
        if self._system is None:
            self._system = await asyncio.to_thread(
                build_system_prompt,
                self.tool_ctx.workspace,
                self.options.gg_home,
                self.tools.eager,
                sections=self.options.prompt_sections,
                loadable=self.tools.deferred_names,
            )
        return self._system

    async def _build_request(self) -> tuple[ChatRequest, int]:
        system = await self._system_prompt()
        # Per request: tools loaded by the previous step are declared from this one on.
        specs = [t.spec() for t in self.tools.declared()]
        spec_tokens = estimate_text_tokens(json.dumps(specs))
        compacted = False
        while True:
            ctx = self.transcript.context()
            if ctx.summary:
                system_text = f"{system}\n\n# Summary of the earlier conversation\n\n{ctx.summary}"
            else:
                system_text = system
            msgs = to_openai_request(
                system_text, [m for _, m in ctx.messages], self.options.image_urls
            )
            estimate = estimate_tokens(msgs) + spec_tokens
            budget = self.options.compaction.budget(self.options.context_window)
            # Compact at most once per request: a tail that is still too big is sent as is.
            if compacted or estimate <= budget:
                break
            compacted = True
            if plan_cut([m for _, m in ctx.messages], self.options.compaction) is None:
                break
            await self.compact()
        request = ChatRequest(
            model=self.model,
            messages=msgs,
            tools=specs,
            max_tokens=self.options.max_tokens,
            session_id=self.tool_ctx.session_id or None,
            reasoning_effort=self.options.reasoning_effort,
        )
        self._sent = request  # its parameters are recorded with its usage
        return request, estimate

    async def _request(self, totals: Usage) -> Completed:
        """Stream one model request, persist the assistant message and report usage."""
        request, estimate = await self._build_request()
        partial: list[str] = []
        completed: Completed | None = None
        usage: Usage | None = None
        stream = self.provider.stream(request)
        write_delta = delta_writer(self.sink)
        try:
            try:
                async for ev in stream:
                    if isinstance(ev, TextDelta):
                        partial.append(ev.text)
                        _write(write_delta, "text_delta", ev.text)
                    elif isinstance(ev, ThinkingDelta):
                        _write(write_delta, "thinking_delta", ev.text)
                    elif isinstance(ev, Usage):
                        usage = ev
                    elif isinstance(ev, Completed):
                        completed = ev
            finally:
                aclose = getattr(stream, "aclose", None)
                if aclose is not None:
                    await aclose()
        except ProviderError as exc:
            text = exc.partial_text or "".join(partial)
            await self._append_failed(text, exc.message)
            raise AgentError(exc.message, exc.code, exc.retryable) from exc
        except asyncio.CancelledError:
            await self.transcript.append_message(
                assistant_message("".join(partial), stop_reason="canceled")
            )
            raise
        except Exception as exc:
            log.exception("model stream failed")
            await self._append_failed("".join(partial), "model request failed")
            raise AgentError("model request failed", "provider_error", True) from exc
        if completed is None:
            message = "the model stream ended before the answer was complete"
            await self._append_failed("".join(partial), message)
            raise AgentError(message, "incomplete_stream", retryable=True)
        if not completed.text and partial:
            completed.text = "".join(partial)
        stop = "tool_use" if completed.tool_calls else completed.stop_reason
        await self.transcript.append_message(
            assistant_message(
                completed.text,
                completed.tool_calls,
                stop_reason=stop,
                thinking=completed.thinking,
                replay=completed.replay,
            )
        )
        await self._report_usage(completed.usage or usage, estimate, totals)
        return completed

    async def _append_failed(self, text: str, error: str) -> None:
        await self.transcript.append_message(
            assistant_message(text, stop_reason="error", error=error)
        )

    async def _report_usage(self, usage: Usage | None, estimate: int, totals: Usage) -> None:
        used = usage or Usage()
        add_usage(totals, used)
        price = self.options.price
        # No usage reported: the tokens are unknown, so the cost is too (never a guessed $0).
        cost = price.cost(used) if price is not None and usage is not None else None
        self.spend.add(used, cost)
        if self.options.tree_spend is not None:
            self.options.tree_spend.add(used, cost)
        context_tokens = used.prompt_tokens or estimate
        window = self.options.context_window
        params = self.provider.request_params(self._sent) if self._sent is not None else {}
        record = usage_record(used, cost, context_tokens, self.model, window, params)
        await self.transcript.append_usage(record)
        before = self.options.session_before
        safe_emit(self.sink, usage_event(used, cost, context_tokens, window, self.spend, before))


def _write(write_delta: Callable[[DeltaKind, str], None], kind: DeltaKind, text: str) -> None:
    """One delta to the sink; as safe_emit, a failing sink is logged, never breaks the run."""
    try:
        write_delta(kind, text)
    except Exception:
        log.exception("agent event sink failed on a %s", kind)
