"""JSONL codec: encode headers/entries as lines and parse a whole file buffer fast."""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .chain import Chain, index
from .errors import SessionFormatError
from .model import Entry, SessionHeader

__all__ = [
    "FORMAT_VERSION",
    "Parsed",
    "bulk_allocation",
    "encode_line",
    "header_from_json",
    "parse",
]

FORMAT_VERSION = 1

_TAIL_BYTES = 32

# Decodes the joined lines into entries and checks every field's type in C (int is strict:
# no floats or bools), so only the id checks are left to Python.
_ENTRIES = msgspec.json.Decoder(list[Entry])


def encode_line(obj: dict[str, Any]) -> bytes:
    """One compact JSON line ending in a newline; refuses NaN/Infinity (not JSON)."""
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8; escaping them keeps the value round-trippable.
        text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        return text.encode("ascii") + b"\n"


def header_from_json(obj: Any) -> SessionHeader:
    """Validate a decoded header line; SessionFormatError when it is not a usable header."""
    if not isinstance(obj, dict) or obj.get("type") != "session":
        raise SessionFormatError("session file does not start with a session header")
    version = obj.get("version")
    if version != FORMAT_VERSION:
        raise SessionFormatError(
            f"session format version {version!r} is unsupported (this build reads version "
            f"{FORMAT_VERSION}); upgrade gg to open it"
        )
    sid, ws, created = obj.get("id"), obj.get("workspaceId"), obj.get("createdAt")
    name, model, parent = obj.get("name"), obj.get("model"), obj.get("parent")
    if not isinstance(sid, str) or not isinstance(ws, str) or type(created) is not int:
        raise SessionFormatError("session header is missing id, workspaceId or createdAt")
    if not (name is None or isinstance(name, str)) or not (model is None or isinstance(model, str)):
        raise SessionFormatError("session header has an invalid name or model")
    if not (parent is None or isinstance(parent, dict)):
        raise SessionFormatError("session header has an invalid parent")
    return SessionHeader(FORMAT_VERSION, sid, ws, created, name, model, parent)


@dataclass(slots=True)
class Parsed:
    """A parsed file: valid_length bytes are complete lines (torn tail excluded); tail ends them.

    `damaged` names each complete line that was not a valid entry ("line 7: ..."): skipped, and
    still counted in valid_length, so it and every line after it stay on disk.
    """

    header: SessionHeader
    entries: list[Entry]
    by_id: dict[str, Entry]
    chain: Chain
    valid_length: int
    torn: bool
    tail: bytes
    damaged: list[str] = field(default_factory=list)


class _Malformed(Exception):
    """An entry object that decoded as JSON but is not a valid entry."""


class _Orphan(_Malformed):
    """A valid entry whose parent does not precede it (`entry` is the entry as written)."""

    def __init__(self, why: str, entry: Entry) -> None:
        super().__init__(why)
        self.entry = entry


_DAMAGED = object()  # a line that is not JSON at all


def _add(obj: Any, entries: list[Entry], by_id: dict[str, Entry]) -> None:
    """Validate one decoded entry and index it; _Malformed/SessionFormatError on failure."""
    try:
        kind = obj["type"]
        eid = obj["id"]
        pid = obj["parentId"]
        ts = obj["timestamp"]
        data = obj["data"]
    except (KeyError, TypeError) as exc:
        raise _Malformed("entry is missing a required field") from exc
    if (
        type(kind) is not str
        or type(eid) is not str
        or type(ts) is not int
        or type(data) is not dict
        or not (pid is None or type(pid) is str)
    ):
        raise _Malformed("entry has a field of the wrong type")
    if eid in by_id:
        raise _Malformed("entry id is used twice")
    entry = Entry(kind, eid, pid, ts, data)
    if pid is not None and pid not in by_id:
        raise _Orphan("entry refers to a parent that does not precede it", entry)
    by_id[eid] = entry
    entries.append(entry)


def _build_fast(objs: Any, entries: list[Entry], by_id: dict[str, Entry]) -> bool:
    """_add inlined for the common all-good file (a hot loop: 100k entries per open).

    False at the first invalid entry: the caller re-reads line by line, skipping bad lines.
    """
    append = entries.append
    for obj in objs:
        try:
            kind = obj["type"]
            eid = obj["id"]
            pid = obj["parentId"]
            ts = obj["timestamp"]
            data = obj["data"]
        except (KeyError, TypeError):
            break
        if (
            type(kind) is not str
            or type(eid) is not str
            or type(ts) is not int
            or type(data) is not dict
            or eid in by_id
            or not (pid is None or (type(pid) is str and pid in by_id))
        ):
            break
        entry = Entry(kind, eid, pid, ts, data)
        by_id[eid] = entry
        append(entry)
    else:
        return True
    return False


def _chain_of(entries: list[Entry]) -> Chain:
    """The chain of entries already validated one by one."""
    chain = Chain([])
    chain.extend(entries, 0)
    return chain


@contextlib.contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic GC while building many acyclic objects (json dicts, entries).

    Each young-generation pass would re-walk the growing heap; pausing roughly halves the
    time to load 100k entries. Nothing built here forms cycles, so nothing is leaked.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse(data: bytes) -> Parsed:
    """Parse a whole session file; a torn last line is reported (torn=True), not raised.

    A complete line that is not a valid entry is skipped and named in `damaged`.

    Raises:
        SessionFormatError: empty file, bad header or unsupported version.
    """
    end = data.rfind(b"\n") + 1
    nl = data.find(b"\n")
    if nl < 0:
        raise SessionFormatError("session file has no complete header line")
    try:
        header = header_from_json(json.loads(data[:nl]))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SessionFormatError("session header is not valid JSON") from exc
    entries: list[Entry] = []
    by_id: dict[str, Entry] = {}
    body = data[nl + 1 : end - 1] if end - 1 > nl else b""
    if body:
        # msgspec first; anything it refuses (a bad line, or JSON it reads differently from
        # the stdlib such as 1e400 or a lone surrogate) takes the stdlib paths below, which
        # stay the judge of what a valid file is and word the errors.
        typed: list[Entry] | None
        try:
            with bulk_allocation():
                typed = _ENTRIES.decode(b"[" + body.replace(b"\n", b",") + b"]")
        except msgspec.MsgspecError:
            typed = None
        indexed = index(typed) if typed is not None else None
        if typed is not None and indexed is not None:
            valid = end
            tail = data[max(0, valid - _TAIL_BYTES) : valid]
            return Parsed(header, typed, *indexed, valid, end < len(data), tail)
        objs: Any = None
        try:
            with bulk_allocation():
                # One C-level decode of all lines joined into an array is ~2x faster than a
                # json.loads per line; raw newlines cannot occur inside JSON strings.
                objs = json.loads(b"[" + body.replace(b"\n", b",") + b"]")
        except (ValueError, UnicodeDecodeError):
            objs = None
        good = False
        if objs is not None:
            with bulk_allocation():
                good = _build_fast(objs, entries, by_id)
        if objs is None or not good:
            return _parse_slow(data, header, nl + 1, end)
    valid = end
    tail = data[max(0, valid - _TAIL_BYTES) : valid]
    return Parsed(header, entries, by_id, _chain_of(entries), valid, end < len(data), tail)


def _parse_slow(data: bytes, header: SessionHeader, start: int, end: int) -> Parsed:
    """Line-by-line parse: a bad last line is torn; a bad line before it is skipped as damaged.

    A damaged line is never fatal and never removed: the session opens with what is valid,
    appends go after it, and a torn-tail repair cuts only the incomplete last line. An entry
    whose parent is missing (most often: the parent was the damaged line) is attached to the
    valid entry before it, in memory only, so the conversation stays one connected tree.
    """
    entries: list[Entry] = []
    by_id: dict[str, Entry] = {}
    damaged: list[str] = []
    pos, line_no, valid = start, 1, start
    torn = end < len(data)
    while pos < end:
        nxt = data.index(b"\n", pos)
        line = data[pos:nxt]
        line_no += 1
        if line.strip():
            try:
                obj = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                if not data[nxt + 1 : end].strip():
                    torn = True  # garbage on the final line: a write that never completed
                    break
                obj = _DAMAGED
            if obj is _DAMAGED:
                damaged.append(f"line {line_no}: line is not valid JSON")
            else:
                try:
                    _add(obj, entries, by_id)
                except _Orphan as orphan:
                    damaged.append(f"line {line_no}: {orphan}; attached to the entry before it")
                    e = orphan.entry
                    e = Entry(
                        e.kind, e.id, entries[-1].id if entries else None, e.timestamp, e.data
                    )
                    by_id[e.id] = e
                    entries.append(e)
                except _Malformed as exc:
                    damaged.append(f"line {line_no}: {exc}")
        pos = nxt + 1
        valid = pos
    tail = data[max(0, valid - _TAIL_BYTES) : valid]
    return Parsed(header, entries, by_id, _chain_of(entries), valid, torn, tail, damaged)
