"""Session files another process changed or damaged, through a real ggd over the protocol."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .runs_helpers import finish, new_session, start


def _texts(view: dict[str, Any]) -> list[str]:
    return [m.get("content") or "" for m in view["messages"]]


async def _say(c: Any, sid: str, prompt: str) -> None:
    run_id = await start(c, sid, prompt)
    assert (await finish(c, run_id))["type"] == "run_completed"


async def test_a_damaged_middle_line_is_listed_flagged_opens_and_keeps_every_line(
    fake_daemon: Any, gg_home: Path
) -> None:
    d, _fm = fake_daemon([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    c = await d.connect("unix")
    sid = await new_session(c)
    for prompt in ("first", "second", "third"):
        await _say(c, sid, prompt)
    await c.close()
    d.stop()
    path = gg_home / "sessions" / f"{sid}.jsonl"
    lines = path.read_bytes().split(b"\n")
    (i,) = [n for n, raw in enumerate(lines) if b'"content":"second"' in raw]
    lines[i] = lines[i][: len(lines[i]) // 2]  # the user message "second", cut in half
    path.write_bytes(b"\n".join(lines))
    damaged = path.read_bytes()

    d2, _fm2 = fake_daemon([{"text": "four"}])
    c = await d2.connect("unix")
    rows = (await c.request("gg/session.list", {}))["sessions"]
    assert [(r["id"], r["damaged"]) for r in rows] == [(sid, True)]
    view = await c.request("gg/session.open", {"sessionId": sid})
    assert _texts(view) == ["first", "one", "two", "third", "three"]
    await _say(c, sid, "fourth")  # appending goes after the damage, never over it
    view = await c.request("gg/session.open", {"sessionId": sid})
    assert _texts(view)[-2:] == ["fourth", "four"]
    on_disk = path.read_bytes()
    assert on_disk.startswith(damaged) and len(on_disk) > len(damaged)
    for raw in on_disk.split(b"\n")[i + 1 :]:
        if raw:
            json.loads(raw)  # every line after the damaged one is intact
    await c.close()


async def test_open_serves_what_a_private_sidecar_appended(fake_daemon: Any) -> None:
    script = [
        {"text": "from the shared daemon"},
        {"text": "from the sidecar"},
        {"text": "from the sidecar, again"},
        {"text": "4"},
    ]
    d, _fm = fake_daemon(script)
    shared = await d.connect("unix")
    sid = await new_session(shared)
    await _say(shared, sid, "hello shared")
    before = await shared.request("gg/session.open", {"sessionId": sid})
    assert _texts(before) == ["hello shared", "from the shared daemon"]
    side = await d.connect("stdio")  # `ggd --stdio`: a separate process, the same GG_HOME
    try:
        await _say(side, sid, "hello sidecar")
    finally:
        await side.close()
    after = await shared.request("gg/session.open", {"sessionId": sid})
    assert _texts(after)[-2:] == ["hello sidecar", "from the sidecar"]
    assert (await shared.request("gg/session.get", {"sessionId": sid}))["messages"] == after[
        "messages"
    ]
    # Again, and this time the shared daemon starts a run without opening first: the run
    # continues after the sidecar's entries (no session_conflict) and the model sees them.
    side = await d.connect("stdio")
    try:
        await _say(side, sid, "sidecar again")
    finally:
        await side.close()
    await _say(shared, sid, "shared again")
    sent = _fm.wait_for_requests(4)[3]["messages"]
    assert "sidecar again" in json.dumps(sent)
    final = await shared.request("gg/session.open", {"sessionId": sid})
    assert _texts(final)[4:] == ["sidecar again", "from the sidecar, again", "shared again", "4"]
    await shared.close()
