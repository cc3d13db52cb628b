"""GgProtocol sends a dict result without pygls' cattrs copy, and the bytes stay pygls' own."""

from __future__ import annotations

from typing import Any

import pytest
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from ggd.rpc import GgProtocol
from ggd.transport.endpoint import _shared_converter


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


RESULTS: list[Any] = [
    {},
    {"sessionId": "s_1", "messages": [{"id": "e1", "role": "user", "content": "héllo ☃ 🚀"}]},
    {"tree": [{"id": "a", "depth": 0, "active": True, "text": 'tab\tquote" nl\\n'}], "n": None},
    {"nested": {"list": [1, 2.5, -3, True, False, None, "\u2028", {"deep": []}]}, "big": 2**70},
    {"lone": "\ud800 surrogate", "ctl": "\x00\x1f"},
]


@pytest.mark.parametrize("headers", [True, False])
@pytest.mark.parametrize("msg_id", [7, "req-☃"])
def test_a_dict_result_is_sent_as_pygls_would_send_it(headers: bool, msg_id: Any) -> None:
    fast, fast_out = _protocol(headers)
    slow, slow_out = _protocol(headers)
    for result in RESULTS:
        fast._send_response(msg_id, result)
        LanguageServerProtocol._send_response(slow, msg_id, result)
    assert fast_out.frames == slow_out.frames
    assert len(fast_out.frames) == len(RESULTS)


def test_other_results_take_pygls_path_unchanged() -> None:
    fast, fast_out = _protocol(True)
    slow, slow_out = _protocol(True)
    for result in (None, [1, "a"], "text", 3):
        fast._send_response(1, result)
        LanguageServerProtocol._send_response(slow, 1, result)
    assert fast_out.frames == slow_out.frames
