"""Numbers out of range get -32602 naming the field, never an internal error (issue 30 item 11).

Through a real ggd: `gg/library.get` with offset 10^18 was a -32603 (the seek failed), and
`gg/job.add` with inSeconds 1e18 too (timedelta overflowed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .daemon import Daemon
from .rpc_client import RpcError

BIG = 10**18
SAFE = 2**53 - 1


async def test_out_of_range_numbers_are_invalid_params(daemon: Daemon, workspace: Path) -> None:
    (workspace / "a.txt").write_text("hi")
    c = await daemon.connect("unix")
    try:
        item = (await c.request("gg/library.add", {"path": str(workspace / "a.txt")}))["item"]
        job: dict[str, Any] = {"name": "j", "prompt": "p"}
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("gg/library.get", {"itemId": item["id"], "offset": BIG}, "offset"),
            ("gg/library.get", {"itemId": item["id"], "offset": SAFE}, "past the end"),
            ("gg/library.get", {"itemId": item["id"], "offset": 3}, "past the end"),
            ("gg/job.add", {**job, "inSeconds": 1e18}, "inSeconds"),
            ("gg/job.add", {**job, "inSeconds": 1e308}, "inSeconds"),
            ("gg/job.add", {**job, "cron": "@daily", "timeout": 1e308}, "timeout"),
            ("gg/job.update", {"job": "j", "timeout": 1e18}, "timeout"),
            ("gg/artifact.get", {"artifactId": "a_1", "version": BIG}, "version"),
            ("gg/run.wait", {"runId": "r_1", "afterSequence": BIG}, "afterSequence"),
            ("gg/run.subscribe", {"runId": "r_1", "afterSequence": BIG}, "afterSequence"),
        ]
        for method, params, says in cases:
            with pytest.raises(RpcError) as err:
                await c.request(method, params)
            assert err.value.code == -32602, (method, params, err.value)
            assert says in str(err.value), (method, str(err.value))
        # The edges still work: the end of the item is an empty, final chunk.
        end = await c.request("gg/library.get", {"itemId": item["id"], "offset": 2})
        assert end["content"] == "" and end["eof"] is True
    finally:
        await c.close()
    assert "handler failed" not in daemon.logs()
