"""A real ggd whose model is an anthropic-kind provider: the fake Messages API on 127.0.0.1.

The 10-step fix-the-bug task with parallel calls, thinking round-tripped with its signatures,
approvals (one denied) and a cancel; the fake refuses any request the real API would refuse.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.anthropic_script import DEFAULT_THINKING
from tests.fakes.fake_anthropic import FakeAnthropic

from .daemon import Daemon, daemon_env
from .fix_the_bug import ANSWER, APPROVALS, FIX_THE_BUG, FIXED, make_project
from .runs_helpers import assert_sequence_ok, finish, finished_tools, new_session, start, until

CONFIG_THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


@pytest.fixture
def claude_daemon(gg_home: Path, workspace: Path) -> Iterator[Any]:
    """claude_daemon(script) -> (a ggd whose model is claude:claude-fake, the FakeAnthropic)."""
    started: list[tuple[Daemon, FakeAnthropic]] = []

    def make(script: list[dict[str, Any]]) -> tuple[Daemon, FakeAnthropic]:
        fa = FakeAnthropic(script).start()
        gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
        claude = {
            "kind": "anthropic",
            "baseUrl": fa.base_url.removesuffix("/v1"),
            "apiKey": "sk-ant-test",
            "models": ["claude-fake"],
            "extraBody": CONFIG_THINKING,
        }
        config = {"model": "claude:claude-fake", "providers": {"claude": claude}}
        (gg_home / "config.json").write_text(json.dumps(config))
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        started.append((d, fa))
        return d, fa

    yield make
    for d, fa in started:
        d.stop()
        fa.stop()


async def _answer(c: Any, rid: str, after: int, tool: str, allow: bool) -> int:
    try:
        ask = await until(c, rid, "approval_requested", after=after)
    except TimeoutError:
        ended = [e for e in c.events(run_id=rid) if e["type"] in ("run_failed", "run_completed")]
        raise AssertionError(f"no {tool} approval; the run ended: {ended}") from None
    assert ask["approval"]["toolName"] == tool
    await c.request(
        "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": allow}
    )
    return int(ask["sequence"])


async def test_the_fix_the_bug_task_through_the_anthropic_kind(
    claude_daemon: Any, workspace: Path
) -> None:
    make_project(workspace)
    hang = {"text": "Let me think about that for a long while", "chunkSize": 4, "hang": True}
    d, fa = claude_daemon([*FIX_THE_BUG, hang, {"text": "Still here."}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "the stats test fails: fix the bug", interactive=True)
        seq = 0
        for tool, allow in APPROVALS:  # the wrong fix is denied
            seq = await _answer(c, rid, seq, tool, allow)
        done = await finish(c, rid, timeout=60)
        assert done["type"] == "run_completed", done
        assert done["content"] == ANSWER
        assert fa.rejections == [] and fa.mismatches == [], (fa.rejections, fa.mismatches)
        assert (workspace / "src" / "stats.py").read_text() == FIXED
        assert_sequence_ok(c, rid)
        finishes = list(finished_tools(c, rid).values())
        assert [f["toolName"] for f in finishes] == [
            "list",
            "read",
            "read",
            "grep",
            "bash",
            "edit",
            "edit",
            "bash",
            "read",
            "grep",
        ]
        assert finishes[5]["isError"] and "denied" in finishes[5]["output"]
        assert "tests ok" in finishes[7]["output"]
        thinking = "".join(e["text"] for e in c.events(run_id=rid) if e["type"] == "thinking_delta")
        # With thinking on every answer thinks (the fake's stand-in where the script says none).
        assert thinking == "".join(s.get("thinking", DEFAULT_THINKING) for s in FIX_THE_BUG)
        # The requests: Anthropic's shape, thinking sent back signed before each tool result.
        assert len(fa.requests) == 10
        second = fa.requests[1]
        assert second["messages"][1]["content"][0]["type"] == "thinking"
        assert [b["type"] for b in second["messages"][2]["content"]] == ["tool_result"]
        parallel = fa.requests[2]["messages"][-1]["content"]
        assert [b["type"] for b in parallel] == ["tool_result", "tool_result"]
        # Every request after the first read the one before it from the cache.
        uses = fa.cache_uses
        assert all(u.cache_read_input_tokens > 0 for u in uses[1:10]), uses
        share = sum(u.cache_read_input_tokens for u in uses[1:10]) / sum(
            u.total for u in uses[1:10]
        )
        assert share >= 0.85, (share, uses)  # issue 33's aim (bench/provider_prefix.py)
        usage = [e for e in c.events(run_id=rid) if e["type"] == "usage"]
        assert [u["promptTokens"] for u in usage] == [u.total for u in uses[:10]]
        snap = await c.request("gg/session.get", {"sessionId": sid})
        answers = [m for m in snap["messages"] if m["role"] == "assistant"]
        assert [m.get("thinking") for m in answers] == [
            s.get("thinking", DEFAULT_THINKING) for s in FIX_THE_BUG
        ]
        assert not any("replay" in m for m in answers)  # signatures stay in the daemon

        # A cancel mid-answer keeps the partial text; the next run goes on from it.
        rid = await start(c, sid, "anything else?", approvalMode="yolo")
        await until(c, rid, "text_delta")
        await c.request("gg/run.cancel", {"runId": rid})
        assert (await finish(c, rid))["type"] == "run_canceled"
        rid = await start(c, sid, "still there?", approvalMode="yolo")
        done = await finish(c, rid)
        assert done["type"] == "run_completed" and done["content"] == "Still here.", done
        assert fa.rejections == []
    finally:
        await c.close()


async def test_a_dropped_stream_fails_the_run_keeping_the_text(claude_daemon: Any) -> None:
    # Frames: start, ping, the thinking block (start, delta, signature, stop), the text block's
    # start and four of its deltas; then the connection drops.
    step = {"thinking": "t", "text": "The answer starts here and then", "chunkSize": 4, "torn": 11}
    d, fa = claude_daemon([step])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go", approvalMode="yolo")
        done = await finish(c, rid)
        assert done["type"] == "run_failed", done
        assert done["errorCode"] == "stream_interrupted" and done["retryable"] is True
        snap = await c.request("gg/session.get", {"sessionId": sid})
        last = snap["messages"][-1]
        assert last["role"] == "assistant" and last["content"] == "The answer start"
        assert len(fa.requests) == 1  # what streamed was shown: not retried
    finally:
        await c.close()
