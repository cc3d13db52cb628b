"""Protocol Message <-> OpenAI chat conversion and tool-call repair."""

from __future__ import annotations

import json
from typing import Any

from ggd.agent import INTERRUPTED, from_openai, repair, to_openai, to_openai_request
from ggd.agent.messages import assistant_message, trailing_dangling
from ggd.providers.types import ToolCall

ASSISTANT: dict[str, Any] = {
    "role": "assistant",
    "content": "",
    "toolCalls": [
        {"id": "c1", "name": "read", "arguments": {"path": "a"}},
        {"id": "c2", "name": "grep", "arguments": {"pattern": "x"}},
    ],
    "stopReason": "tool_use",
    "timestamp": 1,
}


def tool(cid: str, content: str = "r") -> dict[str, Any]:
    return {"role": "tool", "content": content, "toolCallId": cid, "toolName": "t", "timestamp": 2}


def test_assistant_tool_calls_use_json_string_arguments() -> None:
    out = to_openai(ASSISTANT)
    assert out["content"] is None
    assert out["tool_calls"][1] == {
        "id": "c2",
        "type": "function",
        "function": {"name": "grep", "arguments": json.dumps({"pattern": "x"})},
    }
    assert from_openai(out)["toolCalls"] == ASSISTANT["toolCalls"]


def test_tool_and_user_messages() -> None:
    assert to_openai(tool("c1", "out")) == {"role": "tool", "tool_call_id": "c1", "content": "out"}
    assert to_openai({"role": "user", "content": "hi", "timestamp": 1}) == {
        "role": "user",
        "content": "hi",
    }
    assert from_openai({"role": "tool", "tool_call_id": "c1", "content": "x"})["toolCallId"] == "c1"


def test_assistant_message_builder_records_calls_and_error() -> None:
    msg = assistant_message("t", [ToolCall("i", "read", {"p": 1})], "tool_use")
    assert msg["toolCalls"] == [{"id": "i", "name": "read", "arguments": {"p": 1}}]
    err = assistant_message("part", stop_reason="error", error="boom")
    assert (err["stopReason"], err["error"], "toolCalls" in err) == ("error", "boom", False)


def test_repair_inserts_missing_results_right_after_the_call_in_call_order() -> None:
    msgs = [
        {"role": "user", "content": "u"},
        ASSISTANT,
        tool("c2", "second"),
        {"role": "user", "content": "next"},
    ]
    out = repair(msgs)
    assert [m.get("toolCallId") for m in out[2:4]] == ["c1", "c2"]
    assert out[2]["content"] == INTERRUPTED and out[2]["isError"] is True
    assert out[3]["content"] == "second"
    assert out[4]["content"] == "next"


def test_repair_drops_orphan_tool_results() -> None:
    msgs = [tool("zz"), {"role": "user", "content": "u"}, tool("c1")]
    assert repair(msgs) == [{"role": "user", "content": "u"}]


def test_trailing_dangling_only_looks_at_the_last_assistant_message() -> None:
    assert [c["id"] for c in trailing_dangling([ASSISTANT, tool("c1")])] == ["c2"]
    assert trailing_dangling([ASSISTANT, tool("c1"), tool("c2")]) == []
    assert trailing_dangling([ASSISTANT, {"role": "user", "content": "x"}]) == []
    assert trailing_dangling([]) == []


def test_request_skips_empty_assistant_messages() -> None:
    msgs = [
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "", "stopReason": "canceled"},
        {"role": "user", "content": "again"},
    ]
    out = to_openai_request("sys", msgs)
    assert [m["role"] for m in out] == ["system", "user", "user"]


def test_reasoning_and_replay_are_kept_but_never_sent_as_answer_text() -> None:
    replay = {"kind": "anthropic", "blocks": [{"type": "thinking", "signature": "s"}]}
    msg = assistant_message("42", thinking="let me think", replay=replay)
    assert msg["thinking"] == "let me think" and msg["replay"] == replay
    out = to_openai(msg)
    # The reasoning is not answer text; the replay rides along for the kind that wrote it.
    assert out["content"] == "42" and "thinking" not in out
    assert out["gg_replay"] == replay
    assert "gg_replay" not in to_openai(assistant_message("plain"))


IMG = {"id": "img_" + "a" * 64, "mimeType": "image/png", "width": 4, "height": 3, "size": 70}
IMG2 = {"id": "img_" + "b" * 64, "mimeType": "image/png", "width": 4, "height": 3, "size": 70}


def urls(image_id: str) -> str | None:
    return None if image_id == IMG2["id"] else f"data:image/png;base64,{image_id[-4:]}"


def test_a_user_message_with_images_becomes_content_parts() -> None:
    msg = {"role": "user", "content": "look", "images": [IMG], "timestamp": 1}
    assert to_openai(msg, urls) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,aaaa"}},
        ],
    }
    # A model without images, or a file that is gone: a note in its place, never a silent drop;
    # with no image left the content is one string (chat templates of text models expect that).
    no_model = to_openai(msg)["content"]
    assert no_model == "look\n\n[image img_aaaaaaaaaaaa left out: this model takes no images]"
    gone = to_openai({**msg, "images": [IMG2, IMG]}, urls)["content"]
    assert "no longer stored" in gone[1]["text"] and gone[2]["type"] == "image_url"


def test_images_tool_results_returned_follow_the_run_of_tool_messages() -> None:
    read = {**tool("c1", "[image a.png: PNG 4x3; it follows as an image]"), "images": [IMG]}
    out = to_openai_request(
        "sys", [{"role": "user", "content": "q", "timestamp": 0}, ASSISTANT, read, tool("c2")], urls
    )
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert out[3] == {"role": "tool", "tool_call_id": "c1", "content": read["content"]}
    assert out[5]["content"] == [
        {"type": "text", "text": "The image returned by t (call c1):"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,aaaa"}},
    ]
    # Before the next assistant message, not after it: the model reads it with the results.
    answer = {"role": "assistant", "content": "a red box", "timestamp": 3}
    again = to_openai_request("", [ASSISTANT, read, tool("c2"), answer], urls)
    assert [m["role"] for m in again] == ["assistant", "tool", "tool", "user", "assistant"]
