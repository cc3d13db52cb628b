"""`gg rpc` and `gg bridge` against the stand-in daemon: framing, handshake, relaying."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(60)


class Lines:
    """Line-oriented access to a `gg rpc` child."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc

    def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        raw = obj if isinstance(obj, str) else json.dumps(obj)
        self.proc.stdin.write(raw.encode() + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "gg rpc closed stdout"
        return dict(json.loads(line))

    def reply(self, rid: Any) -> dict[str, Any]:
        """The response to request rid, skipping notifications (ggd may notify first)."""
        return self.until(lambda m: "method" not in m and m.get("id") == rid)[-1]

    def until(self, pred: Any) -> list[dict[str, Any]]:
        seen = []
        while True:
            msg = self.read()
            seen.append(msg)
            if pred(msg):
                return seen


def req(rid: Any, method: str, params: Any = None) -> dict[str, Any]:
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


@pytest.mark.parametrize("mode", [[], ["--no-daemon"]], ids=["daemon", "no-daemon"])
def test_rpc_initializes_for_the_caller_and_relays_notifications(
    fake_env: CliEnv, mode: list[str]
) -> None:
    proc = fake_env.popen("rpc", *mode)
    rpc = Lines(proc)
    try:
        rpc.send(req(1, "gg/system.info"))
        info = rpc.reply(1)
        assert info["id"] == 1 and info["result"]["protocolVersion"] == "1.0"
        rpc.send("this is not json")
        err = rpc.reply(None)
        assert err["id"] is None and err["error"]["code"] == -32700
        rpc.send(req(2, "gg/session.create", {"name": "scripted"}))
        snap = rpc.reply(2)["result"]
        assert snap["name"] == "scripted"
        rpc.send(req("r", "gg/run.start", {"sessionId": snap["sessionId"], "prompt": "ping"}))
        seen = rpc.until(lambda m: m.get("params", {}).get("type") == "run_completed")
        run_id = next(m["result"]["runId"] for m in seen if m.get("id") == "r")
        events = [m["params"] for m in seen if m.get("method") == "gg/run.event"]
        assert {e["runId"] for e in events} == {run_id}
        assert "you said: ping" in events[-1]["content"]
        rpc.send(req(3, "gg/no.such"))
        assert rpc.reply(3)["error"]["code"] == -32601
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()


def test_rpc_passes_the_callers_own_initialize_through(fake_env: CliEnv) -> None:
    proc = fake_env.popen("rpc")
    rpc = Lines(proc)
    try:
        rpc.send(req(1, "initialize", {"processId": None, "capabilities": {}, "rootUri": None}))
        init = rpc.reply(1)
        assert init["id"] == 1 and init["result"]["serverInfo"]["name"] == "ggd"
        rpc.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        rpc.send(req(2, "gg/system.info"))
        assert rpc.reply(2)["id"] == 2
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()
