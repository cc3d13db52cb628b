"""Loopback HTTP servers for the browser tests: routes of (status, headers, body), every hit kept.

A test makes one of them "public" with GG_BROWSER_TEST_ALLOW=127.0.0.1:PORT (the daemon's exact,
environment-only allowance); any other port on 127.0.0.1 stays private and must never be hit.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = tuple[int, dict[str, str], bytes]


class Server:
    """A loopback HTTP server; unknown paths get `fallback`; `hits` lists every request path."""

    def __init__(self, routes: dict[str, Route], fallback: Route = (404, {}, b"nope")) -> None:
        self.routes = routes
        self.fallback = fallback
        self.hits: list[str] = []
        self.hit = threading.Event()
        # path -> (reached, release): the answer waits until the test sets `release`
        self.gates: dict[str, tuple[threading.Event, threading.Event]] = {}
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def _answer(self) -> None:
                outer.hits.append(self.path)
                outer.hit.set()
                if self.path in outer.gates:
                    reached, release = outer.gates[self.path]
                    reached.set()
                    release.wait(60)
                status, headers, body = outer.routes.get(self.path, outer.fallback)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_HEAD = do_PUT = do_OPTIONS = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def gate(self, path: str) -> tuple[threading.Event, threading.Event]:
        """Hold the answer to `path` until the second event is set; the first says it was asked."""
        self.gates[path] = (threading.Event(), threading.Event())
        return self.gates[path]

    def close(self) -> None:
        for _reached, release in self.gates.values():
            release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
