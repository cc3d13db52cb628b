"""Session titles from the model: once a session's first answer is in, a short title replaces
the first prompt as its name (`titleModel` in config; docs/agent.md "Session titles").

The first prompt names a session at once (ggd.app.naming); this renames it once, in the
background, with one small request (no tools, at most 64 tokens) to a model that costs little:
by default the run's own model, and only when its provider is a hosted API (OpenAI, Anthropic,
Google), where such a request costs a fraction of a cent. A local server or a gateway gets no
extra request unless `titleModel` names a model; `"titleModel": false` turns titles off. A name
the user gave meanwhile is never replaced, and a failure keeps the first prompt's name. The
request is paid for like any other: its usage joins the session's (a `usage` entry with
`purpose: "title"`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import NamedTuple
from urllib.parse import urlsplit

from ggd.providers import ProviderRegistry
from ggd.providers.types import ChatRequest, Completed, ProviderError, TextDelta, Usage

__all__ = ["HOSTED_HOSTS", "TitleReply", "ask_title", "clean_title", "title_model"]

log = logging.getLogger(__name__)

# Hosts whose requests are billed per token at a price where a title costs ~$0.0001.
HOSTED_HOSTS = frozenset(
    {"api.openai.com", "api.anthropic.com", "generativelanguage.googleapis.com"}
)
INSTRUCTION = (
    "You name conversations. Reply with a title of at most six words for the conversation "
    "below: the task or question, in the user's language, no quotes, no final period."
)
MAX_CHARS = 60
TIMEOUT_S = 30.0


def title_model(setting: str | bool | None, models: ProviderRegistry, run_model: str) -> str | None:
    """The model to ask for a title, or None: `titleModel` when it names one; by default the
    run's model when its provider is a hosted API; never when the setting is false."""
    if setting is False:
        return None
    if isinstance(setting, str) and setting.strip():
        return setting.strip()
    provider, _ = models.get(run_model)
    host = urlsplit(str(getattr(provider, "base_url", "") or "")).hostname or ""
    return run_model if host in HOSTED_HOSTS and not provider.is_demo else None


def clean_title(text: str) -> str | None:
    """The title in a model's reply: its first non-empty line without quotes, labels or a final
    period, cut to whole words; None when nothing usable is left."""
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    line = re.sub(r"^(?:title|titre|titel)\s*:\s*", "", line, flags=re.IGNORECASE)
    line = line.strip().strip("\"'`*#“”‘’").strip().rstrip(".").strip()
    if len(line) < 2:
        return None
    if len(line) > MAX_CHARS:
        cut = line[: MAX_CHARS - 1]
        space = cut.rfind(" ")
        line = (cut[:space] if space > MAX_CHARS // 2 else cut).rstrip(" ,;:-") + "…"
    return line


class TitleReply(NamedTuple):
    """What a title request gave: the title (None: keep the first prompt's name), the usage
    the server reported, and whether the model answered (an answered request was paid for)."""

    title: str | None
    usage: Usage | None
    answered: bool


async def ask_title(
    models: ProviderRegistry, model_ref: str, prompt: str, answer: str
) -> TitleReply:
    """One title request; no title on any failure (logged), so the first prompt's name stays."""
    provider, bare = models.get(model_ref)
    conversation = f"User: {prompt[:2000]}\n\nAssistant: {answer[:1000]}"
    request = ChatRequest(
        model=bare,
        messages=[
            {"role": "system", "content": INSTRUCTION},
            {"role": "user", "content": conversation},
        ],
        max_tokens=64,
    )
    parts: list[str] = []
    used: list[Usage] = []

    async def collect() -> None:
        async for ev in provider.stream(request):
            if isinstance(ev, TextDelta):
                parts.append(ev.text)
            elif isinstance(ev, Usage):
                used[:] = [ev]
            elif isinstance(ev, Completed):
                if ev.text:
                    parts[:] = [ev.text]
                if ev.usage is not None:
                    used[:] = [ev.usage]

    try:
        await asyncio.wait_for(collect(), TIMEOUT_S)
    except ProviderError as exc:
        usage = used[-1] if used else None
        if exc.partial_text:  # a title longer than asked for still names the session
            return TitleReply(clean_title(exc.partial_text), usage, True)
        log.info("no model title: %s", exc.message)
        return TitleReply(None, usage, False)
    except TimeoutError:
        log.info("no model title: no answer within %g s", TIMEOUT_S)
        return TitleReply(None, used[-1] if used else None, False)
    return TitleReply(clean_title("".join(parts)), used[-1] if used else None, True)
