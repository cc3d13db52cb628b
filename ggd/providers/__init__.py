"""Chat model providers: streaming clients per wire kind, config resolution and the demo model."""

from __future__ import annotations

from ggd.providers.anthropic import AnthropicProvider
from ggd.providers.demo import DEMO_MODEL, DemoProvider
from ggd.providers.gemini import GeminiProvider
from ggd.providers.openai_compat import OpenAICompatProvider, ProviderOptions
from ggd.providers.openai_responses import ResponsesProvider
from ggd.providers.registry import WELL_KNOWN, ProviderRegistry, build_registry, resolve_provider
from ggd.providers.types import (
    ChatProvider,
    ChatRequest,
    Completed,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)

__all__ = [
    "DEMO_MODEL",
    "WELL_KNOWN",
    "AnthropicProvider",
    "ChatProvider",
    "ChatRequest",
    "Completed",
    "DemoProvider",
    "GeminiProvider",
    "OpenAICompatProvider",
    "ProviderError",
    "ProviderOptions",
    "ProviderRegistry",
    "ResponsesProvider",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "Usage",
    "build_registry",
    "resolve_provider",
]
