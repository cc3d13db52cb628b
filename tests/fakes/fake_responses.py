"""A scripted OpenAI Responses API server on 127.0.0.1 (POST /v1/responses, stream=true).

    with FakeResponses([{"thinking": "look first", "toolCalls": [{"name": "read", ...}]}]) as fr:
        provider = ResponsesProvider(fr.base_url, "k", name="fake")

The steps are fake_openai's (ggd/providers/scripted.py); each answer is the documented event
sequence: response.created, response.in_progress, then per output item output_item.added, its
deltas (reasoning_summary_text, output_text, function_call_arguments: split into `chunkSize`
pieces, arguments always in two or more), the matching .done events and output_item.done, and
response.completed with usage (input_tokens_details.cached_tokens from the emulated prefix
cache, tests/fakes/prefix_cache.py; output_tokens_details.reasoning_tokens). A step with
`thinking` yields a reasoning item whose `encrypted_content` only this fake issued; a later
request that sends back a reasoning item it did not issue is refused with HTTP 400, as the
real API refuses a forged one. finishReason "length" ends with response.incomplete
(max_output_tokens), "failed" with response.failed; `torn` drops the connection mid-stream.

`python -m tests.fakes.fake_responses --script FILE` serves like fake_openai's command line.
"""

from __future__ import annotations

import base64
import json
import sys
import time
from typing import Any

from ggd.providers.scripted import Reply, check_expect, script_tool_calls, split_args, split_text
from tests.fakes.fake_openai import FakeModel, _json, main
from tests.fakes.prefix_cache import cached_tokens, tokens

__all__ = ["FakeResponses", "as_chat", "input_items"]


def input_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The body's `input` as a list of items (the API also takes a plain string)."""
    items = body.get("input") or []
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def as_chat(body: dict[str, Any]) -> dict[str, Any]:
    """A Responses body's input as chat messages (for the steps' `expect`)."""
    messages = []
    for item in input_items(body):
        if item.get("type") == "function_call_output":
            messages.append({"role": "tool", "content": str(item.get("output", ""))})
        elif item.get("role") in ("user", "assistant"):
            content = item.get("content")
            if isinstance(content, list):
                content = "".join(str(p.get("text", "")) for p in content)
            messages.append({"role": item["role"], "content": content})
    return {"messages": messages}


class FakeResponses(FakeModel):
    """FakeModel speaking the Responses API's streaming events."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.issued: set[str] = set()

    def accepts(self, path: str) -> bool:
        return path == "/v1/responses"

    def plan(self, step: dict[str, Any], body: dict[str, Any], seq: int, path: str) -> Reply:
        forged = [
            i
            for i in input_items(body)
            if i.get("type") == "reasoning" and i.get("encrypted_content") not in self.issued
        ]
        if forged:
            msg = "reasoning item could not be verified: encrypted_content was not issued here"
            return _json(400, {"error": {"message": msg, "type": "invalid_request_error"}})
        if body.get("store") is not False:
            msg = "this fake keeps no state: send store: false"
            return _json(400, {"error": {"message": msg, "type": "invalid_request_error"}})
        mismatch = check_expect(step.get("expect"), as_chat(body))
        if mismatch is not None:
            reply = _json(500, {"error": {"message": mismatch, "type": "fake_expect_failed"}})
            reply.mismatch = mismatch
            return reply
        status = int(step.get("status", 200))
        if status != 200:
            err = step.get("errorBody") or {"error": {"message": f"scripted HTTP {status}"}}
            reply = _json(status, err)
            reply.headers.update(step.get("headers") or {})
            return reply
        with self._cond:
            raw, earlier = self.raw_requests[seq], self.raw_requests[:seq]
        return self._stream(step, body, seq, raw, earlier)

    def _stream(
        self, step: dict[str, Any], body: dict[str, Any], seq: int, raw: bytes, earlier: list[bytes]
    ) -> Reply:
        rid = f"resp_fake_{seq}"
        model = str(body.get("model") or "fake-model")
        frames: list[bytes] = []
        counter = iter(range(1_000_000))

        def event(kind: str, **fields: Any) -> None:
            data = {"type": kind, "sequence_number": next(counter), **fields}
            frames.append(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())

        def response(status: str, output: list[Any], **extra: Any) -> dict[str, Any]:
            return {
                "id": rid,
                "object": "response",
                "created_at": int(time.time()),
                "status": status,
                "model": model,
                "output": output,
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
                "store": False,
                **extra,
            }

        size = step.get("chunkSize")
        event("response.created", response=response("in_progress", []))
        event("response.in_progress", response=response("in_progress", []))
        output: list[dict[str, Any]] = []
        thinking = str(step.get("thinking") or "")
        if thinking:
            idx = len(output)
            secret = json.dumps({"seq": seq, "reasoning": thinking}).encode()
            item: dict[str, Any] = {"id": f"rs_{seq}", "type": "reasoning", "summary": []}
            event("response.output_item.added", output_index=idx, item=item)
            part = {"type": "summary_text", "text": ""}
            common = {"item_id": item["id"], "output_index": idx, "summary_index": 0}
            event("response.reasoning_summary_part.added", **common, part=part)
            for piece in split_text(thinking, size):
                event("response.reasoning_summary_text.delta", **common, delta=piece)
            event("response.reasoning_summary_text.done", **common, text=thinking)
            done_part = {"type": "summary_text", "text": thinking}
            event("response.reasoning_summary_part.done", **common, part=done_part)
            item = {
                **item,
                "summary": [done_part],
                "encrypted_content": "gAAAA" + base64.b64encode(secret).decode(),
            }
            with self._cond:
                self.issued.add(item["encrypted_content"])
            event("response.output_item.done", output_index=idx, item=item)
            output.append(item)
        text = str(step.get("text") or "")
        if text:
            idx = len(output)
            mid = f"msg_{seq}"
            msg: dict[str, Any] = {
                "id": mid,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }
            event("response.output_item.added", output_index=idx, item=msg)
            part = {"type": "output_text", "text": "", "annotations": []}
            common = {"item_id": mid, "output_index": idx, "content_index": 0}
            event("response.content_part.added", **common, part=part)
            for piece in split_text(text, size):
                event("response.output_text.delta", **common, delta=piece, logprobs=[])
            event("response.output_text.done", **common, text=text, logprobs=[])
            part = {"type": "output_text", "text": text, "annotations": []}
            event("response.content_part.done", **common, part=part)
            msg = {**msg, "status": "completed", "content": [part]}
            event("response.output_item.done", output_index=idx, item=msg)
            output.append(msg)
        for i, call in enumerate(script_tool_calls(step, seq)):
            idx = len(output)
            fc: dict[str, Any] = {
                "id": f"fc_{seq}_{i}",
                "type": "function_call",
                "status": "in_progress",
                "call_id": call["id"],
                "name": call["name"],
                "arguments": "",
            }
            event("response.output_item.added", output_index=idx, item=fc)
            for piece in split_args(call["arguments"], size):
                event(
                    "response.function_call_arguments.delta",
                    item_id=fc["id"],
                    output_index=idx,
                    delta=piece,
                )
            event(
                "response.function_call_arguments.done",
                item_id=fc["id"],
                output_index=idx,
                arguments=call["arguments"],
            )
            fc = {**fc, "status": "completed", "arguments": call["arguments"]}
            event("response.output_item.done", output_index=idx, item=fc)
            output.append(fc)
        usage = _usage(step, raw, earlier, text, thinking)
        finish = step.get("finishReason")
        delay = float(step.get("delayMs", 0)) / 1000.0
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        headers.update(step.get("headers") or {})
        if step.get("hang"):
            return Reply(headers=headers, frames=frames, delay_s=delay, hang=True)
        torn = step.get("torn")
        if torn:
            keep = torn if isinstance(torn, int) and torn is not True else max(3, len(frames) // 2)
            keep = min(keep, len(frames))
            return Reply(headers=headers, frames=frames[:keep], delay_s=delay, torn_after=keep)
        if finish == "length":
            details = {"reason": "max_output_tokens"}
            event(
                "response.incomplete",
                response=response("incomplete", output, usage=usage, incomplete_details=details),
            )
        elif finish == "failed":
            err = {"code": "server_error", "message": "The model failed to generate a response."}
            event("response.failed", response=response("failed", output, usage=None, error=err))
        else:
            event("response.completed", response=response("completed", output, usage=usage))
        return Reply(headers=headers, frames=frames, delay_s=delay, paced=step.get("paced") is True)


def _usage(
    step: dict[str, Any], raw: bytes, earlier: list[bytes], text: str, thinking: str
) -> dict[str, Any]:
    given = step.get("usage")
    if isinstance(given, dict):
        prompt, completion = int(given.get("prompt", 0)), int(given.get("completion", 0))
        cached, reasoning = int(given.get("cached", 0)), int(given.get("reasoning", 0))
    else:
        prompt, cached = tokens(raw), cached_tokens(raw, earlier)
        reasoning = len(thinking) // 4
        args = sum(len(c["arguments"]) for c in script_tool_calls(step, 0))
        completion = max(1, (len(text) + args) // 4) + reasoning
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": prompt + completion,
    }


if __name__ == "__main__":
    sys.exit(main(fake_class=FakeResponses))
