"""Session titles from the model, through a real ggd and the scripted fake (ggd/app/titles.py).

The first prompt names a session at once; once its first answer is in, one small request asks
the title model for a title and every subscribed client sees the rename. A name the user gives
meanwhile is kept, and a local endpoint gets no title request unless `titleModel` asks for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .runs_helpers import finish, new_session, start


def _config(home: Path, **config: object) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps(config))


def _used(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt": prompt, "completion": completion}


def _entries(home: Path, sid: str) -> list[dict[str, object]]:
    (path,) = home.glob(f"**/{sid}.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


PROMPT = "how do I sort a list of dicts by one of their fields in python?"


async def test_the_model_titles_a_session_after_its_first_answer(
    fake_daemon, gg_home: Path
) -> None:
    price = {"input": 2, "output": 8}  # $ per million tokens
    _config(gg_home, titleModel="openai:fake-model", prices={"openai:fake-model": price})
    d, fm = fake_daemon(
        [
            {"text": "Use `sorted(rows, key=lambda r: r['age'])`.", "usage": _used(1000, 100)},
            {"text": '"Sorting dicts by a field."', "usage": _used(300, 8)},
            {"text": "And reverse=True for descending."},
            {"text": "Stable, yes."},
        ]
    )
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        await c.request("gg/session.subscribe", {"sessionId": sid})
        await finish(c, await start(c, sid, PROMPT))
        first = await c.wait_for("gg/session.event", lambda p: p["type"] == "renamed")
        assert first["name"].startswith("how do I sort")  # the first prompt, at once
        titled = await c.wait_for(
            "gg/session.event",
            lambda p: p["type"] == "renamed" and p["name"] == "Sorting dicts by a field",
            timeout=20,
        )
        assert titled["sessionId"] == sid
        listed = await c.request("gg/session.list", {})
        assert [s["name"] for s in listed["sessions"]] == ["Sorting dicts by a field"]
        # The title request was paid for: the session's totals count it, its entry says why.
        # 1000 x $2 + 100 x $8 (the answer) + 300 x $2 + 8 x $8 (the title), per million.
        usage = listed["sessions"][0]["usage"]
        assert usage["requests"] == 2 and usage["promptTokens"] == 1300
        assert usage["costUsd"] == pytest.approx(0.003464)
        titled_usage = [e for e in _entries(gg_home, sid) if e.get("type") == "usage"][-1]
        assert titled_usage["data"]["purpose"] == "title"
        # The title request: no tools, the instruction, the prompt and the answer.
        ask = fm.requests[1]
        assert "tools" not in ask or not ask["tools"]
        assert ask["messages"][0]["role"] == "system" and "title" in ask["messages"][0]["content"]
        assert PROMPT in ask["messages"][1]["content"]
        assert "sorted(rows" in ask["messages"][1]["content"]
        # Later turns ask for no title again: each takes the next step in order (a title
        # request between them would have taken it).
        second = await finish(c, await start(c, sid, "and descending?"))
        third = await finish(c, await start(c, sid, "is it stable?"))
        assert second["content"] == "And reverse=True for descending."
        assert third["content"] == "Stable, yes."
        assert len(fm.requests) == 4
    finally:
        await c.close()


async def test_a_name_the_user_gives_meanwhile_is_kept(fake_daemon, gg_home: Path) -> None:
    _config(gg_home, titleModel="openai:fake-model")
    d, fm = fake_daemon([{"text": "Done."}, {"text": "A model title", "delayMs": 300}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        await c.request("gg/session.subscribe", {"sessionId": sid})
        await finish(c, await start(c, sid, "tidy the imports"))
        await c.request("gg/session.rename", {"sessionId": sid, "name": "mine"})
        fm.wait_for_requests(2, timeout=10)  # the title is on its way (~0.3 s a frame)
        with pytest.raises(TimeoutError):  # and is never applied over the user's name
            await c.wait_for(
                "gg/session.event",
                lambda p: p["type"] == "renamed" and p["name"] == "A model title",
                timeout=4,
            )
        opened = await c.request("gg/session.get", {"sessionId": sid})
        assert opened["name"] == "mine"
    finally:
        await c.close()


async def test_a_local_endpoint_gets_no_title_request_by_default(fake_daemon) -> None:
    d, fm = fake_daemon([{"text": "Done."}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        await finish(c, await start(c, sid, "tidy the imports"))
        listed = await c.request("gg/session.list", {})
        assert [s["name"] for s in listed["sessions"]] == ["tidy the imports"]
    finally:
        await c.close()
    d.stop()  # a title request would have reached the fake before the daemon stopped
    assert len(fm.requests) == 1
