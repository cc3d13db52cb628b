"""The msgspec fast path of codec.parse reads every file exactly as the stdlib paths do."""

from __future__ import annotations

import json
import math

import pytest

from ggd.session import Entry
from ggd.session.codec import encode_line, parse

from .test_codec import HEADER, entry


def lines(*raw: bytes) -> bytes:
    return encode_line(HEADER) + b"".join(r + b"\n" for r in raw)


def test_json_msgspec_refuses_is_still_read_the_stdlib_way() -> None:
    # A lone surrogate escape and a float overflow: msgspec refuses both, the stdlib reads them.
    surrogate = encode_line(entry("a", None, text="x\ud800y")).rstrip(b"\n")
    huge = b'{"type":"usage","id":"b","parentId":"a","timestamp":7,"data":{"n":1e400}}'
    p = parse(lines(surrogate, huge))
    assert p.entries[0] == Entry("message", "a", None, 7, {"text": "x\ud800y"})
    assert math.isinf(p.entries[1].data["n"]) and not p.torn


@pytest.mark.parametrize("ts", [b"7.0", b"true", b'"7"'])
def test_a_timestamp_that_is_not_an_int_is_damage(ts: bytes) -> None:
    bad = b'{"type":"message","id":"b","parentId":"a","timestamp":' + ts + b',"data":{}}'
    good = encode_line(entry("a", None)).rstrip(b"\n")
    p = parse(lines(good, bad, good.replace(b'"a"', b'"c"')))
    assert p.damaged == ["line 3: entry has a field of the wrong type"]
    assert [e.id for e in p.entries] == ["a", "c"]


def test_two_values_on_one_line_are_damage() -> None:
    a = encode_line(entry("a", None)).rstrip(b"\n")
    b = encode_line(entry("b", "a")).rstrip(b"\n")
    c = encode_line(entry("c", "b")).rstrip(b"\n")
    p = parse(lines(a + b, c))
    assert p.damaged[0] == "line 2: line is not valid JSON"
    assert [(e.id, e.parent_id) for e in p.entries] == [("c", None)]


def test_duplicate_keys_and_extra_fields_read_as_the_stdlib_reads_them() -> None:
    raw = b'{"type":"x","type":"message","id":"a","parentId":null,"timestamp":7,"extra":1,'
    raw += b'"data":{"k":1,"k":2}}'
    (e,) = parse(lines(raw)).entries
    want = json.loads(raw)
    assert (e.kind, e.data) == (want["type"], want["data"]) == ("message", {"k": 2})
