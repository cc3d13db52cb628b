"""The JSON-RPC envelope contract on every transport: hostile input gets the right typed error."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from .daemon import Daemon
from .rpc_client import RpcClient, RpcError

FORBIDDEN = ("Traceback", "site-packages", "/home/", "/root/", "/tmp/")


async def _reply(c: RpcClient, body: bytes, timeout: float = 10) -> dict[str, Any]:
    """Send one raw body and return the next reply the test client did not ask for."""
    start = len(c.orphans)
    await c.send_body(body)

    async def find() -> dict[str, Any]:
        while len(c.orphans) <= start:
            await asyncio.sleep(0.005)
        return c.orphans[start]

    reply = await asyncio.wait_for(find(), timeout)
    assert set(reply) == {"jsonrpc", "id", "error"}, reply
    error = reply["error"]
    assert isinstance(error["data"]["code"], str), reply
    text = json.dumps(reply)
    assert not any(f in text for f in FORBIDDEN), reply
    return reply


async def _no_reply(c: RpcClient, body: bytes) -> None:
    """Send a body that must not be answered; a request sent after it is answered first."""
    start = len(c.orphans)
    await c.send_body(body)
    assert (await c.request("gg/system.info"))["protocolVersion"]
    assert c.orphans[start:] == []


def _req(method: str, params: Any = None, id_: Any = "t1") -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode()


async def test_nesting_past_the_limit_is_refused_and_the_connection_survives(
    client: RpcClient, transport: str
) -> None:
    deep = b"[" * 1000 + b"]" * 1000
    body = b'{"jsonrpc":"2.0","id":"d1","method":"gg/session.list","params":{"x":' + deep + b"}}"
    assert len(body) < 2100
    reply = await _reply(client, body)
    assert reply["id"] is None
    assert reply["error"]["code"] == -32600
    assert reply["error"]["data"]["code"] == "invalid_request"
    assert "nesting" in reply["error"]["message"]
    # truncated and unbalanced deep text, and deep objects, are refused the same way
    for bad in (b"[" * 5000, b'{"a":' * 2000):
        assert (await _reply(client, bad))["error"]["code"] == -32600
    # honest nesting (well under the limit) still reaches validation
    ok = _req("gg/session.list", {"limit": 5, "x": json.loads("[" * 30 + "]" * 30)})
    assert (await _reply(client, ok))["error"]["code"] == -32602
    assert (await client.request("gg/system.info"))["protocolVersion"] == "1.0"
    if transport == "stdio":
        assert client.proc is not None and client.proc.returncode is None


async def test_ids_that_are_not_integers_or_strings_are_invalid_requests(
    client: RpcClient,
) -> None:
    raw_ids = [b"{}", b'{"a":1}', b"[1]", b"true", b"false", b"1.5", b"NaN", b"Infinity"]
    raw_ids += [b"-Infinity", b"null", b"1" + b"0" * 30, b'"' + b"x" * 300 + b'"']
    for raw in raw_ids:
        body = b'{"jsonrpc":"2.0","id":' + raw + b',"method":"gg/system.info"}'
        reply = await _reply(client, body)
        assert reply["id"] is None, raw
        # NaN/Infinity parse errors (they are not JSON) and the rest invalid requests
        assert reply["error"]["code"] in (-32600, -32700), raw
        assert reply["error"]["code"] == (-32700 if b"Infinity" in raw or raw == b"NaN" else -32600)
    # good ids are echoed exactly
    for good in (0, -5, 2**53 - 1, "", "abc"):
        resp = await _reply(client, _req("gg/nothing", id_=good))
        assert resp["id"] == good and resp["error"]["code"] == -32601


async def test_unknown_and_document_methods_are_method_not_found(client: RpcClient) -> None:
    for method in ("gg/nothing.here", "textDocument/hover", "textDocument/completion", "foo"):
        reply = await _reply(client, _req(method, {}))
        assert reply["error"]["code"] == -32601, method
        assert reply["error"]["data"]["code"] == "method_not_found"
    # document notifications are ignored without a reply, as unknown notifications are
    did_open = {"textDocument": {"uri": "file:///x", "languageId": "py", "version": 1, "text": ""}}
    await _no_reply(
        client,
        json.dumps(
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": did_open}
        ).encode(),
    )
    await _no_reply(client, b'{"jsonrpc":"2.0","method":"gg/system.info"}')


async def test_notification_methods_sent_with_an_id_get_an_answer(client: RpcClient) -> None:
    for method in ("initialized", "exit", "$/cancelRequest", "$/setTrace"):
        reply = await _reply(client, _req(method, {}, id_=f"n-{method}"))
        assert reply["id"] == f"n-{method}"
        assert reply["error"]["code"] == -32600
        assert "notification" in reply["error"]["message"]
    assert (await client.request("gg/system.info"))["protocolVersion"]


async def test_invalid_utf8_is_a_parse_error(client: RpcClient, transport: str) -> None:
    if transport == "ws":
        pytest.skip("WebSocket text frames are UTF-8 checked by the protocol itself")
    for bad in (b"\xff\xfe", b"\xed\xa0\x80", b"\xc0\xaf"):
        body = b'{"jsonrpc":"2.0","id":"u","method":"gg/session.create","params":{"name":"'
        reply = await _reply(client, body + bad + b'"}}')
        assert reply["error"]["code"] == -32700, bad
    reply = await _reply(client, _req("gg/session.create", {"name": "\ud800"}))
    assert reply["error"]["code"] == -32700
    assert (await client.request("gg/session.create", {"name": "ok \u00e9"}))["name"] == "ok \u00e9"


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("gg/session.list", {"limit": "5"}),
        ("gg/session.list", {"limit": True}),
        ("gg/session.list", {"limit": 5.0}),
        ("gg/run.wait", {"runId": "r_1", "afterSequence": "1"}),
        ("gg/session.create", {"name": 5}),
        ("gg/run.approve", {"runId": "r", "approvalId": "a", "allow": 1}),
        ("gg/session.list", [1]),
    ],
)
async def test_params_are_validated_strictly(daemon: Daemon, method: str, params: Any) -> None:
    c = await daemon.connect("unix")
    try:
        with pytest.raises(RpcError) as exc:
            await c.request(method, params)
        assert exc.value.code == -32602 and exc.value.symbol == "invalid_params"
    finally:
        await c.close()


async def test_initialize_params_are_strict(daemon: Daemon) -> None:
    c = await daemon.open("unix")
    try:
        for params in (
            {"processId": "1", "capabilities": {}},
            {"processId": True, "capabilities": {}},
            {"capabilities": []},
            {"processId": None},
            {"processId": None, "capabilities": {}, "clientInfo": {"name": 3}},
            {"processId": None, "capabilities": {}, "workspaceFolders": [{"uri": 1}]},
        ):
            with pytest.raises(RpcError) as exc:
                await c.request("initialize", params)
            assert exc.value.code == -32602 and exc.value.symbol == "invalid_params", params
        unknown = {"processId": None, "capabilities": {}, "initializationOptions": {}}
        unknown["initializationOptions"] = {"workspaceId": "w_" + "x" * 500}
        with pytest.raises(RpcError) as exc:
            await c.request("initialize", unknown)
        assert exc.value.symbol == "workspace_mismatch" and len(exc.value.message) < 200
        await c.initialize()
        with pytest.raises(RpcError) as exc:
            await c.request("initialize", {"processId": None, "capabilities": {}})
        assert exc.value.code == -32600
    finally:
        await c.close()


async def test_shutdown_follows_the_lsp_lifecycle(daemon: Daemon) -> None:
    c = await daemon.open("unix")
    try:
        with pytest.raises(RpcError) as exc:
            await c.request("shutdown")
        assert exc.value.code == -32002 and exc.value.symbol == "not_initialized"
        with pytest.raises(RpcError) as exc:
            await c.request("gg/system.info")
        assert exc.value.symbol == "not_initialized"
        await c.initialize()  # still possible: the early shutdown was refused
        assert (await c.request("gg/system.info"))["protocolVersion"]
        assert await c.request("shutdown") is None
        for method in ("gg/system.info", "initialize", "shutdown"):
            with pytest.raises(RpcError) as exc:
                await c.request(method, {"processId": None, "capabilities": {}})
            assert exc.value.code == -32600, method
            assert "shut down" in exc.value.message
        await c.notify("exit")
        await asyncio.wait_for(c.closed.wait(), 10)
    finally:
        await c.close()
