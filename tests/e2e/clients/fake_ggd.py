"""A scripted stand-in for `ggd --stdio` speaking the gg wire contract, for plugin tests.

It exists so the Neovim plugin's behaviour (queueing before initialize, event routing, approvals,
cancel, steering, version refusal) can be tested deterministically and fast; the same scenarios
also run against the real daemon in test_nvim_ggd.py. The prompt picks the script:
"approve ..." asks for one approval, "hang ..." streams until canceled, anything else streams text.
Every request is appended as one JSON line to $FAKE_GGD_LOG.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

PROTOCOL = os.environ.get("FAKE_GGD_PROTOCOL", "1.0")
LOG = os.environ.get("FAKE_GGD_LOG")


@dataclass
class FakeRun:
    """One scripted run: its events and what it waits for."""

    id: str
    session_id: str
    seq: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    answered: threading.Event = field(default_factory=threading.Event)
    canceled: threading.Event = field(default_factory=threading.Event)
    answer: dict[str, Any] = field(default_factory=dict)


class FakeGgd:
    """Minimal JSON-RPC server over LSP framing on stdin/stdout."""

    def __init__(self) -> None:
        self.out_lock = threading.Lock()
        self.initialized = False
        self.sessions: dict[str, dict[str, Any]] = {}
        self.runs: dict[str, FakeRun] = {}

    def send(self, msg: dict[str, Any]) -> None:
        """Write one framed message."""
        body = json.dumps(msg).encode()
        with self.out_lock:
            sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            sys.stdout.buffer.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification."""
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def emit(self, run: FakeRun, type_: str, **fields: Any) -> None:
        """Emit one numbered run event."""
        run.seq += 1
        ev = {
            "runId": run.id,
            "sessionId": run.session_id,
            "sequence": run.seq,
            "timestamp": 0,
            "type": type_,
            **fields,
        }
        run.events.append(ev)
        self.notify("gg/run.event", ev)

    def snapshot(self, sid: str) -> dict[str, Any]:
        """The Snapshot DTO of a session."""
        s = self.sessions[sid]
        return {
            "sessionId": sid,
            "name": s["name"],
            "model": "fake:model",
            "messages": s["messages"],
            "tree": [],
            "activeRunId": s.get("active"),
            "workspace": {"id": "w", "name": "w"},
        }

    def script(self, run: FakeRun, prompt: str) -> None:
        """Play the run's script in a thread (it may block on approvals or cancel)."""
        sess = self.sessions[run.session_id]
        self.emit(run, "run_started")
        self.notify(
            "gg/session.event",
            {"sessionId": run.session_id, "type": "run_started", "runId": run.id},
        )
        status = "completed"
        if prompt.startswith("approve"):
            self.emit(run, "text_delta", text="I will write a file.")
            approval = {
                "id": "ap1",
                "toolCallId": "tc1",
                "toolName": "write",
                "summary": "write notes.txt",
                "risk": "normal",
                "details": {"diff": "+hello"},
            }
            self.emit(run, "approval_requested", approval=approval)
            self.notify(
                "gg/session.event",
                {
                    "sessionId": run.session_id,
                    "type": "approval_pending",
                    "runId": run.id,
                    "count": 1,
                },
            )
            run.answered.wait(30)
            allow = bool(run.answer.get("allow"))
            self.emit(
                run,
                "approval_resolved",
                approvalId="ap1",
                allow=allow,
                by="user",
                scope=run.answer.get("scope"),
            )
            self.emit(
                run,
                "tool_call_start",
                toolCallId="tc1",
                toolName="write",
                summary="write notes.txt",
            )
            self.emit(
                run,
                "tool_call_finish",
                toolCallId="tc1",
                toolName="write",
                isError=not allow,
                output="wrote 5 bytes" if allow else "denied by user",
            )
            self.emit(run, "text_delta", text="\nAll done." if allow else "\nOK, not writing.")
        elif prompt.startswith("hang"):
            self.emit(run, "text_delta", text="Thinking")
            while not run.canceled.wait(0.05):
                self.emit(run, "text_delta", text=".")
            status = "canceled"
        else:
            for piece in ["Hello ", "from the ", "fake.\nSecond", " line."]:
                self.emit(run, "text_delta", text=piece)
        sess["messages"].append(
            {"id": uuid.uuid4().hex, "role": "assistant", "content": "(answer)", "timestamp": 0}
        )
        sess["active"] = None
        if status == "canceled":
            self.emit(run, "run_canceled")
        else:
            self.emit(run, "run_completed", content="(answer)", usage=None)
        self.notify(
            "gg/session.event",
            {
                "sessionId": run.session_id,
                "type": "run_finished",
                "runId": run.id,
                "status": status,
            },
        )

    def handle(self, method: str, params: dict[str, Any]) -> Any:
        """Answer one request; raise KeyError for unknown ids."""
        if method == "initialize":
            self.initialized = True
            return {
                "serverInfo": {"name": "ggd", "version": "fake"},
                "capabilities": {
                    "experimental": {
                        "gg": {
                            "protocolVersion": PROTOCOL,
                            "capabilities": [],
                            "workspace": {"id": "w", "name": "w"},
                        }
                    }
                },
            }
        if method == "shutdown":
            return None
        if not self.initialized:
            raise RpcError(-32002, "not initialized", "not_initialized")
        if method == "gg/session.create":
            sid = "s" + uuid.uuid4().hex[:8]
            self.sessions[sid] = {"name": params.get("name"), "messages": []}
            return self.snapshot(sid)
        if method in ("gg/session.open", "gg/session.get"):
            if params["sessionId"] not in self.sessions:
                raise RpcError(-32001, "Session not found.", "session_not_found")
            return self.snapshot(params["sessionId"])
        if method == "gg/session.list":
            return {
                "sessions": [
                    {
                        "id": k,
                        "name": v["name"],
                        "updatedAt": 0,
                        "messageCount": len(v["messages"]),
                        "preview": "p",
                        "activeRunId": v.get("active"),
                    }
                    for k, v in self.sessions.items()
                ]
            }
        if method in ("gg/session.subscribe", "gg/run.steer"):
            if method == "gg/run.steer":
                run = self.runs[self.sessions[params["sessionId"]]["active"]]
                self.emit(run, "user_message", text=params["text"])
            return {}
        if method == "gg/run.start":
            sess = self.sessions[params["sessionId"]]
            if sess.get("active"):
                raise RpcError(-32003, "Session is busy.", "run_conflict")
            run = FakeRun(id="r" + uuid.uuid4().hex[:8], session_id=params["sessionId"])
            self.runs[run.id] = run
            sess["active"] = run.id
            sess["messages"].append(
                {
                    "id": uuid.uuid4().hex,
                    "role": "user",
                    "content": params["prompt"],
                    "timestamp": 0,
                }
            )
            threading.Timer(0.01, self.script, (run, params["prompt"])).start()
            return {"runId": run.id}
        if method == "gg/run.subscribe":
            run = self.runs[params["runId"]]
            ring = int(os.environ.get("FAKE_GGD_RING", "0"))
            if ring and params.get("afterSequence", 0) < run.seq - ring:
                raise RpcError(
                    -32005, "Events expired; reload the session.", "event_history_expired"
                )
            for ev in list(run.events):
                if ev["sequence"] > params.get("afterSequence", 0):
                    self.notify("gg/run.event", ev)
            return {}
        if method == "gg/run.get":
            run = self.runs[params["runId"]]
            status = "canceled" if run.canceled.is_set() else "running"
            return {
                "id": run.id,
                "sessionId": run.session_id,
                "status": status,
                "startedAt": 0,
                "firstSequence": 1,
                "lastSequence": run.seq,
                "pendingApprovals": [],
            }
        if method == "gg/run.approve":
            run = self.runs[params["runId"]]
            if run.answered.is_set():
                raise RpcError(-32004, "Approval already answered.", "approval_expired")
            run.answer = params
            run.answered.set()
            return {}
        if method == "gg/run.cancel":
            self.runs[params["runId"]].canceled.set()
            return {}
        raise RpcError(-32601, f"Unknown method {method}", "method_not_found")

    def serve(self) -> None:
        """Read framed requests until EOF or exit."""
        stdin = sys.stdin.buffer
        while True:
            length = 0
            while True:
                line = stdin.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            msg = json.loads(stdin.read(length))
            if LOG:
                with open(LOG, "a") as f:
                    f.write(json.dumps(msg) + "\n")
            method = msg.get("method")
            if method == "exit":
                return
            if "id" not in msg or method is None:
                continue
            try:
                result = self.handle(method, msg.get("params") or {})
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            except RpcError as e:
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": msg["id"],
                        "error": {
                            "code": e.code,
                            "message": e.message,
                            "data": {"code": e.symbol, "retryable": False},
                        },
                    }
                )


class RpcError(Exception):
    """A JSON-RPC error with gg's symbolic code."""

    def __init__(self, code: int, message: str, symbol: str) -> None:
        super().__init__(message)
        self.code, self.message, self.symbol = code, message, symbol


if __name__ == "__main__":
    FakeGgd().serve()
    os._exit(0)
