"""The snapshot from the derived file is the built one, byte for byte, and never a stale one."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ggd.app.manager import Manager
from ggd.app.service import Service
from ggd.app.snapshot import plain
from ggd.app.snapshot_file import SNAPSHOT
from ggd.app.workspaces import Workspace, WorkspaceRegistry
from ggd.protocol import SessionUpdate, Snapshot
from ggd.rpc.responses import encode_fast
from ggd.session import SessionFile, SessionRepository


def _svc(sf: SessionFile) -> Service:
    return Service(sf, Workspace("w1", "ws ☃", Path(".")))


def _body(view: Any) -> bytes:
    body = encode_fast(7, view.data)
    assert body is not None
    return body


def _reference(
    repo: SessionRepository, sid: str, cls: type[Snapshot] = Snapshot, **kw: Any
) -> bytes:
    """The answer built from the entries, as today, by an object that read the file afresh."""
    return _body(_svc(repo.open(sid)).snapshot_view(cls, **kw))


def _served(repo: SessionRepository, sid: str, cls: type[Snapshot] = Snapshot, **kw: Any) -> bytes:
    """The answer a fresh daemon object serves (from the derived file when it is current)."""
    return _body(_svc(repo.open(sid, defer=SNAPSHOT)).cached_view(cls, **kw))


def _corpus(repo: SessionRepository) -> str:
    sf = repo.create("w1", name="naïve ☃ name", model="demo:m")
    rng = random.Random(5)
    ids: list[str] = []
    for i in range(240):
        if i and i % 31 == 0:
            sf.checkout(rng.choice(ids))
        role = ("user", "assistant", "tool")[i % 3]
        msg: dict[str, Any] = {"role": role, "timestamp": 1_700_000_000_000 + i}
        if role == "user":
            msg["content"] = f"line {i}\n\ttabs, émoji 🚀 \u2028 \x00 and " + "z" * (i % 170)
        elif role == "assistant":
            msg["content"] = None if i % 2 else ""
            msg["toolCalls"] = [
                {"id": f"c{i}", "name": "read", "arguments": {"path": "a.py", "f": 0.1 * i}},
                {"id": f"d{i}", "name": "bash", "arguments": {"argv": ["ls", -1e-300, True]}},
            ]
            msg["stopReason"] = "tool_use"
        else:
            msg.update(toolCallId=f"c{i - 1}", toolName="read", content="ok", isError=i % 2 == 0)
        ids.append(sf.append("message", msg).id)
        if i % 70 == 10:
            ids.append(sf.append("summary", {"summary": f"summary ☃ {i}"}).id)
        if i % 80 == 20:
            ids.append(sf.rename(f"renamed {i}").id)
    # values the models coerce or judge: they take the model path inside the built lists
    for data in (
        {"role": "user", "content": "no timestamp"},
        {"role": "user", "content": "bool ts", "timestamp": True},
        {"role": "user", "content": "float ts", "timestamp": 3.0},
        {"role": "tool", "content": "int isError", "isError": 1, "timestamp": 1},
        {"role": "user", "content": "snake keys", "tool_name": "x", "id": "forged", "timestamp": 1},
    ):
        sf.append("message", data)
    sf.append("model", {"model": "demo:other"})
    return sf.id


def test_hit_and_miss_answers_equal_the_built_one_byte_for_byte(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sid = _corpus(repo)
    snap = tmp_path / f"{sid}.snap"
    assert not snap.exists()
    want = _reference(repo, sid)
    assert _served(repo, sid) == want  # a miss: built, answered and stored
    assert snap.exists()
    lazy = _svc(repo.open(sid, defer=SNAPSHOT))
    assert not lazy.file.loaded
    assert _body(lazy.cached_view(Snapshot)) == want  # a hit
    assert not lazy.file.loaded  # the entries were never decoded
    # the decoded form other encoders get is the built dict
    built = _svc(repo.open(sid)).snapshot_view(Snapshot).data
    assert lazy.cached_view(Snapshot).wire() == built
    assert json.dumps(lazy.cached_view(Snapshot).wire()) == json.dumps(built)
    # the parts that are not in the file: run id, SessionUpdate's action, draft and notice
    lazy.active_run_id = "r_9"
    got = _body(lazy.cached_view(SessionUpdate, action="fork", draft="d ☃", notice="n"))
    ref = _svc(repo.open(sid))
    ref.active_run_id = "r_9"
    assert got == _body(ref.snapshot_view(SessionUpdate, action="fork", draft="d ☃", notice="n"))


def test_an_empty_session_and_a_one_message_one(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sf = repo.create("w1")
    assert _served(repo, sf.id) == _reference(repo, sf.id)
    assert _served(repo, sf.id) == _reference(repo, sf.id)
    sf.append("message", {"role": "user", "content": "hi", "timestamp": 1})
    assert _served(repo, sf.id) == _reference(repo, sf.id)
    assert b'"name":"hi"' in _served(repo, sf.id)  # the first prompt names it, from the file


def test_what_msgspec_cannot_encode_is_not_cached_and_answers_as_before(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sf = repo.create("w1")
    with open(tmp_path / f"{sf.id}.jsonl", "a", encoding="utf-8") as f:
        f.write(
            '{"type":"message","id":"e0","parentId":null,"timestamp":5,'
            '"data":{"role":"user","content":"lone \\ud800","timestamp":1}}\n'
        )
    svc = _svc(repo.open(sf.id, defer=SNAPSHOT))
    got = svc.cached_view(Snapshot)
    assert got.data == _svc(repo.open(sf.id)).snapshot_view(Snapshot).data
    assert encode_fast(1, got.data) is None  # json.dumps takes it, as before
    assert not (tmp_path / f"{sf.id}.snap").exists()


def test_every_change_is_seen_by_the_next_open(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sid = _corpus(repo)
    sf = repo.open(sid)

    def check() -> None:
        want = _reference(repo, sid)
        assert _served(repo, sid) == want  # after the change: rebuilt (a miss)
        assert _served(repo, sid) == want  # and then served from the new file

    check()
    sf.append("message", {"role": "user", "content": "appended", "timestamp": 9})
    check()
    sf.checkout(sf.entries[3].id)
    check()
    sf.rename("new name")
    check()
    before = _served(repo, sid)
    fork = sf.fork(sf.entries[10].id, "forked")
    assert _served(repo, sid) == before  # the fork wrote another file; this one is unchanged
    assert _served(repo, fork.id) == _reference(repo, fork.id)
    # a second writer (another process would do the same) appends behind sf's back
    SessionRepository(tmp_path).open(sid).append(
        "message", {"role": "assistant", "content": "other", "timestamp": 9}
    )
    check()
    assert b'"content":"other"' in _served(repo, sid)
    # a torn tail: the served state is the repaired file's, never the old snapshot
    with open(tmp_path / f"{sid}.jsonl", "ab") as f:
        f.write(b'{"type":"message","id":"torn')
    check()
    # the file replaced by an older copy of itself (same name, new inode): not served either
    data = (tmp_path / f"{sid}.jsonl").read_bytes()
    cut = data[: data.rfind(b"\n", 0, len(data) - 1) + 1]
    (tmp_path / "x.tmp").write_bytes(cut)
    (tmp_path / "x.tmp").replace(tmp_path / f"{sid}.jsonl")
    check()


def test_a_stale_object_answers_its_own_view_as_before(tmp_path: Path) -> None:
    repo = SessionRepository(tmp_path)
    sid = _corpus(repo)
    svc = _svc(repo.open(sid))
    svc.cached_view(Snapshot)  # stores the file
    svc.file.release()
    SessionRepository(tmp_path).open(sid).append(
        "message", {"role": "user", "content": "later", "timestamp": 9}
    )
    # the object still answers what it read (the current path does), and its next append
    # conflicts; the file it sees on disk is newer, so nothing old is stored as current
    old = _body(svc.cached_view(Snapshot))
    assert old == _body(svc.snapshot_view(Snapshot))
    assert b"later" not in old
    assert b"later" in _served(repo, sid)


async def test_the_manager_opens_and_answers_without_decoding_entries(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    workspaces = WorkspaceRegistry(tmp_path / "workspaces.json", tmp_path / "ws")
    repo = SessionRepository(tmp_path / "sessions")
    sf = repo.create(workspaces.default.id, name="m")
    sf.append_many(
        [("message", {"role": "user", "content": f"q{i}", "timestamp": i}) for i in range(50)]
    )
    first = await Manager(repo, workspaces).get(sf.id)
    want = await first.view()  # stores the file
    manager = Manager(repo, workspaces)  # a restarted daemon
    svc = await manager.get(sf.id, load=False)
    assert not svc.file.loaded
    got = await svc.view()
    assert not svc.file.loaded
    assert _body(got) == _body(want)
    assert isinstance(got.data["messages"], msgspec.Raw)
    await svc.ensure_loaded()  # any other use loads them as before
    assert svc.file.loaded and len(svc.file.entries) == 50


@pytest.mark.parametrize("cls", [Snapshot, SessionUpdate])
def test_a_corrupt_payload_is_rebuilt_not_served(tmp_path: Path, cls: type[Snapshot]) -> None:
    repo = SessionRepository(tmp_path)
    sid = _corpus(repo)
    _served(repo, sid, cls)
    snap = tmp_path / f"{sid}.snap"
    blob = bytearray(snap.read_bytes())
    blob[-5] ^= 0x20  # one flipped bit inside the tree JSON
    snap.write_bytes(bytes(blob))
    assert _served(repo, sid, cls) == _reference(repo, sid, cls)


def test_a_top_level_value_msgspec_refuses_gets_the_parts_decoded(tmp_path: Path) -> None:
    # A workspace folder whose name is not UTF-8 reaches Python as a lone surrogate: the
    # answer then goes out through pygls' json.dumps, which gets the raw parts decoded.
    repo = SessionRepository(tmp_path)
    sid = _corpus(repo)
    _served(repo, sid)  # the file is current
    ws = Workspace("w1", "bad \udcff name", Path("."))
    got = Service(repo.open(sid, defer=SNAPSHOT), ws).cached_view(Snapshot)
    assert isinstance(got.data["messages"], msgspec.Raw)
    assert encode_fast(1, got.data) is None
    ref = Service(repo.open(sid), ws).snapshot_view(Snapshot).data
    assert json.dumps({"result": plain(got.data)}) == json.dumps({"result": ref})
