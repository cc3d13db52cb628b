"""The conversation tree over the protocol: checkout, fork and clone, seen live by other clients."""

from __future__ import annotations

from pathlib import Path

import pytest

from .rpc_client import RpcClient, RpcError
from .runs_helpers import finish, new_session, start


async def test_checkout_fork_and_clone_with_drafts_seen_by_another_client(fake_daemon) -> None:
    d, _fm = fake_daemon(
        [{"text": "first answer"}, {"text": "second answer"}, {"text": "branch answer"}]
    )
    a = await d.connect("unix")
    b = await d.connect("ws")
    try:
        sid = await new_session(a)
        await b.request("gg/session.subscribe", {"sessionId": sid})
        for prompt in ("first question", "second question"):
            rid = await start(a, sid, prompt)
            assert (await finish(a, rid))["type"] == "run_completed"
        snap = await a.request("gg/session.get", {"sessionId": sid})
        users = [m for m in snap["messages"] if m["role"] == "user"]
        assert [u["content"] for u in users] == ["first question", "second question"]
        second = users[1]["id"]

        # checkout a user message: the head moves to its parent and its text comes back as a draft
        upd = await a.request(
            "gg/session.action", {"sessionId": sid, "action": "tree", "nodeId": second}
        )
        assert upd["draft"] == "second question" and upd["action"] == "tree"
        assert [m["content"] for m in upd["messages"]] == ["first question", "first answer"]
        ev = await b.wait_for("gg/session.event", lambda p: p["type"] == "head_changed")
        assert ev["sessionId"] == sid and ev["leafId"]

        # a new run continues from the checked-out point: the tree now has two branches
        rid = await start(a, sid, "another direction")
        assert (await finish(a, rid))["type"] == "run_completed"
        snap = await a.request("gg/session.get", {"sessionId": sid})
        assert [m["content"] for m in snap["messages"]] == [
            "first question",
            "first answer",
            "another direction",
            "branch answer",
        ]
        tree = {t["id"]: t for t in snap["tree"]}
        assert len(tree) == 6
        assert not tree[second]["active"]
        children = [t for t in snap["tree"] if t.get("parentId") == users[0]["id"]]
        assert len(children) == 1  # the assistant answer, under which both branches hang
        branch_parents = [t for t in snap["tree"] if t.get("parentId") == children[0]["id"]]
        assert len(branch_parents) == 2

        # fork from a user message: a new session up to its parent, the text as draft
        fork = await b.request(
            "gg/session.action", {"sessionId": sid, "action": "fork", "nodeId": second}
        )
        assert fork["sessionId"] != sid and fork["draft"] == "second question"
        assert [m["content"] for m in fork["messages"]] == ["first question", "first answer"]
        ev = await b.wait_for("gg/session.event", lambda p: p["type"] == "forked")
        assert ev["newSessionId"] == fork["sessionId"] and ev["kind"] == "fork"
        clone = await a.request("gg/session.action", {"sessionId": sid, "action": "clone"})
        assert [m["content"] for m in clone["messages"]] == [m["content"] for m in snap["messages"]]
        listed = await a.request("gg/session.list", {})
        assert {sid, fork["sessionId"], clone["sessionId"]} <= {s["id"] for s in listed["sessions"]}
    finally:
        await a.close()
        await b.close()


async def test_sessions_belong_to_their_workspace(daemon, tmp_path: Path) -> None:
    other_root = tmp_path / "other"
    other_root.mkdir()
    a = await daemon.connect("unix")
    b = await daemon.connect("unix", root=other_root)
    try:
        sid = await new_session(a)
        assert sid not in [s["id"] for s in (await b.request("gg/session.list", {}))["sessions"]]
        with pytest.raises(RpcError) as exc:
            await b.request("gg/session.open", {"sessionId": sid})
        assert exc.value.symbol == "workspace_mismatch"
        names = {w["name"] for w in (await a.request("gg/workspace.list"))["workspaces"]}
        assert {"project", "other"} <= names
    finally:
        await a.close()
        await b.close()


async def test_a_corrupt_session_file_does_not_break_the_list(daemon, gg_home: Path) -> None:
    c: RpcClient = await daemon.connect("ws")
    try:
        good = await new_session(c)
        (gg_home / "sessions" / "s_0000000000000bad.jsonl").write_text("{ this is not a session\n")
        listed = await c.request("gg/session.list", {})
        assert good in [s["id"] for s in listed["sessions"]]
        assert "corrupt" in daemon.logs().lower() or "skip" in daemon.logs().lower()
    finally:
        await c.close()


async def test_one_name_everywhere_and_distinct_copy_names(fake_daemon) -> None:
    d, _fm = fake_daemon([{"text": "first answer"}, {"text": "branch answer"}])
    a = await d.connect("unix")
    try:
        sid = await new_session(a)
        empty = await a.request("gg/session.get", {"sessionId": sid})
        assert empty["name"] == ""
        await a.request("gg/session.subscribe", {"sessionId": sid})
        long_prompt = "calc fix " + "the rounding of negative numbers in the calculator " * 3
        assert (await finish(a, await start(a, sid, long_prompt)))["type"] == "run_completed"
        # The first prompt names the session, and subscribers are told so at once.
        named = await a.wait_for("gg/session.event", lambda p: p["type"] == "renamed")

        async def names() -> tuple[str, str]:
            snap = await a.request("gg/session.get", {"sessionId": sid})
            listed = await a.request("gg/session.list", {})
            row = next(s for s in listed["sessions"] if s["id"] == sid)
            return snap["name"], row["name"]

        header, row = await names()
        assert header == row and header.startswith("calc fix the rounding")
        assert len(header) <= 60 and header.endswith("…")
        assert named["name"] == header and named["sessionId"] == sid
        # Checking out before the first prompt and asking something else keeps the name: it is the
        # session's first prompt, not the active branch's.
        first = (await a.request("gg/session.get", {"sessionId": sid}))["messages"][0]["id"]
        await a.request("gg/session.action", {"sessionId": sid, "action": "tree", "nodeId": first})
        assert (await finish(a, await start(a, sid, "other branch")))["type"] == "run_completed"
        assert await names() == (header, header)

        await a.request("gg/session.rename", {"sessionId": sid, "name": "calc fix"})
        assert await names() == ("calc fix", "calc fix")
        made = []
        for action in ("fork", "fork", "clone"):
            upd = await a.request("gg/session.action", {"sessionId": sid, "action": action})
            assert upd["sessionId"] in upd["notice"] and upd["name"] in upd["notice"]
            made.append(upd["name"])
        assert made == ["calc fix (fork)", "calc fix (fork 2)", "calc fix (clone)"]
        # A fork of a fork counts on from the same base.
        fork2 = (await a.request("gg/session.list", {}))["sessions"]
        fork_id = next(s["id"] for s in fork2 if s["name"] == "calc fix (fork)")
        upd = await a.request("gg/session.action", {"sessionId": fork_id, "action": "fork"})
        assert upd["name"] == "calc fix (fork 3)"
        listed = {s["name"] for s in (await a.request("gg/session.list", {}))["sessions"]}
        assert listed == {"calc fix", *made, "calc fix (fork 3)"}
    finally:
        await a.close()
