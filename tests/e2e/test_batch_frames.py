"""Batched WebSocket frames: opt-in per connection, every event still there, in order, once."""

from __future__ import annotations

from typing import Any

from .daemon import TOKEN
from .rpc_client import RpcClient
from .runs_helpers import assert_sequence_ok, finish, new_session, start

TEXT = "every delta keeps its own sequence number " * 8
SCRIPT = [{"text": TEXT, "chunkSize": 1}]


def _granted(init: dict[str, Any]) -> bool:
    return bool(init["capabilities"]["experimental"]["gg"]["batchFrames"])


async def test_an_opted_in_client_gets_arrays_and_the_same_events_as_a_plain_one(
    fake_daemon,
) -> None:
    d, _fm = fake_daemon(SCRIPT)
    batched = await RpcClient.ws(d.ws_url, TOKEN)
    plain = await RpcClient.ws(d.ws_url, TOKEN)
    late = await RpcClient.ws(d.ws_url, TOKEN)
    try:
        assert _granted(await batched.initialize(options={"batchFrames": True}))
        assert not _granted(await plain.initialize())
        assert _granted(await late.initialize(options={"batchFrames": True}))
        sid = await new_session(batched)
        rid = await start(batched, sid, "stream", approvalMode="yolo")
        await plain.request("gg/run.subscribe", {"runId": rid, "afterSequence": 0})
        done = await finish(batched, rid)
        await finish(plain, rid)
        # A replay queues the whole backlog at once: it goes out in arrays.
        await late.request("gg/run.subscribe", {"runId": rid, "afterSequence": 0})
        await finish(late, rid)

        for c in (batched, plain, late):
            assert_sequence_ok(c, rid)
        got = [c.events(run_id=rid) for c in (batched, plain, late)]
        assert got[0] == got[1] == got[2]
        assert got[0][-1]["sequence"] == done["sequence"]
        assert "".join(e["text"] for e in got[0] if e["type"] == "text_delta") == TEXT
        assert plain.batches_received == 0
        assert late.batches_received >= 1
        assert late.frames_received < len(got[2])
    finally:
        for c in (batched, plain, late):
            await c.close()


async def test_stream_transports_never_batch_even_when_asked(fake_daemon) -> None:
    d, _fm = fake_daemon(SCRIPT)
    c = await RpcClient.unix(d.socket)
    try:
        assert not _granted(await c.initialize(options={"batchFrames": True}))
        sid = await new_session(c)
        rid = await start(c, sid, "stream", approvalMode="yolo")
        await finish(c, rid)
        assert_sequence_ok(c, rid)
    finally:
        await c.close()
