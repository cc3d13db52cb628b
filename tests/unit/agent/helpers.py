"""In-test doubles: a scripted ChatProvider, recording tools, a recording sink."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggd.agent import (
    AgentEvent,
    AgentLoop,
    AgentOptions,
    ApprovalDecision,
    Approver,
    InMemoryTranscript,
    PathLocks,
    SteeringQueue,
    allow_all,
)
from ggd.providers.types import (
    ChatProvider,
    ChatRequest,
    Completed,
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCall,
    Usage,
)
from ggd.tools.base import ApprovalInfo, Risk, Tool, ToolContext, ToolResult

WAIT = 5.0


@dataclass
class Hang:
    """A stream step that signals `reached` and then never finishes."""

    reached: asyncio.Event = field(default_factory=asyncio.Event)


Step = list[StreamEvent | BaseException | Hang]


def reply(text: str, usage: Usage | None = None) -> Step:
    """A final answer streamed in two deltas."""
    half = len(text) // 2
    return [
        TextDelta(text[:half]),
        TextDelta(text[half:]),
        Completed(text, [], "end_turn", usage or Usage(10, 5, 15)),
    ]


def calls(*tool_calls: ToolCall, text: str = "") -> Step:
    """An answer that asks for tool calls."""
    return [Completed(text, list(tool_calls), "tool_use", Usage(10, 5, 15))]


def call(cid: str, name: str, **args: Any) -> ToolCall:
    """A ToolCall shorthand."""
    return ToolCall(id=cid, name=name, arguments=args)


class ScriptedProvider(ChatProvider):
    """Plays one scripted step per request and records the requests."""

    name = "scripted"

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[ChatRequest] = []

    async def _play(self, step: Step) -> AsyncIterator[StreamEvent]:
        for ev in step:
            if isinstance(ev, Hang):
                ev.reached.set()
                await asyncio.Event().wait()
            elif isinstance(ev, BaseException):
                raise ev
            else:
                yield ev

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Return the next scripted stream."""
        self.requests.append(request)
        if not self.steps:
            raise AssertionError("the model was asked more often than scripted")
        return self._play(self.steps.pop(0))


class Recorder:
    """A sink that keeps every event and can wait for one matching a predicate."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, ev: AgentEvent) -> None:
        self.events.append(ev)
        self._changed.set()

    def of(self, kind: type) -> list[Any]:
        """Events of one type."""
        return [e for e in self.events if isinstance(e, kind)]

    async def wait_for(self, pred: Callable[[AgentEvent], bool]) -> AgentEvent:
        """Wait until an event matches `pred`."""

        async def _wait() -> AgentEvent:
            while True:
                for ev in self.events:
                    if pred(ev):
                        return ev
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(_wait(), WAIT)


Behaviour = Callable[[dict[str, Any]], Awaitable[ToolResult]]


class RecTool(Tool):
    """A tool that logs start/end into a shared list and runs an optional behaviour."""

    def __init__(
        self,
        name: str,
        log: list[tuple[str, ...]],
        *,
        parallel_safe: bool = False,
        needs_approval: bool = False,
        risk: Risk = "normal",
        behaviour: Behaviour | None = None,
        writes: bool = False,
    ) -> None:
        self.name = name
        self.description = f"test tool {name}"
        self.parameters = {
            "type": "object",
            "properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
            "required": [],
        }
        self.parallel_safe = parallel_safe
        self.log = log
        self._needs_approval = needs_approval
        self._risk: Risk = risk
        self._behaviour = behaviour
        self._writes = writes

    def summary(self, args: dict[str, Any]) -> str:
        """One line."""
        return f"{self.name} {args.get('path', '')}".strip()

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Approval info as configured."""
        return ApprovalInfo(
            summary=self.summary(args), risk=self._risk, needs_approval=self._needs_approval
        )

    def write_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[Path]:
        """The path argument when this tool writes."""
        return [ctx.workspace / args["path"]] if self._writes else []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Log, run the behaviour, log."""
        tag = str(args.get("path", ""))
        self.log.append(("start", self.name, tag))
        try:
            result = await self._behaviour(args) if self._behaviour else ToolResult(f"ok {tag}")
        finally:
            self.log.append(("end", self.name, tag))
        return result


@dataclass
class Harness:
    """A loop with its doubles."""

    loop: AgentLoop
    provider: ChatProvider
    transcript: InMemoryTranscript
    sink: Recorder
    steering: SteeringQueue
    locks: PathLocks


def make_loop(
    provider: ChatProvider,
    tools: Sequence[Tool],
    workspace: Path,
    *,
    approver: Approver = allow_all,
    transcript: InMemoryTranscript | None = None,
    options: AgentOptions | None = None,
    locks: PathLocks | None = None,
) -> Harness:
    """Build an AgentLoop over in-test doubles."""
    transcript = transcript if transcript is not None else InMemoryTranscript()
    sink = Recorder()
    steering = SteeringQueue()
    locks = locks if locks is not None else PathLocks()
    loop = AgentLoop(
        provider,
        "test-model",
        tools,
        ToolContext(workspace=workspace, log_dir=workspace / "logs"),
        transcript,
        sink,
        approver,
        steering,
        locks,
        options or AgentOptions(system_prompt="SYSTEM"),
    )
    return Harness(loop, provider, transcript, sink, steering, locks)


def recording_approver(log: list[tuple[str, ...]], deny: dict[str, str] | None = None) -> Approver:
    """An approver that logs each request and denies the names in `deny` (name -> reason)."""
    deny = deny or {}

    async def approve(tc: ToolCall, tool: Tool, info: ApprovalInfo) -> ApprovalDecision:
        log.append(("approve", tc.name, str(tc.arguments.get("path", ""))))
        if tc.name in deny:
            return ApprovalDecision(False, deny[tc.name])
        return ApprovalDecision(True)

    return approve


def provider_error(partial: str = "") -> ProviderError:
    """A retryable provider failure with partial text."""
    return ProviderError(
        "rate limited by the model service", "rate_limited", retryable=True, partial_text=partial
    )
