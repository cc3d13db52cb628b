"""`ggd --acp`: a subagent shows as its `task` tool call, updated with the child's progress."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp.schema import TextContentBlock

from tests.e2e.test_acp import RecordingClient, acp_agent

SCRIPT = [
    {
        "when": {"firstUser": "PARENT"},
        "toolCalls": [
            {
                "id": "t_g",
                "name": "task",
                "arguments": {
                    "agent": "general",
                    "prompt": "CHILD: write out.txt",
                    "description": "write it",
                },
            }
        ],
    },
    {
        "when": {"firstUser": "CHILD"},
        "toolCalls": [{"name": "write", "arguments": {"path": "out.txt", "content": "x\n"}}],
    },
    {"when": {"firstUser": "CHILD"}, "text": "child wrote it"},
    {"when": {"firstUser": "PARENT"}, "text": "parent done"},
]


async def test_the_child_is_the_task_tool_call_with_updates(fake_daemon, workspace: Path) -> None:
    d, _ = fake_daemon(SCRIPT)
    client = RecordingClient("allow_once")
    async with acp_agent(d.env, workspace, client, fs=False) as conn:
        new = await conn.new_session(cwd=str(workspace))
        res = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id,
                prompt=[TextContentBlock(type="text", text="PARENT: delegate")],
            ),
            90,
        )
    assert res.stop_reason == "end_turn"
    assert (workspace / "out.txt").read_text() == "x\n"
    # The child's write asked the editor, named as the child agent's.
    assert len(client.permissions) == 1
    call, _options = client.permissions[0]
    assert call.title == "[general] write out.txt (create)" and call.kind == "edit"
    starts = [u for u in client.updates if u.session_update == "tool_call"]
    assert [(u.tool_call_id, u.title) for u in starts] == [("t_g", "task general: write it")]
    updates = [u for u in client.updates if u.session_update == "tool_call_update"]
    assert all(u.tool_call_id == "t_g" for u in updates)
    lines = [u.content[0].content.text for u in updates if u.content]
    assert lines[0] == "general started"
    assert "general · write out.txt" in lines
    assert any(ln.startswith("general completed (2 turns, 1 tools)") for ln in lines)
    assert updates[0].title == "general: write it"
    assert updates[-1].status == "completed" and lines[-1] == "child wrote it"
