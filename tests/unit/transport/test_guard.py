"""The pre-parse guard: nesting is measured without recursion, and only real JSON is accepted."""

from __future__ import annotations

import json
import random

from ggd.transport.guard import MAX_DEPTH, Rejected, nesting_depth, parse


def _nested(depth: int, rng: random.Random) -> object:
    value: object = rng.choice([1, "s", None, True])
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k[": value, "}": 0}
    return value


def test_depth_is_exact_for_valid_json_and_ignores_brackets_in_strings() -> None:
    rng = random.Random(1234)
    for _ in range(300):
        depth = rng.randrange(0, 200)
        body = json.dumps(_nested(depth, rng)).encode()
        measured = nesting_depth(body)
        if measured > MAX_DEPTH or depth > MAX_DEPTH:
            assert measured > MAX_DEPTH and depth > MAX_DEPTH
        else:
            assert measured <= MAX_DEPTH
        assert isinstance(parse(body), Rejected) == (depth > MAX_DEPTH)


def test_deep_or_truncated_texts_are_refused_before_json_loads_sees_them() -> None:
    for body in (b"[" * 100_000, b'{"a":' * 5000, b"[" * 1000 + b"]" * 1000, b"]" * 10 + b"[" * 99):
        got = parse(body)
        assert isinstance(got, Rejected) and got.code in (-32600, -32700)
    assert parse(b"[" * 10_000) == Rejected(
        -32600, "invalid_request", f"invalid request: nesting deeper than {MAX_DEPTH} levels"
    )
    assert parse(b'["' + b"[" * 10_000 + b'"]') == ["[" * 10_000]


def test_only_strict_utf8_json_is_accepted() -> None:
    for body in (
        b"NaN",
        b"[Infinity]",
        b'{"a": -Infinity}',
        b"\xff",
        b'"\xed\xa0\x80"',
        b'"\\udc00"',
    ):
        got = parse(body)
        assert isinstance(got, Rejected) and got.code == -32700, body
    assert parse(b'"\\ud83d\\ude00"') == "\U0001f600"
    assert parse('"caf\u00e9"'.encode()) == "caf\u00e9"
