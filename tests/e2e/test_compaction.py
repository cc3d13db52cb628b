"""gg/session.compact and gg/session.context against the scripted model."""

from __future__ import annotations

import pytest

from .rpc_client import RpcError
from .runs_helpers import finish, new_session, start


async def test_compact_replaces_older_turns_with_a_summary(fake_daemon) -> None:
    turns = 8
    script = [{"text": f"answer {i} " + "words " * 50} for i in range(turns)]
    script.append(
        {
            "expect": {"lastUser": "hello 0"},
            "text": "SUMMARY: eight greetings exchanged.",
            "usage": {"prompt": 900, "completion": 40},
        }
    )
    d, fm = fake_daemon(script)
    c = await d.connect("unix")
    watcher = await d.connect("ws")
    try:
        sid = await new_session(c)
        await watcher.request("gg/session.subscribe", {"sessionId": sid})
        for i in range(turns):
            rid = await start(c, sid, f"hello {i}")
            assert (await finish(c, rid))["type"] == "run_completed"
        before = await c.request("gg/session.context", {"sessionId": sid})
        assert before["messageCount"] == 2 * turns and not before["hasSummary"]
        assert before["model"] == "openai:fake-model" and before["promptBudget"] > 0
        res = await c.request("gg/session.compact", {"sessionId": sid})
        assert res == {"summary": "SUMMARY: eight greetings exchanged.", "compacted": True}
        assert fm.mismatches == []
        summarised = fm.requests[-1]["messages"][-1]["content"]
        assert "hello 1" in summarised and "hello 7" not in summarised  # the recent tail is kept
        assert "tools" not in fm.requests[-1] or not fm.requests[-1]["tools"]
        after = await c.request("gg/session.context", {"sessionId": sid})
        assert after["hasSummary"] and after["messageCount"] < before["messageCount"]
        # The summary request is counted in the session's usage like any request.
        assert after["usage"]["requests"] == turns + 1
        assert after["usage"]["promptTokens"] - before["usage"]["promptTokens"] == 900
        assert after["contextTokens"] < before["contextTokens"]
        snap = await c.request("gg/session.get", {"sessionId": sid})
        assert snap["summary"] == "SUMMARY: eight greetings exchanged."
        # the full history stays in the tree; only the model's context shrank
        assert len(snap["messages"]) == 2 * turns
        await watcher.wait_for("gg/session.event", lambda p: p["type"] == "compacted")
    finally:
        await c.close()
        await watcher.close()


async def test_compact_refuses_while_a_run_is_active(fake_daemon) -> None:
    d, _fm = fake_daemon([{"text": "thinking", "hang": True}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go")
        with pytest.raises(RpcError) as exc:
            await c.request("gg/session.compact", {"sessionId": sid})
        assert exc.value.symbol == "run_conflict"
        await c.request("gg/run.cancel", {"runId": rid})
        await finish(c, rid)
    finally:
        await c.close()
