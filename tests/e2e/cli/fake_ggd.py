"""A stdlib stand-in for ggd that speaks the wire contract with keyword-scripted runs.

It lets the CLI's terminal behaviour (approvals, steering, Ctrl+C, slash commands) be tested
deterministically. Prompts choose the run: `#approve` asks for an edit approval, `#wait` streams
then waits for a steer or a cancel, `#fail` fails; anything else echoes the prompt and runs one tool.
Modes: `--stdio` (private child) or the socket daemon with lock and discovery file, like ggd.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import socket
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from ggcli.framing import FrameDecoder, encode

SESSIONS: dict[str, dict[str, Any]] = {}
RUNS: dict[str, Run] = {}
LOCK = threading.RLock()


def now() -> int:
    return int(time.time() * 1000)


class Conn:
    def __init__(self, write: Any) -> None:
        self._write = write
        self._lock = threading.Lock()
        self.initialized = False

    def send(self, msg: dict[str, Any]) -> None:
        with self._lock:
            try:
                self._write(encode(msg))
            except OSError:
                pass

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})


class Run:
    def __init__(self, conn: Conn, session: dict[str, Any], prompt: str) -> None:
        self.id = "run-" + uuid.uuid4().hex[:8]
        self.conn = conn
        self.session = session
        self.prompt = prompt
        self.seq = 0
        self.cond = threading.Condition()
        self.canceled = False
        self.steers: list[str] = []
        self.answers: dict[str, tuple[bool, str]] = {}
        self.done = False

    def emit(self, type_: str, **fields: Any) -> None:
        if type_ in ("run_completed", "run_failed", "run_canceled"):
            # Like ggd: the session is free again before anyone hears that the run ended.
            with LOCK, self.cond:
                self.session["activeRunId"] = None
                self.done = True
        self.seq += 1
        params = {"runId": self.id, "sessionId": self.session["sessionId"], "sequence": self.seq}
        params |= {"timestamp": now(), "type": type_, **fields}
        self.conn.notify("gg/run.event", params)

    def wait(self, pred: Any, timeout: float = 30) -> bool:
        with self.cond:
            return self.cond.wait_for(pred, timeout)

    def main(self) -> None:
        self.emit("run_started")
        p = self.prompt
        add_message(self.session, "user", p)
        if "#fail" in p:
            self.emit(
                "run_failed", error="model exploded", errorCode="provider_error", retryable=False
            )
        elif "#wait" in p:
            self.emit("text_delta", text="working")
            self.wait(lambda: self.canceled or self.steers)
            if self.canceled:
                self.emit("run_canceled")
            else:
                text = self.steers[0]
                self.emit("user_message", text=text)
                self.emit("text_delta", text=f"\nsteered: {text}")
                self.finish(f"working\nsteered: {text}")
        elif "#approve" in p:
            self.emit("tool_call_start", toolCallId="c1", toolName="edit", summary="edit a.txt")
            appr = {
                "id": "ap1",
                "toolCallId": "c1",
                "toolName": "edit",
                "summary": "edit a.txt",
                "details": {"diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"},
                "risk": "normal",
                "riskReason": "writes a file",
            }
            self.emit("approval_requested", approval=appr)
            self.wait(lambda: self.canceled or "ap1" in self.answers)
            if self.canceled:
                self.emit("approval_resolved", approvalId="ap1", allow=False, by="cancel")
                self.emit("run_canceled")
            else:
                allow, scope = self.answers["ap1"]
                self.emit(
                    "approval_resolved", approvalId="ap1", allow=allow, by="user", scope=scope
                )
                out = "ok" if allow else "denied by user"
                self.emit(
                    "tool_call_finish",
                    toolCallId="c1",
                    toolName="edit",
                    isError=not allow,
                    output=out,
                )
                verdict = f"allowed ({scope})" if allow else "denied"
                self.emit("text_delta", text=f"edit {verdict}")
                self.finish(f"edit {verdict}")
        else:
            self.emit("text_delta", text="# Echo\n")
            self.emit("tool_call_start", toolCallId="c1", toolName="read", summary="read a.txt")
            self.emit(
                "tool_call_finish", toolCallId="c1", toolName="read", isError=False, output="x"
            )
            self.emit("text_delta", text="you said: ")
            self.emit("text_delta", text=p)
            self.finish("# Echo\nyou said: " + p)

    def finish(self, content: str) -> None:
        add_message(self.session, "assistant", content)
        self.emit("run_completed", content=content, usage=None)


def add_message(session: dict[str, Any], role: str, text: str) -> None:
    parent = session["leaf"]
    mid = "m" + uuid.uuid4().hex[:6]
    session["nodes"].append({"id": mid, "parentId": parent, "role": role, "text": text})
    session["leaf"] = mid


def snapshot(s: dict[str, Any], **extra: Any) -> dict[str, Any]:
    nodes = {n["id"]: n for n in s["nodes"]}
    path: list[str] = []
    cur = s["leaf"]
    while cur:
        path.append(cur)
        cur = nodes[cur]["parentId"]
    depth = {}
    tree = []
    for n in s["nodes"]:
        d = depth[n["parentId"]] + 1 if n["parentId"] else 0
        depth[n["id"]] = d
        tree.append({**n, "depth": d, "active": n["id"] in path})
    msgs = [
        {"id": i, "role": nodes[i]["role"], "content": nodes[i]["text"], "timestamp": 0}
        for i in reversed(path)
    ]
    return {
        "sessionId": s["sessionId"],
        "name": s["name"],
        "model": "fake:fake-model",
        "messages": msgs,
        "tree": tree,
        "workspace": {"id": "w1", "name": "ws"},
    } | extra


def new_session(
    name: str | None = None, nodes: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    sid = "s" + uuid.uuid4().hex[:8]
    s = {
        "sessionId": sid,
        "name": name,
        "nodes": nodes or [],
        "leaf": None,
        "created": time.time_ns(),
    }
    if nodes:
        s["leaf"] = nodes[-1]["id"]
    SESSIONS[sid] = s
    return s


class Error(Exception):
    def __init__(self, code: int, message: str, symbol: str) -> None:
        super().__init__(message)
        self.code, self.message, self.symbol = code, message, symbol


def get_session(params: dict[str, Any]) -> dict[str, Any]:
    s = SESSIONS.get(params.get("sessionId", ""))
    if s is None:
        raise Error(-32001, "session not found", "session_not_found")
    return s


def handle(conn: Conn, method: str, params: dict[str, Any]) -> Any:
    if method == "initialize":
        conn.initialized = True
        gg = {"protocolVersion": "1.0", "capabilities": [], "workspace": {"id": "w1", "name": "ws"}}
        return {
            "serverInfo": {"name": "ggd", "version": "fake"},
            "capabilities": {"experimental": {"gg": gg}},
        }
    if method == "shutdown":
        return None
    if not conn.initialized:
        raise Error(-32002, "not initialized", "not_initialized")
    if method == "gg/system.info":
        return {
            "protocolVersion": "1.0",
            "serverVersion": "fake",
            "capabilities": [],
            "demo": bool(os.environ.get("FAKE_GGD_DEMO")),
            "models": ["fake:fake-model", "fake:other"],
            "workspace": {"id": "w1", "name": "ws"},
        }
    if method == "gg/session.create":
        return snapshot(new_session(params.get("name")))
    if method == "gg/session.list":
        items = sorted(SESSIONS.values(), key=lambda s: -s["created"])[: params.get("limit", 50)]
        return {
            "sessions": [
                {
                    "id": s["sessionId"],
                    "name": s["name"],
                    "updatedAt": now(),
                    "messageCount": len(s["nodes"]),
                    "preview": "",
                }
                for s in items
            ]
        }
    if method in ("gg/session.open", "gg/session.get"):
        return snapshot(get_session(params))
    if method == "gg/session.rename":
        s = get_session(params)
        s["name"] = params["name"]
        return snapshot(s)
    if method == "gg/session.action":
        s = get_session(params)
        node = params.get("nodeId") or s["leaf"]
        ids = {n["id"]: n for n in s["nodes"]}
        if node and node not in ids:
            raise Error(-32007, "no such entry", "invalid_action")
        if params["action"] == "tree":
            draft = None
            if node and ids[node]["role"] == "user":
                draft, node = ids[node]["text"], ids[node]["parentId"]
            s["leaf"] = node
            return snapshot(s, draft=draft, action="tree")
        new = new_session(s["name"], [dict(n) for n in s["nodes"]])
        new["leaf"] = node
        return snapshot(new, action=params["action"])
    if method == "gg/run.start":
        s = get_session(params)
        if s.get("activeRunId"):
            raise Error(-32003, "the session is busy", "run_conflict")
        run = Run(conn, s, params["prompt"])
        RUNS[run.id] = run
        s["activeRunId"] = run.id
        record = Path(os.environ.get("GG_HOME", "/tmp")) / "fake_runs.jsonl"
        with open(record, "a") as fh:
            fh.write(json.dumps(params) + "\n")
        threading.Timer(0.01, run.main).start()
        return {"runId": run.id}
    if method in ("gg/run.cancel", "gg/run.approve", "gg/run.steer"):
        if method == "gg/run.steer":
            run = RUNS.get(get_session(params).get("activeRunId") or "")
        else:
            run = RUNS.get(params.get("runId", ""))
        if run is None or run.done:
            raise Error(-32002, "run not found", "run_not_found")
        with run.cond:
            if method == "gg/run.cancel":
                run.canceled = True
            elif method == "gg/run.steer":
                run.steers.append(params["text"])
            else:
                if params["approvalId"] in run.answers:
                    raise Error(-32004, "already answered", "approval_expired")
                run.answers[params["approvalId"]] = (params["allow"], params.get("scope", "once"))
            run.cond.notify_all()
        return {}
    raise Error(-32601, f"method not found: {method}", "method_not_found")


def serve(conn: Conn, read: Any) -> None:
    dec = FrameDecoder()
    while True:
        data = read()
        if not data:
            return
        for msg in dec.feed(data):
            method = msg.get("method")
            if method == "exit":
                return
            if method is None or "id" not in msg:
                continue
            try:
                with LOCK:
                    result = handle(conn, method, msg.get("params") or {})
                conn.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            except Error as e:
                conn.send(
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


def serve_socket(c: socket.socket) -> None:
    try:
        serve(Conn(c.sendall), lambda: c.recv(65536))
    finally:
        c.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stdio", action="store_true")
    ap.add_argument("--exit-on-stdin-eof", action="store_true")
    ap.add_argument("--workspace")
    ap.add_argument("--log-file")
    ap.add_argument("--idle-exit")
    args = ap.parse_args()
    if args.stdio:
        out = sys.stdout.buffer

        def write(b: bytes) -> None:
            out.write(b)
            out.flush()

        serve(Conn(write), lambda: os.read(0, 65536))
        os._exit(0)
    home = Path(os.environ["GG_HOME"])
    (home / "run").mkdir(parents=True, exist_ok=True)
    lock = open(home / "ggd.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("ggd is already running", file=sys.stderr)
        sys.exit(1)
    path = home / "run" / "ggd.sock"
    path.unlink(missing_ok=True)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen()
    disc = {
        "pid": os.getpid(),
        "socket": str(path),
        "ws": None,
        "http": None,
        "token": None,
        "version": "fake",
        "protocolVersion": "1.0",
        "startedAt": now(),
    }
    (home / "run" / "ggd.json").write_text(json.dumps(disc))
    import signal

    def stop(*_: Any) -> None:
        (home / "run" / "ggd.json").unlink(missing_ok=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    # A safety net for leaked test daemons: exit after a minute without a new connection.
    srv.settimeout(60)
    while True:
        try:
            c, _ = srv.accept()
        except TimeoutError:
            stop()
        c.settimeout(None)
        threading.Thread(target=serve_socket, args=(c,), daemon=True).start()


if __name__ == "__main__":
    main()
