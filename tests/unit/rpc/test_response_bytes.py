"""GgProtocol encodes a dict result itself (no cattrs copy): the same JSON pygls would send."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from ggd.rpc import GgProtocol
from ggd.transport.endpoint import _shared_converter
from ggd.transport.framing import ContentLengthDecoder


class _Capture:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.frames.append(data)

    def close(self) -> None:
        pass


def _protocol(headers: bool) -> tuple[GgProtocol, _Capture]:
    server = LanguageServer(
        "ggd", "0", protocol_cls=GgProtocol, converter_factory=_shared_converter
    )
    proto = server.protocol
    assert isinstance(proto, GgProtocol)
    out = _Capture()
    proto.set_writer(out, include_headers=headers)
    return proto, out


def _bodies(frames: list[bytes], headers: bool) -> list[bytes]:
    if not headers:
        return frames
    decoder = ContentLengthDecoder()
    out = [m for f in frames for m in decoder.feed(f)]
    assert all(isinstance(m, bytes) for m in out)  # every Content-Length counts bytes
    return out  # type: ignore[return-value]


RESULTS: list[Any] = [
    {},
    {"sessionId": "s_1", "messages": [{"id": "e1", "role": "user", "content": "héllo ☃ 🚀"}]},
    {"tree": [{"id": "a", "depth": 0, "active": True, "text": 'tab\tquote" nl\\n'}], "n": None},
    {"nested": {"list": [1, 2.5, -3, True, False, None, "\u2028", {"deep": []}]}, "big": 2**70},
    {"ctl": "\x00\x1f\x7f", "long": "x" * 70_000},
]


@pytest.mark.parametrize("headers", [True, False])
@pytest.mark.parametrize("msg_id", [7, "req-☃"])
def test_a_dict_result_is_the_json_pygls_would_send(headers: bool, msg_id: Any) -> None:
    fast, fast_out = _protocol(headers)
    slow, slow_out = _protocol(headers)
    for result in RESULTS:
        fast._send_response(msg_id, result)
        LanguageServerProtocol._send_response(slow, msg_id, result)
    got, want = _bodies(fast_out.frames, headers), _bodies(slow_out.frames, headers)
    assert len(got) == len(want) == len(RESULTS)
    for a, b in zip(got, want, strict=True):
        assert list(json.loads(a).items()) == list(json.loads(b).items())  # value and key order
        assert json.loads(a) == json.loads(b)
    if headers:
        head = fast_out.frames[0].split(b"\r\n\r\n")[0]
        assert head.endswith(b"\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8")


class _Plain:
    """An object pygls serialises by its __dict__ and msgspec refuses."""

    def __init__(self) -> None:
        self.a = 1


def test_what_msgspec_refuses_goes_out_byte_for_byte_as_pygls_sends_it() -> None:
    fast, fast_out = _protocol(True)
    slow, slow_out = _protocol(True)
    for result in ({"lone": "\ud800 surrogate"}, {"obj": _Plain()}):
        LanguageServerProtocol._send_response(slow, 1, result)
        fast._send_response(1, result)
    assert fast_out.frames == slow_out.frames
    assert len(fast_out.frames) == 2 and b'"obj": {"a": 1}' in fast_out.frames[1]


def test_a_non_finite_float_is_sent_as_null_not_as_invalid_json() -> None:
    fast, out = _protocol(False)
    fast._send_response(1, {"f": float("inf")})
    assert json.loads(out.frames[0], parse_constant=lambda c: pytest.fail(c)) == {
        "id": 1,
        "jsonrpc": "2.0",
        "result": {"f": None},
    }


def test_other_results_take_pygls_path_unchanged() -> None:
    fast, fast_out = _protocol(True)
    slow, slow_out = _protocol(True)
    for result in (None, [1, "a"], "text", 3):
        fast._send_response(1, result)
        LanguageServerProtocol._send_response(slow, 1, result)
    assert fast_out.frames == slow_out.frames


def test_a_result_with_raw_json_parts_is_sent_as_the_decoded_one() -> None:
    # A snapshot spliced from its derived file carries msgspec.Raw lists (ggd.app.snapshot_file)
    parts = {"messages": [{"id": "e1", "content": "héllo ☃"}], "tree": [{"id": "e1"}]}
    for extra in ({"name": "ok"}, {"name": "lone \udcff"}):  # msgspec's path, then pygls'
        fast, fast_out = _protocol(True)
        slow, slow_out = _protocol(True)
        raw = {k: msgspec.Raw(msgspec.json.encode(v)) for k, v in parts.items()}
        fast._send_response(1, {**extra, **raw})
        fast._send_response(2, {**extra, **parts})
        LanguageServerProtocol._send_response(slow, 1, {**extra, **parts})
        assert fast_out.frames[0] == fast_out.frames[1].replace(b'"id":2', b'"id":1').replace(
            b'"id": 2', b'"id": 1'
        )
        if "\udcff" in extra["name"]:
            assert fast_out.frames[0] == slow_out.frames[0]  # pygls' own bytes
