"""Provider-neutral request, stream event and error types for chat models."""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass
class ChatRequest:
    """One model request, its messages in OpenAI chat format whatever the provider's wire kind.

    Every kind converts from this form: a user message's `content` is a string or a list of
    OpenAI content parts (`{"type": "text", ...}`, `{"type": "image_url", "image_url": {"url":
    "data:image/png;base64,..."}}`); an assistant message may carry `gg_replay`, the opaque
    `Completed.replay` of an earlier answer, which only the kind that wrote it reads back
    (others, and the Chat Completions body, leave it out).
    """

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int | None = None
    # Stable for the whole session: the cache key of APIs that take one (OpenAI prompt_cache_key).
    session_id: str | None = None
    # "low" | "medium" | "high" (or a kind's own value) for models that reason; None: their default.
    reasoning_effort: str | None = None


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
    """Token counts reported by the model.

    `prompt_tokens` counts every input token, cached ones included (OpenAI's convention); a kind
    whose API reports cache reads and writes apart from input (Anthropic) adds them in.
    `cache_read_tokens` and `cache_write_tokens` are the parts of it read from and written to
    the provider's prompt cache; `reasoning_tokens` the part of `completion_tokens` spent reasoning.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


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
    # What the same kind must send back with this answer on the next request (Anthropic thinking
    # blocks with signatures, Responses encrypted reasoning items, Gemini thought signatures):
    # JSON-safe, with "kind" naming the wire kind. Stored on the assistant message, never shown.
    replay: dict[str, Any] | None = None


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


class AnswerSoFar:
    """Base of every wire kind's stream assembler (dataclasses with `provider` and `text`): the
    text streamed so far, and errors that name the provider and keep that text."""

    provider: str
    text: list[str]  # every text piece so far, in order

    @property
    def partial_text(self) -> str:
        """Text streamed so far."""
        return "".join(self.text)

    def error(self, message: str, code: str, retryable: bool = False) -> ProviderError:
        """A ProviderError that keeps the partial text."""
        return ProviderError(
            f"{self.provider}: {message}", code, retryable=retryable, partial_text=self.partial_text
        )


@dataclass
class Probe:
    """What one request to a provider's model listing found, for `gg models`.

    `reachable` is None when the provider was not asked (a local server that is not running is
    not started for it); `problem` says what is wrong in words a user can act on.
    """

    reachable: bool | None
    problem: str | None = None
    listed: list[str] | None = None


class ChatProvider(abc.ABC):
    """A streaming chat model endpoint."""

    name: str = "provider"
    # The wire kind of its config entry ("openai" is Chat Completions), shown by `gg models`.
    kind: str = "openai"
    is_demo: bool = False

    @abc.abstractmethod
    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream the answer; raises ProviderError on any failure."""

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        """The sampling and limit fields sent with `request`, in the API's own names.

        Recorded with each request in the session so a run can be reproduced.
        """
        return {}

    async def probe(self) -> Probe:
        """Ask the endpoint whether it answers (and with which models); default: not asked."""
        return Probe(reachable=None)

    async def aclose(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release connections."""
