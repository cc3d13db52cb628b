"""gg/run.start clientTools over plain gg JSON-RPC: the daemon's gg/client.* requests, and what
happens when the client that offered them dies or fails mid-request."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from .rpc_client import NO_REPLY, RpcClient
from .runs_helpers import TERMINAL, new_session, start


async def _wait_run(c: RpcClient, run_id: str, timeout: float = 60) -> list[dict[str, Any]]:
    """Every event of a run until its terminal one, long-polled over gg/run.wait."""
    events: list[dict[str, Any]] = []
    after = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        res = await c.request(
            "gg/run.wait", {"runId": run_id, "afterSequence": after, "timeoutMs": 5000}, 30
        )
        for ev in res["events"]:
            events.append(ev)
            after = ev["sequence"]
            if ev["type"] in TERMINAL:
                return events
    raise TimeoutError("the run did not end")


def _finish(events: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == "tool_call_finish" and e["toolCallId"] == call_id)


async def test_a_client_that_dies_mid_read_leaves_the_run_reading_the_disk(
    fake_daemon, workspace: Path
) -> None:
    d, fm = fake_daemon(
        [
            {"toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "README.md"}}]},
            {"text": "read it"},
        ]
    )
    editor = await d.connect("unix")
    editor.on_request = lambda method, params: NO_REPLY  # it will die instead of answering
    watcher = await d.connect("unix")
    try:
        sid = await new_session(editor)
        tools = {"readTextFile": True, "writeTextFile": True}
        run_id = await start(editor, sid, "read", subscribe=False, clientTools=tools)
        asked = await editor.wait_request("gg/client.readTextFile", 30)
        assert asked["runId"] == run_id and asked["toolCallId"] == "c1"
        assert asked["path"] == str((workspace / "README.md").resolve())
        await editor.close()  # the editor is gone with the request unanswered
        events = await _wait_run(watcher, run_id)
    finally:
        await watcher.close()
    assert events[-1]["type"] == "run_completed"
    done = _finish(events, "c1")
    assert not done["isError"] and "# demo project" in done["output"]
    assert "read from disk" in done["details"]["clientFallback"]
    assert "# demo project" in json.dumps(fm.requests[-1]["messages"])
    assert "Traceback" not in d.logs()


async def test_a_terminal_that_answers_an_error_is_never_run_again_by_gg(
    fake_daemon, workspace: Path
) -> None:
    marker = workspace / "ran-by-gg"
    d, _ = fake_daemon(
        [
            {
                "toolCalls": [
                    {"id": "c1", "name": "bash", "arguments": {"command": f"touch {marker}"}}
                ]
            },
            {"text": "done"},
        ]
    )
    editor = await d.connect("unix")
    answered = asyncio.Event()

    def on_request(method: str, params: Any) -> Any:
        if method != "gg/client.runCommand":
            return None
        rid = editor.server_requests[-1]["id"]
        body = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": "pty broke"}}
        asyncio.ensure_future(editor.send_body(json.dumps(body).encode())).add_done_callback(
            lambda _f: answered.set()
        )
        return NO_REPLY

    editor.on_request = on_request
    try:
        sid = await new_session(editor)
        run_id = await start(
            editor,
            sid,
            "touch",
            subscribe=False,
            approvalMode="yolo",
            clientTools={"terminal": True},
        )
        await asyncio.wait_for(answered.wait(), 30)
        events = await _wait_run(editor, run_id)
    finally:
        await editor.close()
    done = _finish(events, "c1")
    assert done["isError"] and "did not run the command again" in done["output"]
    assert "pty broke" in done["output"]
    assert not marker.exists()  # gg's own subprocess never ran it
    assert events[-1]["type"] == "run_completed"


async def test_cancelling_a_run_withdraws_its_terminal_request(
    fake_daemon, workspace: Path
) -> None:
    d, _ = fake_daemon(
        [
            {"toolCalls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 300"}}]},
            {"text": "never"},
        ]
    )
    editor = await d.connect("unix")
    editor.on_request = lambda method, params: NO_REPLY  # the terminal "runs" until cancelled
    try:
        sid = await new_session(editor)
        run_id = await start(editor, sid, "sleep", subscribe=False, clientTools={"terminal": True})
        asked = await editor.wait_request("gg/client.runCommand", 30)
        assert asked["command"] == "sleep 300" and asked["cwd"] == str(workspace.resolve())
        assert asked["timeoutMs"] == 120_000 and asked["outputByteLimit"] == 50 * 1024
        rid = editor.server_requests[-1]["id"]
        await editor.request("gg/run.cancel", {"runId": run_id})
        cancel = await editor.wait_for("$/cancelRequest", timeout=30)
        assert cancel == {"id": rid}
        events = await _wait_run(editor, run_id)
        # The late answer to the withdrawn request is taken quietly.
        late = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32800, "message": "cancelled"}}
        await editor.send_body(json.dumps(late).encode())
        assert await editor.request("gg/run.get", {"runId": run_id})
    finally:
        await editor.close()
    assert events[-1]["type"] == "run_canceled"
