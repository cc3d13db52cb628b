"""The JSONL codec: line encoding, the fast and slow parse paths, torn and corrupt lines."""

from __future__ import annotations

import json

import pytest

from ggd.session import Entry, SessionFormatError
from ggd.session.codec import encode_line, parse

HEADER = {
    "type": "session",
    "version": 1,
    "id": "s_0123456789abcdef",
    "workspaceId": "ws",
    "createdAt": 5,
    "name": "n",
    "model": "demo:x",
    "parent": None,
}


def entry(eid: str, parent: str | None, kind: str = "message", **data: object) -> dict[str, object]:
    return {"type": kind, "id": eid, "parentId": parent, "timestamp": 7, "data": data}


def file_of(*objs: dict[str, object]) -> bytes:
    return b"".join(encode_line(o) for o in (HEADER, *objs))


def test_encode_line_is_one_compact_line_with_newline() -> None:
    line = encode_line({"a": "x\ny", "b": [1, 2]})
    assert line == b'{"a":"x\\ny","b":[1,2]}\n'
    assert line.count(b"\n") == 1


def test_encode_line_keeps_unicode_and_escapes_lone_surrogates() -> None:
    assert encode_line({"t": "é€"}) == '{"t":"é€"}\n'.encode()
    line = encode_line({"t": "a\ud800b"})
    assert json.loads(line) == {"t": "a\ud800b"}


def test_encode_line_refuses_nan() -> None:
    with pytest.raises(ValueError):
        encode_line({"x": float("nan")})


def test_parse_reads_header_and_entries_in_order() -> None:
    data = file_of(entry("a", None, role="user"), entry("b", "a", kind="usage", tokens=3))
    p = parse(data)
    assert p.header.id == "s_0123456789abcdef"
    assert p.header.workspace_id == "ws" and p.header.workspaceId == "ws"
    assert p.header.created_at == 5 and p.header.model == "demo:x"
    assert p.entries == [
        Entry("message", "a", None, 7, {"role": "user"}),
        Entry("usage", "b", "a", 7, {"tokens": 3}),
    ]
    assert set(p.by_id) == {"a", "b"}
    assert not p.torn and p.valid_length == len(data)
    assert p.tail == data[-32:]


def test_parse_header_only() -> None:
    p = parse(file_of())
    assert p.entries == [] and not p.torn


def test_parse_missing_trailing_newline_is_torn() -> None:
    good = file_of(entry("a", None))
    p = parse(good + b'{"type":"message","id":"b","par')
    assert p.torn and p.valid_length == len(good) and [e.id for e in p.entries] == ["a"]


def test_parse_complete_json_without_newline_is_still_torn() -> None:
    good = file_of(entry("a", None))
    p = parse(good + encode_line(entry("b", "a")).rstrip(b"\n"))
    assert p.torn and p.valid_length == len(good)


def test_parse_garbage_final_line_with_newline_is_torn() -> None:
    good = file_of(entry("a", None))
    p = parse(good + b"\x00\x00\x00\x00\n")
    assert p.torn and p.valid_length == len(good) and len(p.entries) == 1


def test_parse_skips_a_corrupt_middle_line_and_names_it() -> None:
    data = file_of(entry("a", None)) + b"{not json\n" + encode_line(entry("b", "a"))
    p = parse(data)
    assert [e.id for e in p.entries] == ["a", "b"] and not p.torn
    assert p.damaged == ["line 3: line is not valid JSON"]
    assert p.valid_length == len(data)  # the damaged line and the lines after it are kept


def test_an_entry_whose_parent_was_the_damaged_line_joins_the_entry_before_it() -> None:
    bad = b'{"type":"message","id":"b","parentId":"a","timest\n'  # b's own line, cut
    data = file_of(entry("a", None)) + bad + encode_line(entry("c", "b"))
    p = parse(data)
    assert [(e.id, e.parent_id) for e in p.entries] == [("a", None), ("c", "a")]
    assert p.chain.path(p.entries, 1) == p.entries
    assert p.damaged[0] == "line 3: line is not valid JSON"
    assert p.damaged[1].startswith("line 4: entry refers to a parent")


def test_parse_unknown_version_is_refused() -> None:
    data = encode_line({**HEADER, "version": 99})
    with pytest.raises(SessionFormatError, match="version 99 is unsupported"):
        parse(data)


@pytest.mark.parametrize(
    "bad",
    [b"", b"not json\n", b'{"type":"other"}\n', b'{"type":"session","version":1}\n', b'{"typ'],
)
def test_parse_bad_header_is_a_format_error(bad: bytes) -> None:
    with pytest.raises(SessionFormatError):
        parse(bad)


@pytest.mark.parametrize(
    ("obj", "why", "ids"),
    [
        (entry("b", "zzz"), "parent", ["a", "b"]),  # kept, attached to the entry before it
        (entry("a", None), "twice", ["a"]),
        ({"type": "message", "id": "b", "parentId": "a", "timestamp": 1}, "missing", ["a"]),
        ({**entry("b", "a"), "timestamp": "x"}, "wrong type", ["a"]),
        ([1, 2], "missing", ["a"]),
    ],
)
def test_parse_invalid_entry_is_damage_on_both_paths(obj: object, why: str, ids: list[str]) -> None:
    lines = [encode_line(HEADER), encode_line(entry("a", None)), json.dumps(obj).encode() + b"\n"]
    fast = b"".join(lines)
    # A blank line forces the line-by-line path; it must reach the same verdict.
    slow = b"".join([*lines[:2], b"\n", lines[2]])
    for data, line in ((fast, 3), (slow, 4)):
        p = parse(data)
        assert [e.id for e in p.entries] == ids and not p.torn
        assert len(p.damaged) == 1 and p.damaged[0].startswith(f"line {line}: ")
        assert why in p.damaged[0] and p.valid_length == len(data)


def test_parse_tolerates_blank_lines() -> None:
    data = encode_line(HEADER) + b"\n" + encode_line(entry("a", None)) + b"\n"
    p = parse(data)
    assert [e.id for e in p.entries] == ["a"] and not p.torn and p.valid_length == len(data)
