"""SessionFile: appends, branches, projections, fork/clone, reload, conflicts, torn tails."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import portalocker
import pytest

from ggd.session import (
    LEAF,
    SessionConflictError,
    SessionFile,
    SessionFormatError,
    SessionNotFoundError,
    SessionRepository,
)

from .conftest import assistant, user


def lines_of(repo: SessionRepository, sf: SessionFile) -> list[dict[str, object]]:
    text = (repo.root / f"{sf.id}.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_create_writes_header_line(repo: SessionRepository) -> None:
    sf = repo.create("ws1", name="first", model="demo:m")
    assert sf.id.startswith("s_") and len(sf.id) == 18
    (header,) = lines_of(repo, sf)
    assert header == {
        "type": "session",
        "version": 1,
        "id": sf.id,
        "workspaceId": "ws1",
        "createdAt": 1_700_000_000_000,
        "name": "first",
        "model": "demo:m",
        "parent": None,
    }
    assert sf.entries == [] and sf.leaf_id is None and sf.messages() == []
    assert sf.name == "first" and sf.model == "demo:m" and sf.updated_at == 1_700_000_000_000


def test_append_chains_on_the_leaf_and_is_on_disk(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    a = sf.append("message", user("hi"))
    b = sf.append("message", assistant("hello"))
    assert a.parent_id is None and b.parent_id == a.id and sf.leaf_id == b.id
    assert len(a.id) == 8 and int(a.id, 16) >= 0 and a.id != b.id
    assert sf.get(a.id) is a and sf.get("nope") is None
    on_disk = lines_of(repo, sf)[1:]
    assert on_disk[1] == {
        "type": "message",
        "id": b.id,
        "parentId": a.id,
        "timestamp": b.timestamp,
        "data": assistant("hello"),
    }
    again = repo.open(sf.id)
    assert again.entries == sf.entries and again.messages() == [user("hi"), assistant("hello")]


def test_append_many_writes_a_chain(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    root = sf.append("message", user("q"))
    chain = sf.append_many([("message", assistant("a")), ("usage", {"totalTokens": 3})])
    assert [e.parent_id for e in chain] == [root.id, chain[0].id]
    assert sf.leaf_id == chain[1].id and sf.append_many([]) == []
    assert [e.kind for e in repo.open(sf.id).entries] == ["message", "message", "usage"]


def test_append_with_explicit_parent_and_new_root(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    a = sf.append("message", user("a"))
    sf.append("message", assistant("b"))
    c = sf.append("message", assistant("c"), parent_id=a.id)
    assert c.parent_id == a.id and sf.messages() == [user("a"), assistant("c")]
    r = sf.append("message", user("fresh"), parent_id=None)
    assert r.parent_id is None and sf.messages() == [user("fresh")]
    assert sf.append("note", {}, parent_id=LEAF).parent_id == r.id


@pytest.mark.parametrize(
    ("kind", "data", "parent"),
    [("", {}, LEAF), ("session", {}, LEAF), ("message", [], LEAF), ("message", {}, "missing")],
)
def test_append_rejects_bad_input_and_writes_nothing(
    repo: SessionRepository, kind: str, data: object, parent: object
) -> None:
    sf = repo.create("ws")
    with pytest.raises(ValueError):
        sf.append(kind, data, parent)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        sf.append("message", {"x": float("inf")})
    assert len(lines_of(repo, sf)) == 1 and sf.entries == []


def test_checkout_switches_the_active_branch(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    q = sf.append("message", user("q"))
    a1 = sf.append("message", assistant("a1"))
    head = sf.checkout(q.id)
    assert head.kind == "head" and head.parent_id == q.id and sf.leaf_id == head.id
    assert sf.messages() == [user("q")]
    a2 = sf.append("message", assistant("a2"))
    assert a2.parent_id == head.id
    assert [e.id for e in sf.active_path()] == [q.id, head.id, a2.id]
    assert sf.messages() == [user("q"), assistant("a2")]
    sf.checkout(a1.id)
    assert sf.messages() == [user("q"), assistant("a1")]
    with pytest.raises(ValueError):
        sf.checkout("deadbeef")
    assert repo.open(sf.id).messages() == [user("q"), assistant("a1")]


def test_tree_marks_the_active_path_and_skips_non_messages(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    q = sf.append("message", user("  what\n is   this?  "))
    a1 = sf.append("message", assistant("one"))
    sf.append("usage", {"totalTokens": 1})
    sf.checkout(q.id)
    a2 = sf.append("message", {"role": "assistant", "content": [{"type": "text", "text": "two"}]})
    t = sf.append("message", {"role": "tool", "toolCallId": "c1"})
    tree = sf.tree()
    assert [(n.id, n.parent_id, n.depth, n.role, n.active) for n in tree] == [
        (q.id, None, 0, "user", True),
        (a1.id, q.id, 1, "assistant", False),
        (a2.id, q.id, 1, "assistant", True),
        (t.id, a2.id, 2, "tool", True),
    ]
    assert [n.text for n in tree] == ["what is this?", "one", "two", ""]
    assert tree[1].timestamp == a1.timestamp


def test_tree_text_is_short(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    sf.append("message", user("x" * 1000))
    (node,) = sf.tree()
    assert len(node.text) <= 120 and node.text.endswith("…")


def test_projections_name_model_preview_count_updated(repo: SessionRepository) -> None:
    sf = repo.create("ws", name="orig", model="demo:a")
    assert sf.preview == "" and sf.message_count == 0
    sf.append("message", {"role": "system", "content": "sys"})
    sf.append("message", user("first   question\nwith lines " + "y" * 200))
    last = sf.append("message", assistant("answer"))
    sf.append("model", {"model": "demo:b"})
    info = sf.rename("renamed")
    assert info.kind == "session_info" and info.data == {"name": "renamed"}
    assert sf.name == "renamed" and sf.model == "demo:b"
    assert sf.message_count == 3
    assert sf.preview.startswith("first question with lines y") and len(sf.preview) <= 80
    assert sf.updated_at == info.timestamp > last.timestamp
    again = repo.open(sf.id)
    assert (again.name, again.model, again.preview, again.message_count) == (
        "renamed",
        "demo:b",
        sf.preview,
        3,
    )


def test_fork_copies_the_path_to_the_node_and_records_lineage(repo: SessionRepository) -> None:
    sf = repo.create("ws", name="base", model="demo:m")
    q = sf.append("message", user("q"))
    a1 = sf.append("message", assistant("a1"))
    sf.rename("base2")
    sf.checkout(q.id)
    sf.append("message", assistant("a2"))
    fk = sf.fork(a1.id)
    assert fk.id != sf.id
    assert fk.header.parent == {"sessionId": sf.id, "nodeId": a1.id, "kind": "fork", "copied": 2}
    assert fk.header.workspace_id == "ws" and fk.name == "base2" and fk.model == "demo:m"
    assert [(e.id, e.parent_id) for e in fk.entries] == [(q.id, None), (a1.id, q.id)]
    assert fk.messages() == [user("q"), assistant("a1")]
    assert fk.updated_at >= fk.header.created_at
    reopened = repo.open(fk.id)
    assert reopened.entries == fk.entries and reopened.header == fk.header
    assert sf.messages() == [user("q"), assistant("a2")]  # the source is untouched
    with pytest.raises(ValueError):
        sf.fork("deadbeef")


def test_clone_copies_the_active_path_without_markers(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    q = sf.append("message", user("q"))
    sf.append("message", assistant("a1"))
    sf.checkout(q.id)
    a2 = sf.append("message", assistant("a2"))
    sf.append("usage", {"totalTokens": 9})
    cl = sf.clone()
    assert cl.header.parent == {
        "sessionId": sf.id,
        "nodeId": sf.leaf_id,
        "kind": "clone",
        "copied": 3,
    }
    assert [e.kind for e in cl.entries] == ["message", "message", "usage"]
    assert [e.parent_id for e in cl.entries] == [None, q.id, a2.id]  # head marker bypassed
    assert cl.messages() == sf.messages()
    empty = repo.create("ws").clone()
    assert empty.entries == [] and empty.header.parent is not None
    assert empty.header.parent["nodeId"] is None


def test_second_writer_gets_conflict_then_reload_and_retry(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    base = sf.append("message", user("q"))
    one, two = repo.open(sf.id), repo.open(sf.id)
    won = one.append("message", assistant("from one"))
    with pytest.raises(SessionConflictError):
        two.append("message", assistant("from two"))
    assert two.leaf_id == base.id  # nothing was added to the stale view
    two.reload()
    retry = two.append("message", assistant("from two"))
    assert retry.parent_id == won.id
    final = repo.open(sf.id)
    assert [e.parent_id for e in final.entries] == [None, base.id, won.id]
    with pytest.raises(SessionConflictError):
        sf.checkout(base.id)  # the original object is stale too


def test_writer_lease_timeout_is_a_busy_conflict(make_repo) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo(lease_timeout=0.05)
    sf = repo.create("ws")
    lock_path = repo.root / f"{sf.id}.jsonl.lock"
    with portalocker.Lock(str(lock_path), mode="a", flags=portalocker.LockFlags.EXCLUSIVE):
        with pytest.raises(SessionConflictError, match="busy"):
            sf.append("message", user("x"))
    sf.append("message", user("x"))  # free again once the holder lets go
    assert lock_path.stat().st_mode & 0o777 == 0o600


def test_replaced_file_is_a_conflict(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    sf.append("message", user("q"))
    path = repo.root / f"{sf.id}.jsonl"
    other = path.with_name("copy.tmp")
    other.write_bytes(path.read_bytes())
    os.replace(other, path)  # same bytes, another inode (made while the old one was alive)
    with pytest.raises(SessionConflictError):
        sf.append("message", user("again"))
    path.unlink()
    with pytest.raises(SessionConflictError):
        sf.append("message", user("gone"))


def test_same_size_rewrite_is_a_conflict(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    sf.append("message", user("aaaa"))
    path = repo.root / f"{sf.id}.jsonl"
    data = path.read_bytes()
    with open(path, "r+b") as f:  # same inode, same size, different tail
        f.write(data.replace(b"aaaa", b"bbbb"))
    with pytest.raises(SessionConflictError):
        sf.append("message", user("x"))


def test_torn_tail_is_truncated_on_open(
    repo: SessionRepository, caplog: pytest.LogCaptureFixture
) -> None:
    sf = repo.create("ws")
    a = sf.append("message", user("kept"))
    path = repo.root / f"{sf.id}.jsonl"
    good = path.read_bytes()
    with open(path, "ab") as f:
        f.write(b'{"type":"message","id":"0badc0de","parentId":"')
    with caplog.at_level(logging.WARNING, logger="ggd.session"):
        again = repo.open(sf.id)
    assert path.read_bytes() == good
    assert [e.id for e in again.entries] == [a.id]
    assert "incomplete last line" in caplog.text
    b = again.append("message", assistant("after repair"))
    assert repo.open(sf.id).leaf_id == b.id


def test_torn_tail_does_not_hide_an_earlier_stale_view(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    sf.append("message", user("q"))
    path = repo.root / f"{sf.id}.jsonl"
    with open(path, "ab") as f:
        f.write(b"{garbage")
    repo.open(sf.id)  # repairs the file back to exactly what sf saw
    sf.append("message", assistant("still consistent"))
    assert len(repo.open(sf.id).entries) == 2


def test_a_corrupt_middle_line_opens_the_rest_and_appends_keep_every_line(
    repo: SessionRepository, caplog: pytest.LogCaptureFixture
) -> None:
    sf = repo.create("ws")
    for text in ("a", "b", "c"):
        sf.append("message", user(text))
    path = repo.root / f"{sf.id}.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"{broken"  # b's line: c's parent is gone
    path.write_bytes(b"\n".join(lines))
    damaged = path.read_bytes()
    with caplog.at_level(logging.WARNING, logger="ggd.session"):
        opened = repo.open(sf.id)
    assert "line 3: line is not valid JSON" in caplog.text and str(repo.root) not in caplog.text
    assert [m["content"] for m in opened.messages()] == ["a", "c"]
    opened.append("message", user("d"))
    opened.release()  # the rebuilt view (same bytes) agrees
    assert [m["content"] for m in opened.messages()] == ["a", "c", "d"]
    assert path.read_bytes().startswith(damaged)  # every line, the broken one too, is kept
    # A torn tail after the damage: repair cuts the torn bytes only.
    with open(path, "ab") as f:
        f.write(b'{"type":"mess')
    again = repo.open(sf.id)
    assert path.read_bytes().startswith(damaged) and b"{broken\n" in path.read_bytes()
    assert not path.read_bytes().endswith(b"mess")
    assert [m["content"] for m in again.messages()] == ["a", "c", "d"]
    assert repo.summary(sf.id).damaged and repo.summary(sf.id).message_count == 3


def test_unknown_version_refuses_to_open(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    path = repo.root / f"{sf.id}.jsonl"
    header = json.loads(path.read_text())
    path.write_text(json.dumps({**header, "version": 2}) + "\n")
    with pytest.raises(SessionFormatError, match="unsupported"):
        repo.open(sf.id)


def test_failed_write_leaves_no_partial_line(
    repo: SessionRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    sf = repo.create("ws")
    sf.append("message", user("q"))
    path = repo.root / f"{sf.id}.jsonl"
    before = path.read_bytes()
    real_write = os.write

    def half_then_fail(fd: int, data: bytes) -> int:
        if len(data) > 10 and fd > 2:
            real_write(fd, bytes(data)[:10])
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", half_then_fail)
    with pytest.raises(OSError):
        sf.append("message", user("x" * 100))
    monkeypatch.setattr(os, "write", real_write)
    assert path.read_bytes() == before
    assert sf.append("message", user("ok")).parent_id == sf.entries[0].id


def test_repr_and_header_alias(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    assert sf.id in repr(sf)
    assert sf.header.createdAt == sf.header.created_at
    assert isinstance(sf.header.to_json(), dict)
    assert Path(repo.root).is_dir()


def test_stale_view_over_a_torn_tail_conflicts_then_recovers(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    q = sf.append("message", user("q"))
    path = repo.root / f"{sf.id}.jsonl"
    with open(path, "ab") as f:  # a crashed writer's half line, not yet repaired
        f.write(b'{"type":"message","id":"')
    with pytest.raises(SessionConflictError):
        sf.append("message", assistant("a"))
    sf.reload()  # repairs under the lease
    assert sf.append("message", assistant("a")).parent_id == q.id
    assert path.read_bytes().endswith(b"\n")


def test_reload_of_a_deleted_session_is_not_found(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    (repo.root / f"{sf.id}.jsonl").unlink()
    with pytest.raises(SessionNotFoundError) as info:
        sf.reload()
    assert str(repo.root) not in str(info.value)


def test_header_id_must_match_the_file_name(repo: SessionRepository) -> None:
    a, b = repo.create("ws"), repo.create("ws")
    (repo.root / f"{b.id}.jsonl").write_bytes((repo.root / f"{a.id}.jsonl").read_bytes())
    with pytest.raises(SessionFormatError, match="another session id"):
        repo.open(b.id)


def test_checkout_and_fork_before_the_first_entry(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    q = sf.append("message", user("q"))
    sf.append("message", assistant("a"))
    head = sf.checkout(None)
    assert head.parent_id is None and sf.messages() == [] and sf.message_count == 0
    r = sf.append("message", user("again"))
    assert r.parent_id == head.id and sf.messages() == [user("again")]
    assert [n.parent_id for n in sf.tree()] == [None, q.id, None]
    fk = sf.fork(None)
    assert fk.entries == [] and fk.header.parent == {
        "sessionId": sf.id,
        "nodeId": None,
        "kind": "fork",
        "copied": 0,
    }


def test_moved_on_sees_another_writers_append_and_reload_catches_up(
    repo: SessionRepository,
) -> None:
    mine = repo.create("ws")
    mine.append("message", user("a"))
    theirs = repo.open(mine.id)  # another process's view of the same file
    assert not mine.moved_on() and not theirs.moved_on()
    theirs.append("message", user("b"))
    assert mine.moved_on() and not theirs.moved_on()
    mine.release()
    assert mine.moved_on()  # a released view still knows what it saw
    mine.reload()
    assert not mine.moved_on() and [m["content"] for m in mine.messages()] == ["a", "b"]
    mine.append("message", user("c"))  # our own appends never count as moving on
    assert not mine.moved_on() and theirs.moved_on()
    (repo.root / f"{mine.id}.jsonl").unlink()
    assert mine.moved_on()
