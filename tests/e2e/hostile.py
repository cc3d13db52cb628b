"""A seeded generator of hostile JSON-RPC messages, each with the answer the contract requires.

Every case is a message body plus its expectation: a reply with a given code to a given id, a
reply with id null (the id could not be read), or no reply at all (notifications). The classes
follow issue 10: nesting, bad ids, bad UTF-8, huge numbers, wrong types, unknown methods,
notifications with ids, truncated messages, odd Content-Length headers and oversized messages.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

NO_REPLY = "none"


@dataclass(frozen=True)
class Case:
    """One hostile message and what the daemon must answer."""

    kind: str
    body: bytes
    # None: no reply; otherwise (id or None, JSON-RPC code, data.code symbol or None for success)
    expect: tuple[Any, int, str] | None
    header: bytes | None = None  # stream transports: a recoverable odd header block


SYMBOL = {
    -32700: "parse_error",
    -32600: "invalid_request",
    -32601: "method_not_found",
    -32602: "invalid_params",
    -32001: "session_not_found",
    -32002: "run_not_found",
}


def _msg(**fields: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **fields}, separators=(",", ":")).encode()


class Hostile:
    """Cases drawn from a seeded random.Random; `framed` adds odd Content-Length headers."""

    def __init__(self, seed: int, *, framed: bool) -> None:
        self.rng = random.Random(seed)
        self.framed = framed
        self.n = 0
        self.makers: list[Callable[[], Case]] = [
            self.nesting,
            self.bad_id,
            self.bad_utf8,
            self.huge_number,
            self.wrong_type,
            self.unknown_method,
            self.notification_with_id,
            self.request_as_notification,
            self.truncated,
            self.not_an_object,
            self.bad_envelope,
            self.client_response,
            self.missing_target,
            self.odd_header,
        ]

    def next_id(self) -> str:
        """A fresh string id, so every reply can be matched."""
        self.n += 1
        return f"h{self.n}"

    def case(self) -> Case:
        """One random hostile case."""
        return self.rng.choice(self.makers)()

    def _word(self, n: int = 8) -> str:
        return "".join(self.rng.choice(string.ascii_letters) for _ in range(n))

    # -- the classes ----------------------------------------------------------------------------

    def nesting(self) -> Case:
        depth = self.rng.choice([65, 100, 1000, 3000, self.rng.randrange(65, 5000)])
        opener, closer = self.rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
        inner = opener * depth + b"1" + closer * depth
        if self.rng.random() < 0.3:
            inner = opener * depth  # truncated as well: still refused for its depth
        mid = self.next_id()
        body = b'{"jsonrpc":"2.0","id":"' + mid.encode() + b'","method":"gg/session.list",'
        body += b'"params":{"x":' + inner + b"}}"
        return Case("nesting", body, (None, -32600, "invalid_request"))

    def bad_id(self) -> Case:
        raw = self.rng.choice(
            [
                b"{}",
                b'{"id":1}',
                b"[]",
                b"[1,2]",
                b"true",
                b"false",
                b"null",
                b"1.5",
                b"-0.0",
                b"1e3",
                b"9007199254740992",
                b"-9007199254740992",
                b"1" + b"0" * self.rng.randrange(17, 300),
                b'"' + b"i" * self.rng.randrange(257, 2000) + b'"',
            ]
        )
        method = self.rng.choice([b"gg/system.info", b"gg/session.list", b"initialize", b"nope"])
        body = b'{"jsonrpc":"2.0","id":' + raw + b',"method":"' + method + b'"}'
        if self.rng.random() < 0.3:  # NaN and Infinity are not JSON at all
            const = self.rng.choice([b"NaN", b"Infinity", b"-Infinity"])
            body = b'{"jsonrpc":"2.0","id":' + const + b',"method":"gg/system.info"}'
            return Case("bad_id", body, (None, -32700, "parse_error"))
        return Case("bad_id", body, (None, -32600, "invalid_request"))

    def bad_utf8(self) -> Case:
        mid = self.next_id()
        if self.rng.random() < 0.4:
            # a lone surrogate escape: valid JSON syntax, not encodable text
            esc = self.rng.choice(["\\ud800", "\\udfff", "\\udbff x", "\\ude00\\ud83d"])
            body = (
                '{"jsonrpc":"2.0","id":"' + mid + '","method":"gg/session.create",'
                '"params":{"name":"' + esc + '"}}'
            ).encode()
            return Case("bad_utf8", body, (None, -32700, "parse_error"))
        bad = self.rng.choice(
            [b"\xff", b"\xfe\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80"]
        )
        body = b'{"jsonrpc":"2.0","id":"' + mid.encode() + b'","method":"gg/session.create",'
        body += b'"params":{"name":"x' + bad + b'"}}'
        return Case("bad_utf8", body, (None, -32700, "parse_error"))

    def huge_number(self) -> Case:
        mid = self.next_id()
        choice = self.rng.randrange(4)
        if choice == 0:
            num = b"1e400"  # parses as inf: not an integer
        elif choice == 1:
            num = b"9" * self.rng.randrange(20, 4000)  # an integer, far past the limit
        elif choice == 2:
            num = b"-" + b"9" * self.rng.randrange(20, 400)
        else:
            num = b"9" * self.rng.randrange(4400, 8000)  # more digits than Python parses
            body = b'{"jsonrpc":"2.0","id":"' + mid.encode() + b'","method":"gg/session.list",'
            body += b'"params":{"limit":' + num + b"}}"
            return Case("huge_number", body, (None, -32700, "parse_error"))
        body = b'{"jsonrpc":"2.0","id":"' + mid.encode() + b'","method":"gg/session.list",'
        body += b'"params":{"limit":' + num + b"}}"
        return Case("huge_number", body, (mid, -32602, "invalid_params"))

    def wrong_type(self) -> Case:
        mid = self.next_id()
        method, params = self.rng.choice(
            [
                ("gg/session.list", {"limit": "5"}),
                ("gg/session.list", {"limit": True}),
                ("gg/session.list", {"limit": 5.5}),
                ("gg/session.list", {"limit": None}),
                ("gg/session.list", {"cursor": 7}),
                ("gg/session.list", {"unknownField": 1}),
                ("gg/session.create", {"name": ["x"]}),
                ("gg/session.get", {"sessionId": 1}),
                ("gg/session.get", {}),
                ("gg/run.wait", {"runId": "r", "afterSequence": "0"}),
                ("gg/run.wait", {"runId": "r", "afterSequence": -1}),
                ("gg/run.approve", {"runId": "r", "approvalId": "a", "allow": "yes"}),
                ("gg/run.start", {"sessionId": "s", "prompt": 5}),
                ("gg/session.list", [1, 2]),
                # served for plain LSP clients (ggd.rpc.editor): a command must be a string
                ("workspace/executeCommand", {"command": 5}),
                ("workspace/executeCommand", {"command": "gg.ask", "arguments": [{"prompt": 1}]}),
                ("gg/system.info", {"x": {"y": [1, 2, {"z": None}]}}),
            ]
        )
        return Case(
            "wrong_type",
            _msg(id=mid, method=method, params=params),
            (mid, -32602, "invalid_params"),
        )

    def unknown_method(self) -> Case:
        mid = self.next_id()
        method = self.rng.choice(
            [
                "gg/" + self._word(),
                "gg/session." + self._word(5),
                "textDocument/hover",
                "textDocument/definition",
                "workspace/symbol",
                "$/" + self._word(4),
                "rpc.discover",
                "",
                self._word(self.rng.randrange(1, 5000)),
                "GG/SYSTEM.INFO",
                "gg/system.info ",
            ]
        )
        return Case(
            "unknown_method",
            _msg(id=mid, method=method, params={}),
            (mid, -32601, "method_not_found"),
        )

    def notification_with_id(self) -> Case:
        mid = self.next_id()
        method = self.rng.choice(["initialized", "exit", "$/cancelRequest", "$/setTrace"])
        params = self.rng.choice([{}, {"id": 1}, {"value": "off"}, None])
        fields: dict[str, Any] = {"id": mid, "method": method}
        if params is not None:
            fields["params"] = params
        return Case("notification_with_id", _msg(**fields), (mid, -32600, "invalid_request"))

    def request_as_notification(self) -> Case:
        method, params = self.rng.choice(
            [
                ("gg/session.create", {"name": "never"}),
                ("gg/system.info", None),
                ("gg/nothing", {}),
                ("textDocument/didOpen", {"textDocument": {"uri": "file:///x"}}),
                ("$/cancelRequest", {"id": self.rng.randrange(10**6)}),
                ("$/cancelRequest", {"id": {"a": 1}}),
                ("$/cancelRequest", "x"),
                ("$/setTrace", {"value": 3}),
                ("initialized", {"x": 1}),
                ("gg/run.cancel", {"runId": "r_1"}),
            ]
        )
        fields: dict[str, Any] = {"method": method}
        if params is not None:
            fields["params"] = params
        return Case("request_as_notification", _msg(**fields), None)

    def truncated(self) -> Case:
        mid = self.next_id()
        full = _msg(id=mid, method="gg/session.list", params={"limit": 3, "cursor": self._word()})
        cut = self.rng.randrange(1, len(full) - 1)
        body = full[:cut]
        if self.rng.random() < 0.3:
            body = full + self.rng.choice([b"x", b"}", b",", b" {}", b"\x00"])  # trailing garbage
        return Case("truncated", body, (None, -32700, "parse_error"))

    def not_an_object(self) -> Case:
        body = self.rng.choice(
            [
                b"[]",
                b"[1]",
                b"[" + _msg(id=self.next_id(), method="gg/system.info") + b"]",
                b"1",
                b'"x"',
                b"null",
                b"true",
                b"-0",
                b"[[[]]]",
            ]
        )
        return Case("not_an_object", body, (None, -32600, "invalid_request"))

    def bad_envelope(self) -> Case:
        mid = self.next_id()
        variant = self.rng.randrange(5)
        if variant == 0:
            body = json.dumps({"jsonrpc": "1.0", "id": mid, "method": "gg/system.info"}).encode()
        elif variant == 1:
            body = json.dumps({"id": mid, "method": "gg/system.info"}).encode()
        elif variant == 2:
            body = json.dumps({"jsonrpc": "2.0", "id": mid, "method": 5}).encode()
        elif variant == 3:
            body = json.dumps({"jsonrpc": 2.0, "id": mid, "method": "gg/system.info"}).encode()
        else:
            params = self.rng.choice(["x", 5, True])
            body = _msg(id=mid, method="gg/system.info", params=params)
        return Case("bad_envelope", body, (mid, -32600, "invalid_request"))

    def client_response(self) -> Case:
        mid = self.next_id()
        if self.rng.random() < 0.5:  # a response to nothing: ignored
            fields = self.rng.choice(
                [{"result": 1}, {"result": None}, {"error": {"code": 1, "message": "x"}}]
            )
            return Case("client_response", _msg(id=mid, **fields), None)
        fields = self.rng.choice([{"result": 1, "error": {"code": 1}}, {}])
        return Case("client_response", _msg(id=mid, **fields), (mid, -32600, "invalid_request"))

    def missing_target(self) -> Case:
        mid = self.next_id()
        method, params, code = self.rng.choice(
            [
                ("gg/session.get", {"sessionId": "s_" + self._word()}, -32001),
                ("gg/run.get", {"runId": "r_" + self._word()}, -32002),
            ]
        )
        return Case(
            "missing_target", _msg(id=mid, method=method, params=params), (mid, code, SYMBOL[code])
        )

    def odd_header(self) -> Case:
        mid = self.next_id()
        body = _msg(id=mid, method="gg/nothing." + self._word(3))
        n = len(body)
        header = self.rng.choice(
            [
                b"content-length: %d\r\n\r\n" % n,
                b"Content-Length:%d\r\n\r\n" % n,
                b"Content-Length:   %d   \r\n\r\n" % n,
                b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n"
                % n,
                b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (n, n),
                b"X-Whatever: %s\r\nContent-Length: %d\r\n\r\n" % (self._word(200).encode(), n),
            ]
        )
        return Case(
            "odd_header",
            body,
            (mid, -32601, "method_not_found"),
            header=header if self.framed else None,
        )

    def oversized(self) -> Case:
        """A body over the 4 MiB limit (not in the random mix: a few are sent on purpose)."""
        mid = self.next_id()
        pad = "x" * (4 * 1024 * 1024 + 1)
        body = _msg(id=mid, method="gg/session.create", params={"name": pad})
        return Case("oversized", body, (None, -32600, "message_too_large"))


# Stream framings that cannot be resynchronised: each gets a -32700 reply and the connection ends.
FATAL_HEADERS: list[bytes] = [
    b"Content-Type: x\r\n\r\n{}",
    b"Content-Length: -5\r\n\r\n{}",
    b"Content-Length: abc\r\n\r\n{}",
    b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    b"no colon here\r\n\r\n{}",
    b"X" * 9000,
]
