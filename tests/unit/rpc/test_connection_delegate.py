"""ConnectionDelegate over a real in-process Connection: what goes on the wire, and how a
withdrawn, failed or malformed request resolves."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from ggd.app import TOOL_CALL_ID, ClientToolError
from ggd.protocol.run import ClientTools
from ggd.rpc.connection import Connection
from ggd.rpc.editor.client import ClientRequests
from ggd.rpc.editor.delegate import ConnectionDelegate


def _setup(**tools: bool) -> tuple[Connection, ClientRequests, ConnectionDelegate]:
    conn = Connection(transport="test")
    requests = ClientRequests(conn)
    delegate = ConnectionDelegate(requests, ClientTools(**tools), file_timeout=5)
    delegate.run_id = "r_1"
    return conn, requests, delegate


async def _sent(conn: Connection, n: int) -> list[dict[str, Any]]:
    """The first n messages gg queued for the client."""
    out: list[dict[str, Any]] = []
    while len(out) < n:
        frames = await asyncio.wait_for(conn.next_frames(), 5)
        assert frames is not None
        out += [json.loads(f) for f in frames]
        conn.written(frames)
    return out


async def test_read_sends_the_run_and_call_and_returns_the_content() -> None:
    conn, requests, delegate = _setup(read_text_file=True)
    TOOL_CALL_ID.set("call_7")
    task = asyncio.create_task(delegate.read_text(Path("/w/a.py")))
    (msg,) = await _sent(conn, 1)
    assert msg["method"] == "gg/client.readTextFile"
    assert msg["params"] == {"runId": "r_1", "toolCallId": "call_7", "path": "/w/a.py"}
    assert requests.answer({"id": msg["id"], "result": {"content": "buffer"}})
    assert await task == "buffer"


async def test_an_error_or_a_malformed_answer_is_a_client_tool_error() -> None:
    conn, requests, delegate = _setup(read_text_file=True)
    task = asyncio.create_task(delegate.read_text(Path("/w/a.py")))
    (msg,) = await _sent(conn, 1)
    requests.answer({"id": msg["id"], "error": {"code": -32000, "message": "no buffer"}})
    with pytest.raises(ClientToolError, match="no buffer") as info:
        await task
    assert info.value.delivered
    task = asyncio.create_task(delegate.read_text(Path("/w/a.py")))
    (msg,) = await _sent(conn, 1)
    requests.answer({"id": msg["id"], "result": {"text": "wrong field"}})
    with pytest.raises(ClientToolError, match="malformed"):
        await task


async def test_a_closed_connection_never_delivers() -> None:
    conn, _, delegate = _setup(read_text_file=True, terminal=True)
    conn.close()
    with pytest.raises(ClientToolError, match="gone") as info:
        await delegate.read_text(Path("/w/a.py"))
    assert not info.value.delivered
    with pytest.raises(ClientToolError) as info:
        await delegate.run_command("make", Path("/w"), 5, 100)
    assert not info.value.delivered  # so bash may run it itself: it never reached the client


async def test_cancelling_a_command_withdraws_it_and_swallows_the_late_answer() -> None:
    conn, requests, delegate = _setup(terminal=True)
    task = asyncio.create_task(delegate.run_command("sleep 9", Path("/w"), 2.5, 1024))
    (msg,) = await _sent(conn, 1)
    assert msg["params"] == {
        "runId": "r_1",
        "command": "sleep 9",
        "cwd": "/w",
        "timeoutMs": 2500,
        "outputByteLimit": 1024,
    }
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (cancel,) = await _sent(conn, 1)
    assert cancel == {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": msg["id"]}}
    # The client's late answer is recognised as ours, not passed on as a stray response.
    assert requests.answer({"id": msg["id"], "error": {"code": -32800, "message": "cancelled"}})
    assert not requests.answer({"id": msg["id"], "result": {}})
