"""Small helpers for provider tests."""

from __future__ import annotations

from typing import Any

from ggd.providers import ChatProvider, ChatRequest, Completed, ProviderError, StreamEvent


def request(text: str = "hi", **kw: Any) -> ChatRequest:
    """A one-user-message request."""
    return ChatRequest(
        model=kw.pop("model", "fake-model"), messages=[{"role": "user", "content": text}], **kw
    )


async def collect(provider: ChatProvider, req: ChatRequest) -> list[StreamEvent]:
    """Every event of one stream."""
    return [ev async for ev in provider.stream(req)]


async def failure(
    provider: ChatProvider, req: ChatRequest
) -> tuple[ProviderError, list[StreamEvent]]:
    """The ProviderError a stream raises, plus the events before it."""
    seen: list[StreamEvent] = []
    try:
        async for ev in provider.stream(req):
            seen.append(ev)
    except ProviderError as err:
        assert not any(isinstance(e, Completed) for e in seen)
        return err, seen
    raise AssertionError(f"stream did not fail; events: {seen}")
