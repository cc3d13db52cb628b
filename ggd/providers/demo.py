"""The offline demo model: a clearly labelled script that shows tools and approvals.

It reacts to the conversation (tool-call turns since the last user message): list ".", read a file
the listing showed (or grep for TODO), write gg-demo.md (needs approval), then explain how to
configure a real model. A denied tool ends the script politely. Replies are planned by the shared
script engine and served through httpx.MockTransport, so they go through the real SSE parser.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx

from ggd.providers.openai_compat import OpenAICompatProvider, ProviderOptions
from ggd.providers.scripted import plan_reply

__all__ = ["DEMO_MODEL", "DemoProvider", "demo_step"]

DEMO_MODEL = "gg-demo"
LABEL = "[demo model] "
_CONFIGURE = (
    "To use a real model, set OPENAI_API_KEY (plus OPENAI_BASE_URL for any OpenAI-compatible "
    "server such as Ollama or LM Studio) and GG_MODEL, for example GG_MODEL=gpt-4.1-mini; or add a "
    'provider to GG_HOME/config.json (default ~/.gg/config.json): {"model": "openai:gpt-4.1-mini", '
    '"providers": {"openai": {"apiKeyEnv": "OPENAI_API_KEY"}}}. Then restart ggd.'
)
_README = re.compile(r"(?i)(?<![\w.-])(readme[\w.-]*)")


def _tool_names(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            names.add(str(fn["name"]))
    return names


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _since_last_user(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return messages[i + 1 :]
    return list(messages)


def pick_file(listing: str) -> str | None:
    """Choose a file from a directory listing: README* if present, else the first file."""
    match = _README.search(listing)
    if match:
        return match.group(1)
    for raw in listing.splitlines():
        line = raw.strip().lstrip("-*• ").strip()
        if not line or line.endswith(("/", ":")) or line.startswith(("[", "(", "error", "Error")):
            continue
        # Listings may add columns (size, type): keep the first one.
        name = re.split(r"\t| {2,}| \(", line)[0].strip()
        if name and not name.endswith("/") and name not in (".", ".."):
            return name
    return None


def demo_step(body: dict[str, Any]) -> dict[str, Any]:
    """The script step the demo model answers `body` (a chat-completions request) with."""
    turn = _since_last_user(list(body.get("messages") or []))
    step = sum(1 for m in turn if m.get("role") == "assistant" and m.get("tool_calls"))
    tools = [m for m in turn if m.get("role") == "tool"]
    available = _tool_names(body)
    if any("denied" in _text(m).lower() for m in tools):
        return _say(
            "Understood: that action was denied, so I left your files unchanged. "
            "Approvals work this way for every write or risky command. This was gg's demo. "
            + _CONFIGURE
        )
    if step == 0 and "list" in available:
        return _say(
            "Hi! No AI model is configured, so this is gg's built-in scripted demo. I will list "
            "your files, read one, and propose a small note so you can see tools and approvals.",
            {"name": "list", "arguments": {"path": "."}},
        )
    if step == 1:
        listing = _text(tools[-1]) if tools else ""
        path = pick_file(listing)
        if path and "read" in available:
            return _say(f"Let me read {path}.", {"name": "read", "arguments": {"path": path}})
        if "grep" in available:
            return _say(
                "I see no file to read, so let me search for TODO notes instead.",
                {"name": "grep", "arguments": {"pattern": "TODO"}},
            )
    if step == 2 and "write" in available:
        last = _text(tools[-1]) if tools else ""
        note = (
            "# gg demo\n\nThis note was written by gg's scripted demo model to show approvals.\n"
            f"The file it looked at had {len(last.splitlines())} lines of output.\n\n"
            "Configure a real model: set OPENAI_API_KEY and GG_MODEL, or edit GG_HOME/config.json.\n"
        )
        return _say(
            "Now I'll write gg-demo.md with a short note. Writes need your approval.",
            {"name": "write", "arguments": {"path": "gg-demo.md", "content": note}},
        )
    return _say(
        "That was the demo: I listed files, read one and proposed a write that you approved or "
        "denied. I am not a real model and cannot answer questions. " + _CONFIGURE
    )


def _say(text: str, call: dict[str, Any] | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"text": LABEL + text, "chunkSize": 24, "usage": True}
    if call is not None:
        step["toolCalls"] = [call]
    return step


class DemoProvider(OpenAICompatProvider):
    """Offline scripted demo model served in-process through httpx.MockTransport."""

    is_demo = True

    def __init__(self, *, delay_ms: int = 0, options: ProviderOptions | None = None) -> None:
        opts = options or ProviderOptions()
        opts.transport = httpx.MockTransport(self._handle)
        super().__init__(
            "http://demo.invalid/v1", None, name="demo", options=opts, default_model=DEMO_MODEL
        )
        self._delay_s = delay_ms / 1000.0
        self._seq = 0

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread() or b"{}")
        self._seq += 1
        reply = plan_reply(demo_step(body), body, seq=self._seq)
        if not reply.streaming:
            return httpx.Response(reply.status, headers=reply.headers, content=reply.body)
        return httpx.Response(200, headers=reply.headers, content=self._paced(reply.frames))

    async def _paced(self, frames: list[bytes]) -> AsyncIterator[bytes]:
        for i, frame in enumerate(frames):
            if i and self._delay_s:
                await asyncio.sleep(self._delay_s)  # typing speed for the UI, not synchronisation
            yield frame
