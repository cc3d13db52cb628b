"""Idle open sessions beyond the hot ones release their entries; reopening one is unchanged."""

from __future__ import annotations

from .runs_helpers import finish, new_session, start

SESSIONS = 20  # more than the daemon's 8 hot sessions: the first ones are released


async def test_twenty_sessions_then_reopen_a_cold_one_and_run_on_it(fake_daemon) -> None:
    d, _fm = fake_daemon([{"text": "answer"}] * (SESSIONS + 1))
    c = await d.connect("unix")
    try:
        sids = []
        for i in range(SESSIONS):
            sid = await new_session(c)
            assert (await finish(c, await start(c, sid, f"question {i}")))["type"] == (
                "run_completed"
            )
            sids.append(sid)
        before = [await c.request("gg/session.get", {"sessionId": s}) for s in sids]
        for sid in sids[1:]:  # make the first the coldest again
            await c.request("gg/session.get", {"sessionId": sid})
        cold = await c.request("gg/session.open", {"sessionId": sids[0]})
        assert cold == before[0]
        assert [m["content"] for m in cold["messages"]] == ["question 0", "answer"]
        done = await finish(c, await start(c, sids[0], "again"))
        assert done["type"] == "run_completed"
        after = await c.request("gg/session.get", {"sessionId": sids[0]})
        assert [m["content"] for m in after["messages"]] == [
            "question 0",
            "answer",
            "again",
            "answer",
        ]
        # the others are unchanged by all that
        assert [await c.request("gg/session.get", {"sessionId": s}) for s in sids[1:]] == before[1:]
    finally:
        await c.close()
