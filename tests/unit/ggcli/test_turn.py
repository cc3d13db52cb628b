"""TurnRunner over a socketpair: what a run's events become on stdout/stderr and in exit codes."""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from ggcli.framing import FrameDecoder, encode
from ggcli.rpc import Client, SocketChannel
from ggcli.turn import Outcome, TurnOptions, TurnRunner, Ui


@pytest.fixture
def pair() -> Iterator[tuple[Client, socket.socket]]:
    a, b = socket.socketpair()
    yield Client(SocketChannel(a)), b
    a.close()
    b.close()


def ev(seq: int, type_: str, run: str = "r1", **fields: Any) -> dict[str, Any]:
    params = {"runId": run, "sessionId": "s1", "sequence": seq, "timestamp": 0, "type": type_}
    return {"jsonrpc": "2.0", "method": "gg/run.event", "params": params | fields}


def follow(
    pair: tuple[Client, socket.socket], events: list[dict[str, Any]], json_mode: bool = False
) -> tuple[Outcome, str, str]:
    client, peer = pair
    peer.sendall(b"".join(encode(e) for e in events))
    ui = Ui(io.StringIO(), io.StringIO())
    outcome = TurnRunner(client, ui, "s1", "r1", TurnOptions(json_mode=json_mode)).run()
    return outcome, ui.out.getvalue(), ui.err.getvalue()  # type: ignore[attr-defined]


def test_completed_run(pair: tuple[Client, socket.socket]) -> None:
    outcome, out, err = follow(
        pair,
        [
            ev(1, "run_started"),
            ev(2, "text_delta", text="Hel"),
            ev(2, "text_delta", text="Hel"),  # a replayed duplicate is ignored
            ev(1, "text_delta", text="zzz", run="other"),  # another run's event is ignored
            ev(3, "tool_call_start", toolCallId="t", toolName="bash", summary="make"),
            ev(
                4,
                "tool_call_finish",
                toolCallId="t",
                toolName="bash",
                isError=True,
                output="exit 2",
            ),
            ev(5, "text_delta", text="lo"),
            ev(6, "run_completed", content="Hello"),
        ],
    )
    assert outcome == Outcome("completed", 0)
    assert out == "Hel\n\nlo\n"  # text after tool calls starts a new paragraph
    assert err == "  ✗ bash make — exit 2\n"


def test_content_is_printed_when_nothing_streamed(pair: tuple[Client, socket.socket]) -> None:
    outcome, out, _ = follow(pair, [ev(1, "run_completed", content="whole answer")])
    assert (outcome.exit_code, out) == (0, "whole answer\n")


def test_failed_and_foreign_cancel(pair: tuple[Client, socket.socket]) -> None:
    outcome, _, err = follow(pair, [ev(1, "run_failed", error="quota exceeded", retryable=False)])
    assert outcome == Outcome("failed", 1, "quota exceeded")
    assert "gg: error: quota exceeded" in err


def test_canceled_elsewhere_exits_1(pair: tuple[Client, socket.socket]) -> None:
    outcome, _, err = follow(pair, [ev(1, "run_canceled")])
    assert outcome.exit_code == 1 and "canceled" in err


def test_json_mode_prints_the_event_params(pair: tuple[Client, socket.socket]) -> None:
    events = [
        ev(1, "run_started"),
        ev(2, "text_delta", text="x"),
        ev(3, "run_completed", content="x"),
    ]
    outcome, out, err = follow(pair, events, json_mode=True)
    assert outcome.exit_code == 0
    assert [json.loads(line) for line in out.splitlines()] == [e["params"] for e in events]
    assert err == ""


def test_non_interactive_approval_is_reported_not_asked(pair: tuple[Client, socket.socket]) -> None:
    approval = {"id": "a1", "toolName": "edit", "summary": "edit x"}
    outcome, _, err = follow(
        pair,
        [
            ev(1, "approval_requested", approval=approval),
            ev(2, "approval_resolved", approvalId="a1", allow=False, by="policy"),
            ev(3, "run_completed", content=""),
        ],
    )
    assert outcome.exit_code == 0
    assert "! edit needs approval: edit x" in err


def test_lost_connection(pair: tuple[Client, socket.socket]) -> None:
    client, peer = pair
    peer.sendall(encode(ev(1, "text_delta", text="partial")))
    peer.close()
    ui = Ui(io.StringIO(), io.StringIO())
    outcome = TurnRunner(client, ui, "s1", "r1", TurnOptions()).run()
    assert (outcome.status, outcome.exit_code) == ("lost", 1)
    assert "closed the connection" in ui.err.getvalue()  # type: ignore[attr-defined]


def test_server_requests_are_refused_not_ignored(pair: tuple[Client, socket.socket]) -> None:
    client, peer = pair
    peer.sendall(encode({"jsonrpc": "2.0", "id": 9, "method": "workspace/configuration"}))
    peer.sendall(encode(ev(1, "run_completed", content="ok")))
    TurnRunner(client, Ui(io.StringIO(), io.StringIO()), "s1", "r1", TurnOptions()).run()
    peer.settimeout(5)
    reply = FrameDecoder().feed(peer.recv(65536))[0]
    assert reply["id"] == 9 and reply["error"]["code"] == -32601
