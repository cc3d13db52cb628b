"""Script engine: turns one scripted model step into an OpenAI-compatible HTTP reply.

A script is data: a list of step dicts, one per chat-completions request. The fake test server
(tests/fakes/fake_openai.py) and the offline demo model both serve replies planned here, so the
client's real SSE parsing path is what every test and the demo exercise.

Step keys (all optional): text, thinking, thinkingField ("reasoning_content" | "reasoning"),
toolCalls [{id?, name, arguments | rawArguments}], usage ({prompt, completion, cached?,
reasoning?} | true), chunkSize,
status, headers, errorBody, torn (true | frames to send), finishReason, delayMs, paced (delayMs
is a schedule: frame i is due i*delayMs after the first, frames already due go out together, so
a rate finer than the server's sleep granularity holds on average), hang, expect {lastUser,
lastTool}, repeat.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Reply",
    "ScriptError",
    "check_expect",
    "expand_script",
    "load_script",
    "plan_reply",
    "script_tool_calls",
    "split_args",
    "split_text",
]

_STEP_KEYS = frozenset(
    {
        "text",
        "thinking",
        "thinkingField",
        "toolCalls",
        "usage",
        "chunkSize",
        "status",
        "headers",
        "errorBody",
        "torn",
        "finishReason",
        "delayMs",
        "paced",
        "hang",
        "expect",
        "repeat",
        "comment",
    }
)


class ScriptError(ValueError):
    """A script is malformed (unknown key, wrong type)."""


@dataclass
class Reply:
    """One planned HTTP reply: either a whole body or a list of SSE frames."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    frames: list[bytes] = field(default_factory=list)
    delay_s: float = 0.0
    paced: bool = False  # delay_s is the schedule's period, not a sleep between frames
    torn_after: int | None = None  # frames sent before the connection is dropped
    hang: bool = False  # after the frames, never finish
    mismatch: str | None = None  # an `expect` failure, for the test to see

    @property
    def streaming(self) -> bool:
        """True when the reply is an SSE stream."""
        return self.body is None


def load_script(source: list[dict[str, Any]] | dict[str, Any] | str | Path) -> list[dict[str, Any]]:
    """Load a script from a list, a {"steps": [...]} dict or a JSON file path; expand repeats."""
    data: Any = source
    if isinstance(source, str | Path):
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = data.get("steps")
    if not isinstance(data, list):
        raise ScriptError("a script is a list of steps or an object with a 'steps' list")
    return expand_script(data)


def expand_script(steps: list[Any]) -> list[dict[str, Any]]:
    """Validate step keys and unroll `repeat`."""
    out: list[dict[str, Any]] = []
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            raise ScriptError(f"step {i} is not an object")
        unknown = sorted(set(step) - _STEP_KEYS)
        if unknown:
            raise ScriptError(f"step {i} has unknown key {unknown[0]!r}")
        repeat = int(step.get("repeat", 1))
        clean = {k: v for k, v in step.items() if k != "repeat"}
        out.extend(dict(clean) for _ in range(max(repeat, 0)))
    return out


def plan_reply(step: dict[str, Any], request: dict[str, Any], *, seq: int = 0) -> Reply:
    """Plan the reply to `request` (a chat-completions body) for one script step."""
    mismatch = _check_expect(step.get("expect"), request)
    if mismatch is not None:
        return _error_reply(500, {"error": {"message": mismatch, "type": "fake_expect_failed"}}, {})
    status = int(step.get("status", 200))
    if status != 200:
        body = step.get("errorBody") or {"error": {"message": f"scripted HTTP {status}"}}
        return _error_reply(status, body, dict(step.get("headers") or {}))
    model = str(request.get("model") or "fake-model")
    cid = f"chatcmpl-fake-{seq}"
    if not request.get("stream"):
        return _json_reply(
            _completion(step, request, model, cid, seq), dict(step.get("headers") or {})
        )
    return _stream_reply(step, request, model, cid, seq)


def _check_expect(expect: Any, request: dict[str, Any]) -> str | None:
    if not expect:
        return None
    messages = request.get("messages") or []
    for key, role in (("lastUser", "user"), ("lastTool", "tool")):
        want = expect.get(key)
        if want is None:
            continue
        got = next((_content_text(m) for m in reversed(messages) if m.get("role") == role), None)
        if got is None or str(want) not in got:
            shown = "nothing" if got is None else repr(got[:200])
            return f"script expect failed: {key} should contain {want!r}, got {shown}"
    return None


def _content_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _error_reply(status: int, body: Any, headers: dict[str, str]) -> Reply:
    raw = body if isinstance(body, str) else json.dumps(body)
    reply = _json_reply(None, headers, status=status, raw=raw.encode())
    if status == 500 and isinstance(body, dict):
        message = str(body.get("error", {}).get("message", ""))
        if message.startswith("script expect failed"):
            reply.mismatch = message
    return reply


def _json_reply(
    obj: Any, headers: dict[str, str], *, status: int = 200, raw: bytes | None = None
) -> Reply:
    body = raw if raw is not None else json.dumps(obj).encode()
    hdrs = {"Content-Type": "application/json", **headers}
    return Reply(status=status, headers=hdrs, body=body)


def _split(text: str, size: int | None) -> list[str]:
    if not text:
        return []
    if not size or size <= 0:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _split_args(args: str, size: int | None) -> list[str]:
    # Arguments always arrive in at least two fragments so clients must assemble them.
    parts = _split(args, size)
    if len(parts) >= 2:
        return parts
    if len(args) >= 2:
        half = len(args) // 2
        return [args[:half], args[half:]]
    return [args, ""]


def _tool_calls(step: dict[str, Any], seq: int) -> list[dict[str, str]]:
    calls = []
    for i, tc in enumerate(step.get("toolCalls") or []):
        if "rawArguments" in tc:
            args = str(tc["rawArguments"])
        else:
            args = json.dumps(tc.get("arguments", {}))
        call_id = tc["id"] if "id" in tc else f"call_{seq}_{i}"
        calls.append({"id": str(call_id), "name": str(tc.get("name", "")), "arguments": args})
    return calls


def _usage(step: dict[str, Any], request: dict[str, Any]) -> dict[str, Any] | None:
    usage = step.get("usage")
    if not usage:
        return None
    if usage is True:
        prompt = max(1, len(json.dumps(request.get("messages") or [])) // 4)
        chars = len(step.get("text") or "") + sum(len(c["arguments"]) for c in _tool_calls(step, 0))
        completion = max(1, chars // 4)
    else:
        prompt = int(usage.get("prompt", 0))
        completion = int(usage.get("completion", 0))
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    # OpenAI's detail objects: the cached part of the prompt, the reasoning part of the output.
    if isinstance(usage, dict) and "cached" in usage:
        out["prompt_tokens_details"] = {"cached_tokens": int(usage["cached"])}
    if isinstance(usage, dict) and "reasoning" in usage:
        out["completion_tokens_details"] = {"reasoning_tokens": int(usage["reasoning"])}
    return out


def _finish_reason(step: dict[str, Any]) -> str:
    if "finishReason" in step:
        return str(step["finishReason"])
    return "tool_calls" if step.get("toolCalls") else "stop"


def _completion(
    step: dict[str, Any], request: dict[str, Any], model: str, cid: str, seq: int
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.get("text") or None}
    if step.get("thinking"):
        message[step.get("thinkingField", "reasoning_content")] = step["thinking"]
    calls = _tool_calls(step, seq)
    if calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in calls
        ]
    out: dict[str, Any] = {
        "id": cid,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(step)}],
    }
    usage = _usage(step, request)
    if usage:
        out["usage"] = usage
    return out


def _stream_reply(
    step: dict[str, Any], request: dict[str, Any], model: str, cid: str, seq: int
) -> Reply:
    created = int(time.time())

    def frame(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
        chunk: dict[str, Any] = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": []
            if delta is None
            else [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    size = step.get("chunkSize")
    content: list[bytes] = [frame({"role": "assistant", "content": ""})]
    field_name = step.get("thinkingField", "reasoning_content")
    content += [frame({field_name: part}) for part in _split(step.get("thinking") or "", size)]
    content += [frame({"content": part}) for part in _split(step.get("text") or "", size)]
    for index, call in enumerate(_tool_calls(step, seq)):
        fn = {"name": call["name"], "arguments": ""}
        head = {"index": index, "id": call["id"], "type": "function", "function": fn}
        content.append(frame({"tool_calls": [head]}))
        for part in _split_args(call["arguments"], size):
            content.append(
                frame({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            )
    delay = float(step.get("delayMs", 0)) / 1000.0
    headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    headers.update(step.get("headers") or {})
    if step.get("hang"):
        return Reply(headers=headers, frames=content, delay_s=delay, hang=True)
    torn = step.get("torn")
    if torn:
        # Drop after the role frame and about half of the content, never after the finish chunk.
        keep = (
            torn
            if isinstance(torn, int) and torn is not True
            else 1 + max(1, (len(content) - 1) // 2)
        )
        return Reply(
            headers=headers,
            frames=content[: min(keep, len(content))],
            delay_s=delay,
            torn_after=keep,
        )
    frames = [*content, frame({}, _finish_reason(step))]
    usage = _usage(step, request)
    if usage and (request.get("stream_options") or {}).get("include_usage"):
        frames.append(frame(None, usage=usage))
    frames.append(b"data: [DONE]\n\n")
    return Reply(headers=headers, frames=frames, delay_s=delay, paced=step.get("paced") is True)


# The step parts every wire kind's fake plans its own frames from (tests/fakes/fake_*.py).
check_expect = _check_expect
split_text = _split
split_args = _split_args
script_tool_calls = _tool_calls
