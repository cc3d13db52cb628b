"""The agent tool loop: model requests, tool batches, approvals, steering and compaction."""

from __future__ import annotations

from .approval import ApprovalDecision, Approver, allow_all, deny_all, needs_asking
from .compaction import CompactionSettings, compact, plan_cut, summarise
from .context import PromptSection, agents_files, build_system_prompt, estimate_tokens
from .errors import AgentError
from .events import (
    AgentEvent,
    CompactionEvent,
    DeltaKind,
    Sink,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallFinishEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserMessageEvent,
    delta_writer,
)
from .locks import PathLocks
from .loop import AgentLoop, AgentOptions, TurnOutcome, begin_turn
from .messages import INTERRUPTED, from_openai, repair, to_openai, to_openai_request
from .steering import SteeringQueue
from .toolset import SEARCH_TOOL, ToolSearchTool, ToolSet
from .transcript import InMemoryTranscript, Transcript, TranscriptContext, project

__all__ = [
    "INTERRUPTED",
    "SEARCH_TOOL",
    "AgentError",
    "AgentEvent",
    "AgentLoop",
    "AgentOptions",
    "ApprovalDecision",
    "Approver",
    "CompactionEvent",
    "CompactionSettings",
    "DeltaKind",
    "InMemoryTranscript",
    "PathLocks",
    "PromptSection",
    "Sink",
    "SteeringQueue",
    "TextDeltaEvent",
    "ThinkingDeltaEvent",
    "ToolCallFinishEvent",
    "ToolCallStartEvent",
    "ToolSearchTool",
    "ToolSet",
    "Transcript",
    "TranscriptContext",
    "TurnOutcome",
    "UsageEvent",
    "UserMessageEvent",
    "agents_files",
    "allow_all",
    "begin_turn",
    "build_system_prompt",
    "compact",
    "delta_writer",
    "deny_all",
    "estimate_tokens",
    "from_openai",
    "needs_asking",
    "plan_cut",
    "project",
    "repair",
    "summarise",
    "to_openai",
    "to_openai_request",
]
