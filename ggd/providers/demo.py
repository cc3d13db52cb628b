"""The offline demo model: a clearly labelled script that shows tools and approvals.

It reacts to the conversation (tool calls since the last user message): list ".", read a file the
listing showed, grep for TODO; in gg's sample project (examples/demo-project, what `make run`
puts in its default workspace) it then fixes the bug with an edit (approval, with a diff) and runs
the tests with bash. Its last reply says what it did, from the tool results alone. A denied
write or command ends the script politely. Replies are planned by the shared
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
from ggd.providers.types import Probe

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


_SAMPLE_MARK = "# gg demo project"
_BUGGY = "    return sum(values) / (len(values) - 1)\n"
_FIXED = "    return sum(values) / len(values)\n"
_TEST = "python3 test_stats.py"


class _Call:
    """A tool call of the current turn with the text its result gave the model."""

    def __init__(self, name: str, args: dict[str, Any], result: str) -> None:
        self.name, self.args, self.result = name, args, result

    @property
    def failed(self) -> bool:
        head = self.result.lstrip().lower()
        return head.startswith(("denied", "error", "canceled")) or "was denied" in head


def _calls(turn: list[dict[str, Any]]) -> list[_Call]:
    results = {str(m.get("tool_call_id")): _text(m) for m in turn if m.get("role") == "tool"}
    out: list[_Call] = []
    for m in turn:
        for tc in m.get("tool_calls") or [] if m.get("role") == "assistant" else []:
            fn = tc.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except ValueError:
                args = {}
            out.append(_Call(str(fn.get("name")), args, results.get(str(tc.get("id")), "")))
    return out


def _lines(text: str) -> int:
    return len([ln for ln in text.splitlines() if ln.strip()])


def _report(calls: list[_Call]) -> str:
    """What the demo really did this turn, from the results its tools gave."""
    done: list[str] = []
    for c in calls:
        what = {
            "list": lambda c: f"listed {c.args.get('path', '.')} ({_lines(c.result)} entries)",
            "read": lambda c: f"read {c.args.get('path')} ({_lines(c.result)} lines)",
            "grep": lambda c: (
                f"searched for {c.args.get('pattern')} "
                f"({_lines(c.result) if 'no match' not in c.result.lower() else 0} matching lines)"
            ),
            "edit": lambda c: f"edited {c.args.get('path')}",
            "bash": lambda c: f"ran `{c.args.get('command')}`",
        }.get(c.name, lambda c: f"used {c.name}")(c)
        if c.failed:
            what += " (denied)" if "denied" in c.result.lower() else " (it failed)"
        done.append(what)
    return "; ".join(done) if done else "nothing yet"


def demo_step(body: dict[str, Any]) -> dict[str, Any]:
    """The script step the demo model answers `body` (a chat-completions request) with.

    Every claim in its replies comes from the tool results of the turn, so it never says it
    read or changed something it did not.
    """
    calls = _calls(_since_last_user(list(body.get("messages") or [])))
    available = _tool_names(body)
    last = calls[-1] if calls else None
    if last is not None and last.failed and last.name in ("edit", "write", "bash"):
        return _say(
            f"Understood: that was not allowed, so I stopped there. What I did: {_report(calls)}. "
            "Approvals work this way for every write or risky command. This was gg's demo. "
            + _CONFIGURE
        )
    if last is None and "list" in available:
        return _say(
            "Hi! No AI model is configured, so this is gg's built-in scripted demo. I will look "
            "around your files with the same tools a real model uses.",
            {"name": "list", "arguments": {"path": "."}},
        )
    if last is not None and last.name == "list":
        path = pick_file(last.result)
        if path and "read" in available:
            return _say(f"Let me read {path}.", {"name": "read", "arguments": {"path": path}})
    if last is not None and last.name in ("list", "read") and "grep" in available:
        return _say(
            "Now let me search the files for TODO notes.",
            {"name": "grep", "arguments": {"pattern": "TODO"}},
        )
    sample = any(c.name == "read" and _SAMPLE_MARK in c.result for c in calls)
    if last is not None and last.name == "grep" and sample and "edit" in available:
        return _say(
            "The TODO in stats.py says mean() divides by one too few. I'll fix it; edits need "
            "your approval, and you see the diff first.",
            {
                "name": "edit",
                "arguments": {
                    "path": "stats.py",
                    "edits": [{"oldText": _BUGGY, "newText": _FIXED}],
                },
            },
        )
    if last is not None and last.name == "edit" and "bash" in available:
        return _say("Now let me run the tests.", {"name": "bash", "arguments": {"command": _TEST}})
    return _closing(calls, sample)


def _closing(calls: list[_Call], sample: bool) -> dict[str, Any]:
    """The demo's last reply: what it did, from its tools' results, and how to go further."""
    last = calls[-1] if calls else None
    ending = (
        "To see an edit with a diff and a command with approvals, try the demo project: "
        "`make run` in the gg checkout opens ~/gg-workspace with a small sample project. "
        if not sample
        else ""
    )
    outcome = ""
    if last is not None and last.name == "bash":
        printed = [ln for ln in last.result.strip().splitlines() if not ln.startswith("[exit code")]
        code = re.search(r"\[exit code: (-?\d+)\]", last.result)
        said = printed[-1][:200] if printed else "nothing"
        outcome = f" The tests printed {said!r}" + (
            f" (exit code {code.group(1)})." if code else "."
        )
    return _say(
        f"That was the demo. What I did: {_report(calls)}.{outcome} {ending}I am not a real "
        "model and cannot answer questions. " + _CONFIGURE
    )


def _say(text: str, call: dict[str, Any] | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"text": LABEL + text, "chunkSize": 24, "usage": True}
    if call is not None:
        step["toolCalls"] = [call]
    return step


class DemoProvider(OpenAICompatProvider):
    """Offline scripted demo model served in-process through httpx.MockTransport."""

    kind = "demo"
    is_demo = True

    async def probe(self) -> Probe:
        """In process: always there."""
        return Probe(True)

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
