"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1: the only model tests use.

    with FakeModel([{"text": "hi"}, {"toolCalls": [{"name": "read", "arguments": {"path": "a"}}]}]) as fm:
        provider = OpenAICompatProvider(fm.base_url, "k", name="fake")
        ...
        fm.wait_for_requests(2, timeout=5)

Or, for a daemon subprocess: `python -m tests.fakes.fake_openai --script FILE [--port 0]` prints the
base URL on its first stdout line and serves until SIGTERM/SIGINT. Step format: ggd/providers/scripted.py
and docs/providers.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import select
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ggd.providers.scripted import Reply, load_script, plan_reply

__all__ = ["FakeModel"]


class FakeModel:
    """Serves one scripted reply per chat-completions request, in order, from a background thread."""

    def __init__(
        self,
        script: list[dict[str, Any]] | dict[str, Any] | str | Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        models: list[str] | None = None,
        zero_latency: bool = False,
    ) -> None:
        self._steps = collections.deque(load_script(script))
        self._host = host
        self._port = port
        self.models = models or ["fake-model"]
        self.zero_latency = zero_latency
        self.requests: list[dict[str, Any]] = []
        self.raw_requests: list[bytes] = []  # the bodies as sent, for prefix measurements
        self.request_headers: list[dict[str, str]] = []
        self.mismatches: list[str] = []
        self.model_list_requests = 0  # GET /v1/models served
        self._served = 0
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------------
    def start(self) -> FakeModel:
        """Bind and serve in a daemon thread."""
        fake = self

        class Handler(_Handler):
            model = fake

        self._server = ThreadingHTTPServer((self._host, self._port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging streams are released."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """ "http://127.0.0.1:PORT/v1"."""
        assert self._server is not None, "FakeModel is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.api_root}"

    @property
    def remaining(self) -> int:
        """Script steps not yet served."""
        with self._cond:
            return len(self._steps)

    def add_steps(self, steps: list[dict[str, Any]]) -> None:
        """Append steps to the script while running."""
        expanded = load_script(steps)
        with self._cond:
            self._steps.extend(expanded)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Block until at least n chat requests arrived; raise TimeoutError otherwise."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= n, timeout=timeout):
                raise TimeoutError(f"fake model got {len(self.requests)} requests, wanted {n}")
            return list(self.requests)

    # request handling (called from handler threads) -------------------------------------------
    # what other wire kinds' fakes (subclasses) change -----------------------------------------
    api_root = "/v1"

    def accepts(self, path: str) -> bool:
        """True for the path of a model request."""
        return path == "/v1/chat/completions"

    def plan(self, step: dict[str, Any], body: dict[str, Any], seq: int, path: str) -> Reply:
        """The reply to request #seq for one script step."""
        return plan_reply(step, body, seq=seq)

    def model_listing(self) -> dict[str, Any]:
        """The body of GET {api_root}/models."""
        data = [{"id": m, "object": "model", "owned_by": "fake"} for m in self.models]
        return {"object": "list", "data": data}

    def _next(
        self, body: dict[str, Any], headers: dict[str, str], raw: bytes = b"", path: str = ""
    ) -> Reply:
        with self._cond:
            self.request_headers.append(headers)
            self.requests.append(body)
            self.raw_requests.append(raw)
            seq = self._served
            self._served += 1
            step = self._steps.popleft() if self._steps else None
            self._cond.notify_all()
        if step is None:
            msg = f"script exhausted: request #{seq + 1} has no scripted step"
            return _json(500, {"error": {"message": msg, "type": "fake_script_exhausted"}})
        reply = self.plan(step, body, seq, path)
        if reply.mismatch:
            with self._cond:
                self.mismatches.append(reply.mismatch)
        if self.zero_latency:
            reply.delay_s = 0.0
        return reply

    def _snapshot(self) -> dict[str, Any]:
        with self._cond:
            return {
                "requests": list(self.requests),
                "mismatches": list(self.mismatches),
                "remaining": len(self._steps),
            }


def _json(status: int, obj: Any) -> Reply:
    return Reply(
        status=status, headers={"Content-Type": "application/json"}, body=json.dumps(obj).encode()
    )


class _Handler(BaseHTTPRequestHandler):
    model: FakeModel
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # many small SSE writes; Nagle would add ~40 ms each

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == f"{self.model.api_root}/models":
            with self.model._cond:
                self.model.model_list_requests += 1
            self._send(_json(200, self.model.model_listing()))
        elif path == "/_fake/requests":
            self._send(_json(200, self.model._snapshot()))
        else:
            self._send(_json(404, {"error": {"message": "not found"}}))

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.model.accepts(path):
            self._send(_json(404, {"error": {"message": "not found"}}))
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(_json(400, {"error": {"message": "body is not JSON"}}))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        reply = self.model._next(
            body if isinstance(body, dict) else {"_raw": body}, headers, raw, self.path
        )
        if reply.streaming:
            self._stream(reply)
        else:
            self._send(reply)

    def _send(self, reply: Reply) -> None:
        body = reply.body or b""
        self.send_response(reply.status)
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, reply: Reply) -> None:
        self.close_connection = True
        self.send_response(200)
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        stopping = self.model._stopping
        try:
            if self.model.zero_latency and reply.torn_after is None and not reply.hang:
                self._chunk(b"".join(reply.frames))
            elif reply.paced and reply.delay_s > 0:
                if not self._paced(reply.frames, reply.delay_s, stopping):
                    return
            else:
                for i, frame in enumerate(reply.frames):
                    if i and reply.delay_s and stopping.wait(reply.delay_s):
                        return
                    self._chunk(frame)
            if reply.torn_after is not None:
                # Drop the connection without the terminating chunk: an incomplete body.
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if reply.hang:
                self._hang()
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            return  # the client went away; nothing to clean up

    def _paced(self, frames: list[bytes], period: float, stopping: threading.Event) -> bool:
        """Frame i at start + i*period; frames already due go together. False: stopping."""
        start = time.monotonic()
        i = 0
        while i < len(frames):
            wait = start + i * period - time.monotonic()
            if wait > 0 and stopping.wait(wait):
                return False
            due = int((time.monotonic() - start) / period) + 1
            j = min(len(frames), max(i + 1, due))
            self._chunk(b"".join(frames[i:j]))
            i = j
        return True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _hang(self) -> None:
        """Keep the stream open until the client disconnects or the server stops."""
        sock = self.connection
        while not self.model._stopping.is_set():
            readable, _, _ = select.select([sock], [], [], 0.05)
            if readable and not sock.recv(4096):
                return  # EOF: the client closed its side


def main(argv: list[str] | None = None, fake_class: type[FakeModel] | None = None) -> int:
    """Run the fake server from the command line until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(description="scripted fake model server")
    parser.add_argument("--script", required=True, help="JSON script file")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--zero-latency", action="store_true")
    args = parser.parse_args(argv)
    done = threading.Event()
    fake = (fake_class or FakeModel)(
        args.script, host=args.host, port=args.port, zero_latency=args.zero_latency
    )
    fake.start()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    print(fake.base_url, flush=True)
    try:
        done.wait()
    finally:
        fake.stop()
        snap = fake._snapshot()
        print(
            json.dumps({"requests": len(snap["requests"]), "mismatches": snap["mismatches"]}),
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
