"""ACP: the `plan` session mode and the todo list as ACP `plan` session updates, on a real ggd."""

from __future__ import annotations

from pathlib import Path

from acp.schema import TextContentBlock

from tests.e2e.test_acp import RecordingClient, acp_agent

TODOS = [
    {"content": "read README.md", "status": "completed"},
    {"content": "edit README.md", "status": "pending"},
]
SCRIPT = [
    {
        "toolCalls": [
            {"name": "todo_write", "arguments": {"todos": TODOS}},
            {"name": "write", "arguments": {"path": "x.md", "content": "x\n"}},
        ]
    },
    {"text": "1. edit README.md"},
]


async def test_plan_mode_is_offered_refuses_writes_and_the_plan_reaches_the_editor(
    fake_daemon, workspace: Path
) -> None:
    d, _fm = fake_daemon(SCRIPT)
    client = RecordingClient("allow_once")
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        assert new.modes is not None
        assert "plan" in [m.id for m in new.modes.available_modes]
        await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
        res = await conn.prompt(
            session_id=new.session_id, prompt=[TextContentBlock(type="text", text="plan")]
        )
        sid = new.session_id
    assert res.stop_reason == "end_turn"
    assert client.permissions == []  # refused without asking
    assert not (workspace / "x.md").exists()
    plans = [u for u in client.updates if u.session_update == "plan"]
    assert len(plans) == 1
    assert [(e.content, e.status, e.priority) for e in plans[0].entries] == [
        ("read README.md", "completed", "medium"),
        ("edit README.md", "pending", "medium"),
    ]
    failed = [u for u in client.updates if getattr(u, "status", None) == "failed"]
    assert failed and "plan mode" in failed[0].raw_output["output"]
    # Loading the session later shows the current list as the editor's plan again.
    later = RecordingClient()
    async with acp_agent(d.env, workspace, later) as conn:
        await conn.load_session(cwd=str(workspace), session_id=sid)
    assert later.kinds()[-1] == "plan"
    assert [e.content for e in later.updates[-1].entries] == ["read README.md", "edit README.md"]
