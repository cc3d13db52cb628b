"""OpenAI chat format -> Anthropic Messages parts, and where the cache breakpoints go."""

from __future__ import annotations

from typing import Any

from ggd.providers.anthropic_convert import (
    add_cache_breakpoints,
    convert_messages,
    thinking_allowed,
)
from tests.fakes.anthropic_script import validate

CC = {"type": "ephemeral"}


def _call(cid: str, name: str = "read", args: str = '{"path": "a"}') -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def test_system_tool_results_and_roles_merge_as_the_api_wants() -> None:
    system, messages = convert_messages(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "look at these"},
            {"role": "user", "content": [{"type": "text", "text": "and this"}]},
            {"role": "assistant", "content": "", "tool_calls": [_call("c.1"), _call("c2")]},
            {"role": "tool", "tool_call_id": "c.1", "content": "one"},
            {"role": "tool", "tool_call_id": "c2", "content": ""},
            {"role": "user", "content": "steer: be quick"},
            {"role": "assistant", "content": "done"},
        ]
    )
    assert system == [{"type": "text", "text": "be brief"}]
    assert messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look at these"},
                {"type": "text", "text": "and this"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "c_1", "name": "read", "input": {"path": "a"}},
                {"type": "tool_use", "id": "c2", "name": "read", "input": {"path": "a"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "c_1",
                    "content": [{"type": "text", "text": "one"}],
                },
                {"type": "tool_result", "tool_use_id": "c2"},
                {"type": "text", "text": "steer: be quick"},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]


def test_images_become_image_blocks_and_odd_histories_stay_valid() -> None:
    png = "data:image/png;base64,iVBORw0KGgo="
    _, messages = convert_messages(
        [
            {"role": "assistant", "content": "summary of earlier work"},
            {"role": "assistant", "content": ""},  # a canceled answer: nothing to send back
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": png}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}},
                    {"type": "image_url", "image_url": {"url": "file:///etc/passwd"}},
                ],
            },
        ]
    )
    assert messages[0] == {
        "role": "user",
        "content": [{"type": "text", "text": "(continuing the conversation)"}],
    }
    assert messages[1]["role"] == "assistant" and len(messages) == 3
    assert messages[2]["content"][1:] == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        },
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.jpg"}},
    ]


def test_replayed_thinking_leads_its_turn_and_only_anthropic_replay_counts() -> None:
    thinking = {"type": "thinking", "thinking": "t", "signature": "s"}
    turn = {
        "role": "assistant",
        "content": "x",
        "gg_replay": {"kind": "anthropic", "thinking": [thinking]},
    }
    other = {
        "role": "assistant",
        "content": "y",
        "gg_replay": {"kind": "openai-responses", "items": []},
    }
    _, messages = convert_messages(
        [{"role": "user", "content": "q"}, turn, {"role": "user", "content": "r"}, other]
    )
    assert messages[1]["content"] == [thinking, {"type": "text", "text": "x"}]
    assert messages[1]["content"][0] is not thinking  # the stored replay is never mutated
    assert messages[3]["content"] == [{"type": "text", "text": "y"}]


def test_thinking_is_allowed_unless_a_tool_loop_began_without_it() -> None:
    _, plain = convert_messages(
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [_call("c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ]
    )
    assert not thinking_allowed(plain)
    assert thinking_allowed(plain[:1])
    plain[1]["content"].insert(0, {"type": "redacted_thinking", "data": "zz"})
    assert thinking_allowed(plain)


def _loop(steps: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
    ]
    for i in range(steps):
        msgs.append({"role": "assistant", "content": f"step {i}", "tool_calls": [_call(f"c{i}")]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i}"})
    return msgs


def test_breakpoints_mark_tools_system_and_the_last_two_turns_never_more_than_four() -> None:
    for steps in range(4):
        system, messages = convert_messages(_loop(steps))
        tools = [{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}}]
        used = add_cache_breakpoints(tools, system, messages)
        marked = [b for m in messages for b in m["content"] if "cache_control" in b]
        assert used == 2 + len(marked) <= 4
        assert "cache_control" not in tools[0] and tools[1]["cache_control"] == CC
        assert system[-1]["cache_control"] == CC
        assert messages[-1]["content"][-1]["cache_control"] == CC
        if steps:  # the end of the previous request is marked too, so it is read back
            assert messages[-3]["content"][-1]["cache_control"] == CC and len(marked) == 2
        body = {
            "model": "m",
            "max_tokens": 10,
            "tools": tools,
            "system": system,
            "messages": messages,
        }
        assert validate(body) is None


def test_a_thinking_block_is_never_a_breakpoint() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "t"}],
        },
    ]
    add_cache_breakpoints([], [], messages)
    assert messages[1]["content"][0]["cache_control"] == CC
    assert "cache_control" not in messages[1]["content"][1]


def test_a_tool_result_with_an_image_carries_an_image_block() -> None:
    shot = {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ"}}
    _, messages = convert_messages(
        [
            {"role": "user", "content": "look"},
            {"role": "assistant", "content": "", "tool_calls": [_call("c1", "read")]},
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [{"type": "text", "text": "a.jpg"}, shot],
            },
        ]
    )
    (result,) = messages[2]["content"]
    assert result["content"] == [
        {"type": "text", "text": "a.jpg"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"},
        },
    ]


def test_a_later_system_message_stays_in_place_so_the_cached_start_does_not_change() -> None:
    system, messages = convert_messages(
        [
            {"role": "system", "content": "rules"},
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"},
            {"role": "system", "content": "reminder: tests first"},
            {"role": "user", "content": "next"},
        ]
    )
    assert system == [{"type": "text", "text": "rules"}]
    assert messages[-1] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "reminder: tests first"},
            {"type": "text", "text": "next"},
        ],
    }
