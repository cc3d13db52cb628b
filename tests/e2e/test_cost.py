"""Cost and budgets through a real ggd and the scripted fake model (OpenAI usage details).

The fake reports `prompt_tokens_details.cached_tokens` and `completion_tokens_details
.reasoning_tokens` as OpenAI does; config.json prices the fake's model. Cost figures below are
worked by hand from those prices: input $2, cached input $0.50, output $8 per million tokens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

from .daemon import Daemon, daemon_env
from .rpc_client import RpcClient
from .runs_helpers import finish, new_session, start

PRICE = {"input": 2, "cachedInput": 0.5, "output": 8}
# 200 fresh x $2 + 800 cached x $0.50 + 100 out x $8 = $0.0016
STEP_A = {"usage": {"prompt": 1000, "completion": 100, "cached": 800}}
# 200 fresh x $2 + 1000 cached x $0.50 + 50 out x $8 = $0.0013
STEP_B = {"usage": {"prompt": 1200, "completion": 50, "cached": 1000, "reasoning": 20}}


def _config(home: Path, fm: FakeModel, **extra: Any) -> None:
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = {
        "model": "fake:fake-model",
        "providers": {"fake": {"baseUrl": fm.base_url, "apiKey": "test-key"}},
        **extra,
    }
    (home / "config.json").write_text(json.dumps(config))


def _read(path: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "read", "arguments": {"path": path}}]}


async def _session_row(c: RpcClient, sid: str) -> dict[str, Any]:
    rows = (await c.request("gg/session.list", {}))["sessions"]
    return next(r for r in rows if r["id"] == sid)


def _usage_events(c: RpcClient, run_id: str) -> list[dict[str, Any]]:
    return [e for e in c.events(run_id=run_id) if e["type"] == "usage"]


async def test_cost_and_cache_tokens_reach_events_wait_the_session_file_and_list(
    gg_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("hello\n")
    script = [
        {**_read("notes.txt"), **STEP_A},
        {"text": "Hello.", **STEP_B},
        {"text": "Again.", "usage": {"prompt": 0, "completion": 0}},
        {"text": "Once more."},
    ]
    with FakeModel(script) as fm:
        _config(gg_home, fm, prices={"fake:fake-model": PRICE})
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                run_id = await start(c, sid, "what do the notes say?")
                end = await finish(c, run_id, timeout=60)
                waited = await c.request("gg/run.wait", {"runId": run_id, "timeoutMs": 0})
                row = await _session_row(c, sid)
                # A second run of the session: its usage events carry the session's totals.
                run2 = await start(c, sid, "again")
                await finish(c, run2, timeout=60)
                # A request whose server reports no usage: its tokens, so its cost, are unknown.
                run3 = await start(c, sid, "once more")
                end3 = await finish(c, run3, timeout=60)
                row3 = await _session_row(c, sid)
            finally:
                await c.close()
        finally:
            d.stop()
    assert end["type"] == "run_completed", end
    first, second = _usage_events(c, run_id)
    assert first["cacheReadTokens"] == 800 and first["costUsd"] == pytest.approx(0.0016)
    assert second["reasoningTokens"] == 20 and second["costUsd"] == pytest.approx(0.0013)
    assert second["run"]["costUsd"] == pytest.approx(0.0029)
    assert second["run"]["cacheReadTokens"] == 1800 and second["run"]["requests"] == 2
    assert end["usage"]["costUsd"] == pytest.approx(0.0029)
    assert end["usage"]["cacheReadTokens"] == 1800 and end["usage"]["promptTokens"] == 2200
    assert waited["usage"] == end["usage"]
    assert row["usage"]["costUsd"] == pytest.approx(0.0029)
    assert row["usage"]["cacheReadTokens"] == 1800 and row["usage"]["reasoningTokens"] == 20
    # The third step reports 0 tokens: $0, the session's total unchanged.
    (third,) = _usage_events(c, run2)
    assert third["costUsd"] == 0 and third["session"]["costUsd"] == pytest.approx(0.0029)
    assert third["session"]["requests"] == 3
    (fourth,) = _usage_events(c, run3)
    assert "costUsd" not in fourth and "costUsd" not in fourth["session"]
    assert "costUsd" not in end3["usage"] and "costUsd" not in row3["usage"]
    session = next((gg_home / "sessions").glob("s_*.jsonl"))
    entries = [json.loads(x) for x in session.read_text().splitlines()[1:]]
    stored = [e["data"] for e in entries if e["type"] == "usage"]
    assert [u["cacheReadTokens"] for u in stored] == [800, 1000, 0, 0]
    assert "costUsd" not in stored[3]
    assert stored[0]["costUsd"] == pytest.approx(0.0016)


async def test_a_model_without_a_price_shows_tokens_only(gg_home: Path, workspace: Path) -> None:
    with FakeModel([{"text": "Hi.", **STEP_A}]) as fm:
        _config(gg_home, fm)  # no prices: "fake" is no provider of the shipped table
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                run_id = await start(c, sid, "hi")
                end = await finish(c, run_id, timeout=60)
                row = await _session_row(c, sid)
            finally:
                await c.close()
        finally:
            d.stop()
    (usage,) = _usage_events(c, run_id)
    assert usage["promptTokens"] == 1000 and usage["cacheReadTokens"] == 800
    assert "costUsd" not in usage and "costUsd" not in usage["run"]
    assert "costUsd" not in end["usage"] and end["usage"]["totalTokens"] == 1100
    assert "costUsd" not in row["usage"] and row["usage"]["promptTokens"] == 1000


async def test_a_run_budget_stops_the_run_before_its_next_tools(
    gg_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a\n")
    (workspace / "b.txt").write_text("b\n")
    script = [
        {**_read("a.txt"), **STEP_A},
        {**_read("b.txt"), **STEP_B},
        {"text": "never asked for"},
    ]
    with FakeModel(script) as fm:
        _config(gg_home, fm, prices={"fake:fake-model": PRICE})
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                run_id = await start(c, sid, "read both", budget={"maxTokens": 1500})
                end = await finish(c, run_id, timeout=60)
                status = await c.request("gg/run.get", {"runId": run_id})
            finally:
                await c.close()
        finally:
            d.stop()
        assert len(fm.requests) == 2  # stopped after the request that reached the budget
    assert end["type"] == "run_failed" and end["errorCode"] == "budget_exceeded", end
    assert end["error"].startswith("run budget reached: 2350 tokens of maxTokens 1500")
    assert "raise it with" in end["error"] and "budget" in end["error"]
    assert end["usage"]["totalTokens"] == 2350 and end["usage"]["costUsd"] == pytest.approx(0.0029)
    assert status["status"] == "failed" and status["usage"]["totalTokens"] == 2350
    finished = [e for e in c.events(run_id=run_id) if e["type"] == "tool_call_finish"]
    assert len(finished) == 1  # b.txt was never read
    # The session stays valid: the unrun call is answered in the transcript.
    snap = await _open(gg_home, workspace, sid)
    tool_msgs = [m for m in snap["messages"] if m["role"] == "tool"]
    assert tool_msgs[-1]["content"].startswith("not run: run budget reached")


async def _open(home: Path, workspace: Path, sid: str) -> dict[str, Any]:
    d = Daemon(home, workspace, daemon_env(home)).start()
    try:
        c = await d.connect("unix")
        try:
            return dict(await c.request("gg/session.open", {"sessionId": sid}))
        finally:
            await c.close()
    finally:
        d.stop()


async def test_a_session_cost_budget_from_config_refuses_the_run_that_would_exceed_it(
    gg_home: Path, workspace: Path
) -> None:
    script = [{"text": "one", **STEP_A}, {"text": "two", **STEP_B}, {"text": "three"}]
    with FakeModel(script) as fm:
        _config(
            gg_home,
            fm,
            prices={"fake:fake-model": PRICE},
            budget={"session": {"maxCostUsd": 0.0025}},
        )
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                ends = []
                for prompt in ("one", "two", "three"):
                    ends.append(await finish(c, await start(c, sid, prompt), timeout=60))
            finally:
                await c.close()
        finally:
            d.stop()
        assert len(fm.requests) == 2  # the third run never asked the model
    assert [e["type"] for e in ends] == ["run_completed", "run_completed", "run_failed"]
    assert ends[2]["errorCode"] == "budget_exceeded"
    assert ends[2]["error"].startswith("session budget reached: $0.0029 of maxCostUsd $0.0025")
    assert '"budget": {"session"' in ends[2]["error"]


async def test_a_cost_budget_on_a_model_without_a_price_stops_before_spending(
    gg_home: Path, workspace: Path
) -> None:
    with FakeModel([{"text": "never asked for"}]) as fm:
        _config(gg_home, fm)
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                run_id = await start(c, sid, "hi", budget={"maxCostUsd": 1})
                end = await finish(c, run_id, timeout=60)
                bad = await c.raw_request(
                    "gg/run.start", {"sessionId": sid, "prompt": "x", "budget": {"maxCost": 1}}
                )
            finally:
                await c.close()
        finally:
            d.stop()
        assert fm.requests == []
    assert end["errorCode"] == "budget_exceeded"
    assert "fake-model has no known price" in end["error"] and '"prices"' in end["error"]
    assert bad["error"]["code"] == -32602, bad


async def test_a_job_budget_stops_each_firing_and_the_job_log_says_why(
    gg_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a\n")
    script = [{**_read("a.txt"), **STEP_A}, {"text": "never asked for"}]
    with FakeModel(script) as fm:
        _config(gg_home, fm)
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                added = await c.request(
                    "gg/job.add",
                    {
                        "name": "capped",
                        "cron": "0 3 * * *",
                        "prompt": "read a",
                        "budget": {"maxTokens": 1000},
                    },
                )
                rec = (await c.request("gg/job.run", {"job": "capped"}))["run"]
                done = await c.wait_for(
                    "gg/job.event",
                    lambda p: p["type"] == "finished" and p["run"]["id"] == rec["id"],
                    60,
                )
            finally:
                await c.close()
        finally:
            d.stop()
        assert len(fm.requests) == 1
    assert added["job"]["budget"] == {"maxTokens": 1000}
    assert done["run"]["status"] == "error"
    assert done["run"]["summary"].startswith("job budget reached: 1100 tokens of maxTokens 1000")
    assert 'the job\'s "budget"' in done["run"]["summary"]
