"""What a client was told happened survives a SIGKILL right after it was told.

Each round kills the daemon with SIGKILL the moment the acknowledgement arrives (the run.start
reply, or the tool_call_finish event), then a fresh daemon on the same GG_HOME must show the
acknowledged prompt / tool result. The next round runs on that fresh daemon, so 30 rounds cost
31 daemon starts.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

from .daemon import Daemon, daemon_env
from .rpc_client import RpcClient
from .runs_helpers import new_session

ROUNDS = 30
# ~1 s per round on a quiet 2-core machine (a daemon start dominates); room for a loaded one.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _daemon(home: Path, workspace: Path, fm: FakeModel) -> Daemon:
    env = daemon_env(
        home, {"OPENAI_BASE_URL": fm.base_url, "OPENAI_API_KEY": "k", "GG_MODEL": "fake-model"}
    )
    return Daemon(home, workspace, env).start()


def _kill(d: Daemon) -> None:
    assert d.proc is not None
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(10)


async def _messages(c: RpcClient, sid: str) -> list[dict[str, Any]]:
    snap = await c.request("gg/session.open", {"sessionId": sid})
    return list(snap["messages"])


async def test_a_prompt_acknowledged_by_run_start_survives_sigkill(
    gg_home: Path, workspace: Path
) -> None:
    # The model never answers: only the acknowledgement of the prompt is under test.
    fm = FakeModel([{"text": "...", "hang": True, "repeat": ROUNDS + 5}]).start()
    d = _daemon(gg_home, workspace, fm)
    lost: list[int] = []
    sid = ""
    try:
        for i in range(ROUNDS + 1):
            c = await d.connect("unix")
            try:
                if i == 0:
                    sid = await new_session(c)
                else:
                    users = [m["content"] for m in await _messages(c, sid) if m["role"] == "user"]
                    if f"prompt {i - 1}" not in users:
                        lost.append(i - 1)
                if i == ROUNDS:
                    break
                res = await c.request("gg/run.start", {"sessionId": sid, "prompt": f"prompt {i}"})
                assert res["runId"]
                _kill(d)  # right after the reply
            finally:
                await c.close()
            d = _daemon(gg_home, workspace, fm)
    finally:
        d.stop()
        fm.stop()
    assert lost == [], f"prompts lost after the run.start reply: {lost}"


async def test_a_tool_result_announced_by_tool_call_finish_survives_sigkill(
    gg_home: Path, workspace: Path
) -> None:
    lost: list[int] = []
    sid = ""
    fm: FakeModel | None = None
    d: Daemon | None = None
    try:
        for i in range(ROUNDS + 1):
            # A fresh model per round: the kill lands at a different step of each script.
            step = {
                "toolCalls": [
                    {"id": f"call_{i}", "name": "read", "arguments": {"path": "README.md"}}
                ]
            }
            new_fm = FakeModel([step, {"text": "...", "hang": True}]).start()
            d = _daemon(gg_home, workspace, new_fm)
            if fm is not None:
                fm.stop()
            fm = new_fm
            c = await d.connect("unix")
            try:
                if i == 0:
                    sid = await new_session(c)
                else:
                    msgs = await _messages(c, sid)
                    results = [m for m in msgs if m.get("toolCallId") == f"call_{i - 1}"]
                    if not results or "demo project" not in (results[0].get("content") or ""):
                        lost.append(i - 1)
                if i == ROUNDS:
                    break
                res = await c.request("gg/run.start", {"sessionId": sid, "prompt": f"round {i}"})
                await c.wait_for(
                    "gg/run.event",
                    lambda p, r=res["runId"]: p["runId"] == r and p["type"] == "tool_call_finish",
                    timeout=30,
                )
                _kill(d)  # right after the event
            finally:
                await c.close()
    finally:
        if d is not None:
            d.stop()
        if fm is not None:
            fm.stop()
    assert lost == [], f"tool results lost after tool_call_finish: {lost}"
