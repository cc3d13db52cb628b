"""The openai-responses and gemini kinds end to end: a real ggd configured with each kind,
pointed at that API's honest fake, running the ten-step task with approvals (one denied),
a cancel mid-stream, and a one-shot `gg -p` from the real CLI."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeModel
from tests.fakes.fake_responses import FakeResponses

from .daemon import Daemon, daemon_env
from .runs_helpers import assert_sequence_ok, finish, new_session, start, types, until
from .test_runs import TEN_STEPS, _project

GG = str(Path(sys.executable).parent / "gg")
FAKES: dict[str, type[FakeModel]] = {"openai-responses": FakeResponses, "gemini": FakeGemini}


def with_thinking(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ten-step script with reasoning on every tool step (replayed by the next request)."""
    out = []
    for i, step in enumerate(steps):
        step = dict(step)
        if step.get("toolCalls"):
            step.update(thinking=f"step {i}: what next?", chunkSize=7)
        step.pop("usage", None)  # these fakes always report usage, cache fields included
        out.append(step)
    return out


@pytest.fixture(params=sorted(FAKES))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def native_daemon(gg_home: Path, workspace: Path, kind: str) -> Iterator[Any]:
    """Factory: a ggd whose only provider is `kind`, pointed at that API's fake."""
    started: list[tuple[Daemon, FakeModel]] = []

    def make(script: Any) -> tuple[Daemon, FakeModel]:
        fm = FAKES[kind](script).start()
        gg_home.mkdir(parents=True, exist_ok=True)
        config = {
            "model": "native:fake-model",
            "providers": {
                "native": {
                    "kind": kind,
                    "baseUrl": fm.base_url,
                    "apiKey": "test-key",
                    "models": ["fake-model"],
                }
            },
        }
        (gg_home / "config.json").write_text(json.dumps(config))
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        started.append((d, fm))
        return d, fm

    yield make
    for d, fm in started:
        d.stop()
        fm.stop()


def replayed(kind: str, body: dict[str, Any]) -> int:
    """How many reasoning items (or thought signatures) a request sends back."""
    if kind == "gemini":
        parts = [p for c in body["contents"] if c["role"] == "model" for p in c["parts"]]
        return sum(1 for p in parts if "thoughtSignature" in p)
    return sum(1 for i in body["input"] if i.get("type") == "reasoning")


async def test_ten_step_task_with_a_denied_approval(
    native_daemon: Any, workspace: Path, kind: str
) -> None:
    _project(workspace)
    d, fm = native_daemon(with_thinking(TEN_STEPS))
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "greet the user in src/app.py", interactive=True)
        ask = await until(c, rid, "approval_requested")
        assert ask["approval"]["toolName"] == "bash"
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        ask2 = await until(c, rid, "approval_requested", after=ask["sequence"])
        assert ask2["approval"]["toolName"] == "edit"
        await c.request("gg/run.steer", {"sessionId": sid, "text": "use a friendlier greeting"})
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask2["approval"]["id"], "allow": False}
        )
        ask3 = await until(c, rid, "approval_requested", after=ask2["sequence"])
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask3["approval"]["id"], "allow": True}
        )
        done = await finish(c, rid)
        assert done["type"] == "run_completed", (done, d.logs()[-2000:])
        assert done["content"] == "Done: src/app.py now greets a friend."
        assert fm.mismatches == []
        assert (workspace / "src" / "app.py").read_text() == "print('hello, friend')\n"
        assert_sequence_ok(c, rid)
        denied = [e for e in c.events(run_id=rid) if e["type"] == "tool_call_finish"][4]
        assert denied["isError"] and "denied" in denied["output"]
        thinking = "".join(
            e.get("text") or e.get("delta") or ""
            for e in c.events(run_id=rid)
            if e["type"] == "thinking_delta"
        )
        assert "step 0: what next?" in thinking and "step 5: what next?" in thinking
        assert "what next?" not in done["content"]
        # Every request sends back the reasoning of every earlier answer, as it came.
        assert [replayed(kind, b) for b in fm.requests] == list(range(len(fm.requests)))
        assert "tool_call_start" in types(c, rid)
    finally:
        await c.close()


async def test_cancel_mid_stream(native_daemon: Any) -> None:
    d, fm = native_daemon([{"text": "thinking out loud ", "hang": True}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go", approvalMode="yolo")
        await until(c, rid, "text_delta")
        await c.request("gg/run.cancel", {"runId": rid})
        assert (await finish(c, rid))["type"] == "run_canceled"
        assert len(fm.requests) == 1  # a cancel is not retried
    finally:
        await c.close()


async def test_cli_one_shot(native_daemon: Any, gg_home: Path, workspace: Path) -> None:
    _d, fm = native_daemon(
        [
            {
                "thinking": "read it first",
                "toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}],
            },
            {"expect": {"lastTool": "demo project"}, "text": "It is a demo project."},
        ]
    )
    proc = await asyncio.to_thread(
        subprocess.run,
        [GG, "-p", "what is this project?", "--approval", "yolo"],
        cwd=workspace,
        env=daemon_env(gg_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "It is a demo project." in proc.stdout
    assert fm.mismatches == [] and len(fm.requests) == 2


async def test_acp_prompt_with_a_rejected_edit(native_daemon: Any, workspace: Path) -> None:
    from acp.schema import TextContentBlock

    from .test_acp import EDIT_SCRIPT, RecordingClient, acp_agent

    script = [{**s, "thinking": "plan the edit"} if s.get("toolCalls") else s for s in EDIT_SCRIPT]
    d, fm = native_daemon(script)
    client = RecordingClient("reject_once")
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        res = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id, prompt=[TextContentBlock(type="text", text="fix it")]
            ),
            90,
        )
    assert res.stop_reason == "end_turn"
    assert (workspace / "README.md").read_text() == "# demo project\n"
    # Gemini's calls carry ids gg made, not the script's: find the edit by its kind.
    calls = {u.kind: u.tool_call_id for u in client.updates if u.session_update == "tool_call"}
    assert set(calls) == {"read", "edit"}
    edit = [u for u in client.updates if getattr(u, "tool_call_id", "") == calls["edit"]]
    assert edit[-1].status == "failed"
    kinds = client.kinds()
    assert "agent_thought_chunk" in kinds and "agent_message_chunk" in kinds
    assert len(fm.requests) == 3 and fm.mismatches == []


async def test_a_dropped_stream_fails_the_run_keeping_the_text(native_daemon: Any) -> None:
    d, fm = native_daemon([{"text": "The answer starts here and then", "chunkSize": 4, "torn": 5}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go", approvalMode="yolo")
        done = await finish(c, rid)
        assert done["type"] == "run_failed", done
        assert done["errorCode"] == "stream_interrupted" and done["retryable"] is True
        snap = await c.request("gg/session.get", {"sessionId": sid})
        last = snap["messages"][-1]
        assert last["role"] == "assistant" and last["content"].startswith("The ")
        assert len(fm.requests) == 1
    finally:
        await c.close()
