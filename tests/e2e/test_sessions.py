"""gg/session.* end to end over stdio, the Unix socket and WebSocket."""

from __future__ import annotations

import pytest

from .rpc_client import RpcClient, RpcError


async def test_initialize_advertises_gg_and_the_workspace(daemon, transport, workspace) -> None:
    c = await daemon.open(transport)
    try:
        result = await c.initialize(workspace)
        gg = result["capabilities"]["experimental"]["gg"]
        assert result["serverInfo"]["name"] == "ggd"
        assert gg["protocolVersion"].split(".")[0] == "1"
        assert gg["workspace"]["name"] == workspace.name
        assert gg["workspace"]["id"].startswith("w_")
        assert "sessions" in gg["capabilities"]
    finally:
        await c.close()


async def test_gg_methods_before_initialize_are_refused(daemon) -> None:
    c = await RpcClient.unix(daemon.socket)
    try:
        with pytest.raises(RpcError) as exc:
            await c.request("gg/session.list", {})
        assert exc.value.code == -32002 and exc.value.symbol == "not_initialized"
    finally:
        await c.close()


async def test_create_list_open_rename_round_trip(client: RpcClient) -> None:
    a = await client.request("gg/session.create", {"name": "first"})
    b = await client.request("gg/session.create", {})
    assert a["name"] == "first" and a["messages"] == [] and a["tree"] == []
    assert a["workspace"]["id"].startswith("w_")
    listed = await client.request("gg/session.list", {"limit": 10})
    ids = [s["id"] for s in listed["sessions"]]
    assert ids[:2] == [b["sessionId"], a["sessionId"]]  # newest first
    renamed = await client.request(
        "gg/session.rename", {"sessionId": a["sessionId"], "name": "renamed"}
    )
    assert renamed["name"] == "renamed"
    opened = await client.request("gg/session.open", {"sessionId": a["sessionId"]})
    assert opened["name"] == "renamed"
    got = await client.request("gg/session.get", {"sessionId": a["sessionId"]})
    assert got == opened


async def test_list_pages_with_a_cursor(client: RpcClient) -> None:
    made = [
        (await client.request("gg/session.create", {"name": f"s{i}"}))["sessionId"]
        for i in range(5)
    ]
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = await client.request("gg/session.list", params)
        seen += [s["id"] for s in page["sessions"]]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert sorted(seen) == sorted(made) and len(seen) == len(set(seen))


async def test_unknown_session_and_bad_params_get_typed_errors(client: RpcClient) -> None:
    with pytest.raises(RpcError) as exc:
        await client.request("gg/session.open", {"sessionId": "s_nope"})
    assert exc.value.code == -32001 and exc.value.symbol == "session_not_found"
    with pytest.raises(RpcError) as exc:
        await client.request("gg/session.rename", {"sessionId": "s_x"})
    assert exc.value.code == -32602 and "name" in exc.value.message
    with pytest.raises(RpcError) as exc:
        await client.request("gg/session.action", {"sessionId": "s_x", "action": "explode"})
    assert exc.value.code == -32602 and "action" in exc.value.message
    with pytest.raises(RpcError) as exc:
        await client.request("gg/session.list", {"limit": "many"})
    assert exc.value.code == -32602 and "limit" in exc.value.message
    with pytest.raises(RpcError) as exc:
        await client.request("gg/session.list", [1, 2])
    assert exc.value.code == -32602


async def test_tree_fork_clone_on_an_empty_session(client: RpcClient) -> None:
    s = await client.request("gg/session.create", {"name": "base"})
    clone = await client.request(
        "gg/session.action", {"sessionId": s["sessionId"], "action": "clone"}
    )
    assert clone["sessionId"] != s["sessionId"] and clone["action"] == "clone"
    with pytest.raises(RpcError) as exc:
        await client.request(
            "gg/session.action", {"sessionId": s["sessionId"], "action": "tree", "nodeId": "zz"}
        )
    assert exc.value.symbol == "invalid_action"
