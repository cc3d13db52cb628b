"""gg/* answers are encoded once by ggd.rpc.responses: the JSON value json.dumps would give."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from ggd.rpc.pieces import Pieces
from ggd.rpc.responses import clean_body, encode_response


def _reference(msg_id: Any, result: Any) -> bytes:
    return json.dumps({"id": msg_id, "jsonrpc": "2.0", "result": result}).encode()


def _bytes(body: bytes | Pieces) -> bytes:
    return bytes(body)


RESULTS: list[Any] = [
    {},
    {"sessionId": "s_1", "messages": [{"id": "e1", "role": "user", "content": "héllo ☃ 🚀"}]},
    {"tree": [{"id": "a", "depth": 0, "active": True, "text": 'tab\tquote" nl\\n'}], "n": None},
    {"nested": {"list": [1, 2.5, -3, True, False, None, "\u2028", {"deep": []}]}, "big": 2**70},
    {"ctl": "\x00\x1f\x7f", "long": "x" * 70_000},
    None,
    [1, "a"],
    "text",
    3,
]


@pytest.mark.parametrize("msg_id", [7, "req-☃"])
def test_a_result_is_the_json_value_json_dumps_gives(msg_id: Any) -> None:
    for result in RESULTS:
        got = json.loads(_bytes(encode_response(msg_id, result)))
        want = json.loads(_reference(msg_id, result))
        assert got == want
        if isinstance(result, dict):
            assert list(got["result"]) == list(want["result"])  # key order kept


def test_what_msgspec_refuses_goes_out_through_json_dumps() -> None:
    body = encode_response(1, {"lone": "\ud800 surrogate"})
    assert body == _reference(1, {"lone": "\ud800 surrogate"})


def test_a_non_finite_float_is_sent_as_null_not_as_invalid_json() -> None:
    body = _bytes(encode_response(1, {"f": float("inf")}))
    assert json.loads(body, parse_constant=lambda c: pytest.fail(c)) == {
        "id": 1,
        "jsonrpc": "2.0",
        "result": {"f": None},
    }


def test_a_result_with_raw_json_parts_is_sent_as_the_decoded_one() -> None:
    # A snapshot spliced from its derived file carries msgspec.Raw lists (ggd.app.snapshot_file)
    parts = {"messages": [{"id": "e1", "content": "héllo ☃"}], "tree": [{"id": "e1"}]}
    for extra in ({"name": "ok"}, {"name": "lone \udcff"}):  # msgspec's path, then json.dumps'
        raw = {k: msgspec.Raw(msgspec.json.encode(v)) for k, v in parts.items()}
        got = _bytes(encode_response(1, {**extra, **raw}))
        assert json.loads(got) == json.loads(_reference(1, {**extra, **parts}))


def test_pygls_error_bodies_lose_their_traceback() -> None:
    leaky = {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {
            "code": -32602,
            "message": "boom at /usr/lib/python3/site-packages/x.py",
            "data": {"traceback": ["File /usr/lib/python3/x.py"]},
        },
    }
    cleaned = json.loads(clean_body(json.dumps(leaky).encode()))
    assert cleaned["id"] == 3
    assert cleaned["error"] == {
        "code": -32603,
        "message": "internal error; see the daemon log",
        "data": {"code": "internal_error", "retryable": False},
    }
    ours = {"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "m", "data": {}}}
    assert json.loads(clean_body(json.dumps(ours).encode()))["error"]["data"]["code"] == (
        "invalid_params"
    )
    ok = json.dumps({"jsonrpc": "2.0", "id": 5, "result": {"error": 1}}).encode()
    assert clean_body(ok) == ok
