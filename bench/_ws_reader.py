"""One benchmark WebSocket client in its own process: a raw-socket reader of gg/run.event.

    python bench/_ws_reader.py --port P --token T --role driver|sub [--batch] [--cpu-pid PID]

Run by bench/run_events.py, one process per client, so the daemon (not a shared client process)
is what the bench measures. Stdlib only, so it starts fast. The HTTP upgrade and the client's
few requests are done by hand; while the run streams it only recv()s big chunks and timestamps
them, and every frame is parsed and every sequence checked after the run.

Lines on stdin/stdout drive it: it prints `ready` once initialized; a driver then waits for
`start`, creates a session, starts the run and prints `run <id>`; a subscriber waits for
`run <id>`, subscribes from sequence 0 and prints `subscribed`. Each prints `streamed` once it has
the terminal event (or gave up) and then waits for a line (the bench reads the daemon's CPU in
between); at the end it prints one JSON line.
"""

from __future__ import annotations

import argparse
import base64
import gc
import itertools
import json
import os
import socket
import sys
import time
from typing import Any

TERMINAL_MARKERS = (b'"type":"run_completed"', b'"type":"run_failed"', b'"type":"run_canceled"')
DELTA_MARKER = b'"type":"text_delta"'
TERMINAL_TYPES = ("run_completed", "run_failed", "run_canceled")
# Nothing received for this long (after the stream started) means the tail was lost.
IDLE_GIVE_UP_S = 3.0
MAX_WAIT_S = 120.0
# After the terminal marker: read until the socket is quiet this long (the frame's last bytes).
TAIL_QUIET_S = 0.2
RECV_BYTES = 1 << 20


def masked_text_frame(payload: bytes) -> bytes:
    """A client text frame (clients must mask, RFC 6455 5.3)."""
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes((0x81, 0x80 | n))
    elif n < 65536:
        head = bytes((0x81, 0xFE)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 0xFF)) + n.to_bytes(8, "big")
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
    body = (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big") if n else b""
    return head + mask + body


def parse_frames(buf: bytes | bytearray, pos: int) -> tuple[list[tuple[int, int, int]], int]:
    """(opcode, payload start, payload end) of each whole server frame from pos; the new pos."""
    out = []
    n = len(buf)
    while pos + 2 <= n:
        b0, b1 = buf[pos], buf[pos + 1]
        if b1 & 0x80:
            raise ValueError("a server frame was masked")
        if not b0 & 0x80:
            raise ValueError("a fragmented message: ggd fragments only answers over 256 KiB")
        length, start = b1 & 0x7F, pos + 2
        if length == 126:
            if start + 2 > n:
                break
            length, start = int.from_bytes(buf[start : start + 2], "big"), start + 2
        elif length == 127:
            if start + 8 > n:
                break
            length, start = int.from_bytes(buf[start : start + 8], "big"), start + 8
        if start + length > n:
            break
        out.append((b0 & 0x0F, start, start + length))
        pos = start + length
    return out, pos


class Reader:
    """The socket, everything it received (with receive times) and a parse cursor."""

    def __init__(self, port: int, token: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        # (receive time, end offset in buf) per recv(); a frame's receive time is its last chunk's.
        self.chunks: list[tuple[float, int]] = []
        self.pos = 0
        self.ids = itertools.count(1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            data = self.sock.recv(65536)
            if not data:
                raise RuntimeError("the daemon closed the connection during the upgrade")
            head += data
        status, rest = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in status.split(b"\r\n", 1)[0] + b" ":
            raise RuntimeError(f"upgrade refused: {status[:200]!r}")
        self.buf += rest
        self.chunks.append((time.time(), len(self.buf)))

    def send(self, message: dict[str, Any]) -> None:
        """Send one JSON-RPC message as a masked text frame."""
        self.sock.sendall(masked_text_frame(json.dumps(message).encode()))

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """A request, parsing frames until its response (everything stays in buf for later)."""
        mid = next(self.ids)
        self.send({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            frames, self.pos = parse_frames(self.buf, self.pos)
            for op, a, b in frames:
                head = self.buf[a : min(b, a + 80)]
                if op != 1 or (head[:1] != b"[" and b"gg/run.event" in head):
                    continue  # an event (arrays may hold the answer: parsed)
                for msg in _messages(self.buf[a:b]):
                    if msg.get("id") == mid:
                        if "error" in msg:
                            raise RuntimeError(f"{method} failed: {msg['error']}")
                        return msg.get("result")
            self._recv_once()
        raise RuntimeError(f"no answer to {method}")

    def _recv_once(self) -> bytes:
        data = self.sock.recv(RECV_BYTES)
        if not data:
            raise RuntimeError("the daemon closed the connection")
        self.buf += data
        self.chunks.append((time.time(), len(self.buf)))
        return data

    def stream(self, cpu_pid: int | None) -> dict[str, Any]:
        """Receive until the terminal event (or idle); only timestamps chunks meanwhile."""
        from _proc import cpu_seconds  # bench/ is this script's sys.path[0]

        probes: dict[str, float] = {}
        own0 = time.process_time()
        sock, buf, chunks, recv = self.sock, self.buf, self.chunks, self.sock.recv
        sock.settimeout(IDLE_GIVE_UP_S)
        want_delta = cpu_pid is not None
        tail = bytes(buf[-64:])
        deadline = time.monotonic() + MAX_WAIT_S
        terminal_at = None
        try:
            while time.monotonic() < deadline:
                data = recv(RECV_BYTES)
                t = time.time()
                if not data:
                    break
                buf += data
                chunks.append((t, len(buf)))
                if want_delta and DELTA_MARKER in data:
                    probes["first_delta"] = cpu_seconds(cpu_pid)  # type: ignore[arg-type]
                    want_delta = False
                seen = tail + data
                if any(m in seen for m in TERMINAL_MARKERS):
                    terminal_at = t
                    if cpu_pid is not None:
                        probes["terminal"] = cpu_seconds(cpu_pid)
                    break
                tail = data[-64:]
            if terminal_at is not None:
                sock.settimeout(TAIL_QUIET_S)  # the terminal frame's last bytes, if split
                while data := recv(RECV_BYTES):
                    buf += data
                    chunks.append((time.time(), len(buf)))
        except TimeoutError:
            pass
        return {
            "probes": probes,
            "terminal_at": terminal_at,
            "own_cpu_s": time.process_time() - own0,
        }

    def events(self) -> tuple[list[tuple[float, dict[str, Any]]], int, int]:
        """(receive time in ms, params) of every gg/run.event; frame count; non-text frames."""
        frames, _ = parse_frames(self.buf, 0)
        ends = iter(self.chunks)
        t, end = next(ends)
        out: list[tuple[float, dict[str, Any]]] = []
        other = 0
        for op, a, b in frames:
            while b > end:
                t, end = next(ends)
            if op != 1:
                other += 1
                continue
            for msg in _messages(self.buf[a:b]):
                if msg.get("method") == "gg/run.event":
                    out.append((t * 1000, msg["params"]))
        return out, len(frames), other


def _messages(payload: bytes | bytearray) -> list[dict[str, Any]]:
    data = json.loads(payload)
    return data if isinstance(data, list) else [data]


def analyse(evs: list[tuple[float, dict[str, Any]]], subscribed_ms: float) -> dict[str, Any]:
    """Loss, order and duplicates over every sequence; live rate and latencies."""
    seqs = [e["sequence"] for _, e in evs]
    unique = set(seqs)
    terminal = next((e for _, e in reversed(evs) if e["type"] in TERMINAL_TYPES), None)
    final_seq = int(terminal["sequence"]) if terminal else max(seqs, default=0)
    deltas = [e["timestamp"] for _, e in evs if e["type"] == "text_delta"]
    start = float(deltas[0]) if deltas else 0.0
    streamed = [t for t, e in evs if e["timestamp"] >= start] if deltas else []
    span_s = (max(streamed) - start) / 1000 if streamed else 0.0
    return {
        "received": len(evs),
        "final_sequence": final_seq,
        "lost": final_seq - len(unique & set(range(1, final_seq + 1))),
        "duplicates": len(seqs) - len(unique),
        "out_of_order": sum(1 for a, b in itertools.pairwise(seqs) if b <= a),
        "got_terminal": terminal is not None,
        "terminal_timestamp": terminal["timestamp"] if terminal else None,
        "text_deltas": len(deltas),
        "first_delta_timestamp": start,
        "events_per_s": len(streamed) / span_s if span_s > 0 else 0.0,
        "latency_ms": [
            round(t - e["timestamp"], 2) for t, e in evs if e["timestamp"] >= subscribed_ms
        ],
    }


def main() -> int:
    """Connect, take part in the run as told on stdin, print one JSON line of results."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--role", choices=("driver", "sub"), required=True)
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--cpu-pid", type=int)
    args = ap.parse_args()
    gc.disable()  # a few MB of chunks; the collector would only add pauses to what is timed
    r = Reader(args.port, args.token)
    params: dict[str, Any] = {"processId": None, "capabilities": {}}
    if args.batch:
        params["initializationOptions"] = {"batchFrames": True}
    result = r.call("initialize", params)
    if args.batch and not result["capabilities"]["experimental"]["gg"].get("batchFrames"):
        raise RuntimeError("the daemon did not grant batchFrames")
    r.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    print("ready", flush=True)
    line = sys.stdin.readline().split()
    subscribed_ms = time.time() * 1000
    if args.role == "driver":
        sid = r.call("gg/session.create", {})["sessionId"]
        subscribed_ms = time.time() * 1000
        # The starting connection is subscribed to the run by gg/run.start itself.
        start = {"sessionId": sid, "prompt": "stream a long answer", "approvalMode": "yolo"}
        rid = r.call("gg/run.start", start)["runId"]
        print(f"run {rid}", flush=True)
    else:
        rid = line[1]
        r.call("gg/run.subscribe", {"runId": rid, "afterSequence": 0})
        print("subscribed", flush=True)
    got = r.stream(args.cpu_pid)
    # The bench reads the daemon's CPU now, before the driver's gg/run.get and the closes.
    print("streamed", flush=True)
    sys.stdin.readline()
    status = None
    if args.role == "driver":
        r.sock.settimeout(15)
        status = r.call("gg/run.get", {"runId": rid})["status"]
    r.sock.close()
    evs, n_frames, other = r.events()
    out = analyse(evs, subscribed_ms)
    out.update(got, frames=n_frames, other_frames=other, run_status=status, role=args.role)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
