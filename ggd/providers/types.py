"""Provider-neutral request, stream event and error types for chat models."""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass
class ChatRequest:
    """One chat-completions request in OpenAI message format."""

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int | None = None


@dataclass
class TextDelta:
    """A piece of assistant text as it streams."""

    text: str


@dataclass
class ThinkingDelta:
    """A piece of reasoning text as it streams."""

    text: str


@dataclass
class Usage:
    """Token counts reported by the model."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


@dataclass
class ToolCall:
    """A complete, validated tool call: arguments are always a JSON object."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass
class Completed:
    """The last event of a successful stream."""

    text: str
    tool_calls: list[ToolCall]
    stop_reason: Literal["end_turn", "tool_use"]
    usage: Usage | None = None
    thinking: str = ""


StreamEvent = TextDelta | ThinkingDelta | Usage | Completed


class ProviderError(Exception):
    """Any model failure; partial_text keeps what streamed before it."""

    def __init__(
        self,
        message: str,
        code: str,
        *,
        retryable: bool = False,
        partial_text: str = "",
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.retryable = retryable
        self.partial_text = partial_text
        self.status = status


class ChatProvider(abc.ABC):
    """A streaming chat model endpoint."""

    name: str = "provider"
    is_demo: bool = False

    @abc.abstractmethod
    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream the answer; raises ProviderError on any failure."""

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        """The sampling and limit fields sent with `request`, in the API's own names.

        Recorded with each request in the session so a run can be reproduced.
        """
        return {}

    async def aclose(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release connections."""
