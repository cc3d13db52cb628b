"""gg run events and messages as ACP session/update payloads."""

from __future__ import annotations

from pathlib import Path

from ggd.adapters.acp import mapping


def test_tool_kinds_cover_the_builtin_tools() -> None:
    assert [mapping.tool_kind(n) for n in ("read", "grep", "edit", "write", "bash")] == [
        "read",
        "search",
        "edit",
        "edit",
        "execute",
    ]
    assert mapping.tool_kind("mcp_time_now") == "other"
    assert mapping.tool_kind("browser_open") == "fetch"


def test_edit_diff_is_computed_from_the_file_on_disk(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    args = {"path": "a.py", "edits": [{"oldText": "y = 2", "newText": "y = 3"}]}
    call = mapping.tool_call(tmp_path, "c1", "edit", "edit a.py", args, "pending")
    assert call["kind"] == "edit" and call["locations"] == [{"path": str(tmp_path / "a.py")}]
    assert call["content"] == [
        {
            "type": "diff",
            "path": str(tmp_path / "a.py"),
            "oldText": "x = 1\ny = 2\n",
            "newText": "x = 1\ny = 3\n",
        }
    ]


def test_a_new_file_has_no_old_text(tmp_path: Path) -> None:
    diff = mapping.proposed_diff(tmp_path, "write", {"path": "n.md", "content": "# N\n"})
    assert diff == {
        "type": "diff",
        "path": str(tmp_path / "n.md"),
        "oldText": None,
        "newText": "# N\n",
    }
    assert mapping.proposed_diff(tmp_path, "read", {"path": "n.md"}) is None


def test_events_map_to_updates(tmp_path: Path) -> None:
    assert mapping.event_update(tmp_path, {"type": "text_delta", "text": "hi"}) == {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "hi"},
    }
    thought = mapping.event_update(tmp_path, {"type": "thinking_delta", "text": "hm"})
    assert thought is not None and thought["sessionUpdate"] == "agent_thought_chunk"
    done = mapping.event_update(
        tmp_path,
        {"type": "tool_call_finish", "toolCallId": "c", "output": "boom", "isError": True},
    )
    assert done is not None and done["status"] == "failed"
    usage = mapping.event_update(
        tmp_path, {"type": "usage", "totalTokens": 9, "contextTokens": 7, "contextWindow": 100}
    )
    assert usage == {"sessionUpdate": "usage_update", "used": 7, "size": 100}
    priced = mapping.event_update(
        tmp_path,
        {
            "type": "usage",
            "contextTokens": 7,
            "contextWindow": 100,
            "costUsd": 0.001,
            "session": {"costUsd": 0.0125, "totalTokens": 90},
        },
    )
    assert priced is not None and priced["cost"] == {"amount": 0.0125, "currency": "USD"}
    assert mapping.event_update(tmp_path, {"type": "compaction", "summary": "s"}) is None


def test_stop_reasons() -> None:
    assert mapping.stop_reason({"type": "run_completed"}) == "end_turn"
    assert mapping.stop_reason({"type": "run_canceled"}) == "cancelled"
    assert (
        mapping.stop_reason({"type": "run_failed", "errorCode": "max_turns"}) == "max_turn_requests"
    )
    assert mapping.stop_reason({"type": "run_failed", "errorCode": "provider_error"}) is None


def test_history_replays_turns_and_tool_calls(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "read it"},
        {
            "role": "assistant",
            "content": "ok",
            "toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "a"}}],
        },
        {"role": "tool", "toolCallId": "c1", "content": "text", "isError": False},
        {"role": "assistant", "content": "done"},
    ]
    kinds = [u["sessionUpdate"] for u in mapping.history(tmp_path, messages)]
    assert kinds == [
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
    ]


def test_prompt_blocks_become_one_prompt() -> None:
    text = mapping.prompt_text(
        [
            {"type": "text", "text": "explain"},
            {"type": "resource_link", "uri": "file:///p/a.py", "name": "a.py"},
            {"type": "resource", "resource": {"uri": "file:///p/b.py", "text": "b = 1"}},
            {"type": "image", "data": "...", "mimeType": "image/png"},
        ]
    )
    assert text == 'explain\n\n@file:///p/a.py\n\n<context uri="file:///p/b.py">\nb = 1\n</context>'


def test_acp_mcp_servers_become_gg_session_servers() -> None:
    import pytest

    from ggd.adapters.acp.agent import mcp_servers
    from ggd.adapters.acp.wire import AcpError

    params = {
        "mcpServers": [
            {
                "name": "my time",
                "command": "/usr/bin/t",
                "args": ["-x"],
                "env": [{"name": "TZ", "value": "UTC"}],
            },
            {
                "type": "http",
                "name": "docs",
                "url": "https://docs.example/mcp",
                "headers": [{"name": "Authorization", "value": "Bearer t"}],
            },
        ]
    }
    assert mcp_servers(params) == [
        {"name": "my-time", "command": "/usr/bin/t", "args": ["-x"], "env": {"TZ": "UTC"}},
        {
            "name": "docs",
            "url": "https://docs.example/mcp",
            "headers": {"Authorization": "Bearer t"},
        },
    ]
    assert mcp_servers({}) == []
    with pytest.raises(AcpError):
        mcp_servers({"mcpServers": [{"name": "x", "command": "c", "env": {"A": "1"}}]})
