"""A fake OpenAI-compatible /v1/embeddings endpoint on 127.0.0.1 (the real wire format).

Vectors are a deterministic hashed bag of words (so texts sharing words are near, and search by
meaning-ish works in tests); `dim` is fixed per server. Every request is recorded (model and
inputs) so a test can assert what was, and was not, sent to be embedded.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_WORD = re.compile(r"\w+")


def embed(text: str, dim: int) -> list[float]:
    """Unit vector of hashed lower-cased words."""
    v = [0.0] * dim
    for w in _WORD.findall(text.lower()):
        h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=4).digest(), "little")
        v[h % dim] += 1.0 if h & 1 << 31 else -1.0
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


class FakeEmbeddings:
    """Serves POST /v1/embeddings from a background thread."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Condition()
        # cleared: requests are recorded, then held until open() (a test proves the daemon
        # keeps serving while an index run waits on its embeddings)
        self.gate = threading.Event()
        self.gate.set()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                with fake._lock:
                    fake.requests.append({"path": self.path, "model": body.get("model"),
                                          "input": inputs})  # fmt: skip
                    fake._lock.notify_all()
                fake.gate.wait(30)
                if self.path != "/v1/embeddings":
                    self.send_response(404)
                    self.end_headers()
                    return
                data = [
                    {"object": "embedding", "index": i, "embedding": embed(t, fake.dim)}
                    for i, t in enumerate(inputs)
                ]
                raw = json.dumps({"object": "list", "data": data, "model": body.get("model")})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw.encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT/v1"""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def inputs(self) -> list[str]:
        """Every text sent to be embedded so far."""
        with self._lock:
            return [t for r in self.requests for t in r["input"]]

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> None:
        """Block until at least n requests arrived."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.requests) >= n, timeout=timeout):
                raise TimeoutError(f"fake embeddings got {len(self.requests)} requests, wanted {n}")

    def clear(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self.requests.clear()

    def close(self) -> None:
        """Stop serving."""
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()
