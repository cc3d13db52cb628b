"""`ggd --acp` with an anthropic-kind model: the fix-the-bug task from an editor (the ACP SDK's
client), permissions answered one by one (one rejected), thinking shown apart, and a cancel."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    RequestPermissionResponse,
    TextContentBlock,
)

from tests.fakes.fake_anthropic import FakeAnthropic

from .acp_child import acp_child
from .daemon import daemon_env
from .fix_the_bug import APPROVALS, FIX_THE_BUG, FIXED, make_project


class Editor:
    """Answers permissions in order (allow_once / reject_once) and records updates."""

    def __init__(self, answers: list[bool]) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []
        self.updates: list[Any] = []
        self.chunk = asyncio.Event()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append(str(tool_call.kind))
        option = "allow_once" if self.answers.pop(0) else "reject_once"
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        if update.session_update == "agent_message_chunk":
            self.chunk.set()

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> None:
        Path(path).write_text(content, encoding="utf-8")

    def text(self, kind: str) -> str:
        return "".join(u.content.text for u in self.updates if u.session_update == kind)


async def test_an_editor_fixes_the_bug_through_the_anthropic_kind(
    gg_home: Path, workspace: Path
) -> None:
    make_project(workspace)
    hang = {"text": "Thinking it over", "hang": True}
    with FakeAnthropic([*FIX_THE_BUG, hang]) as fa:
        gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
        claude = {
            "kind": "anthropic",
            "baseUrl": fa.base_url,
            "apiKey": "sk-ant-test",
            "extraBody": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
        }
        config = {"model": "claude:claude-fake", "providers": {"claude": claude}}
        (gg_home / "config.json").write_text(json.dumps(config))
        editor = Editor([allow for _, allow in APPROVALS])
        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=False, write_text_file=True)
        )
        async with acp_child(daemon_env(gg_home), workspace, editor, caps) as (conn, _):
            new = await conn.new_session(cwd=str(workspace))
            prompt = [TextContentBlock(type="text", text="the stats test fails: fix the bug")]
            res = await asyncio.wait_for(conn.prompt(session_id=new.session_id, prompt=prompt), 90)
            assert res.stop_reason == "end_turn"
            assert editor.answers == [] and len(editor.asked) == len(APPROVALS)
            assert (workspace / "src" / "stats.py").read_text() == FIXED
            assert "Fixed: mean divides" in editor.text("agent_message_chunk")
            assert "Find the code first." in editor.text("agent_thought_chunk")
            assert "Find the code" not in editor.text("agent_message_chunk")
            # A cancel while the answer streams ends the prompt "cancelled".
            editor.chunk.clear()
            again = [TextContentBlock(type="text", text="anything else?")]
            pending = asyncio.create_task(conn.prompt(session_id=new.session_id, prompt=again))
            await asyncio.wait_for(editor.chunk.wait(), 60)
            await conn.cancel(session_id=new.session_id)
            assert (await asyncio.wait_for(pending, 60)).stop_reason == "cancelled"
        assert fa.rejections == [] and fa.mismatches == [], (fa.rejections, fa.mismatches)
        assert len(fa.requests) == len(FIX_THE_BUG) + 1
