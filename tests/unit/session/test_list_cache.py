"""The list cache (index.json and its copy in memory) is never trusted over a changed file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import pytest

from ggd.session import SessionRepository, SessionSummary

from .conftest import StepClock, assistant, user


def _row(repo: SessionRepository, sid: str) -> SessionSummary:
    rows = {r.id: r for r in repo.list(limit=1000)[0]}
    return rows[sid]


def _session(repo: SessionRepository, *texts: str) -> str:
    sf = repo.create("ws", name="n")
    for i, text in enumerate(texts):
        sf.append("message", user(text) if i % 2 == 0 else assistant(text))
    return sf.id


def test_an_append_by_another_writer_refreshes_the_warm_row(
    make_repo: Callable[..., SessionRepository],
) -> None:
    repo = make_repo()
    sid = _session(repo, "q1", "a1")
    before = _row(repo, sid)
    assert before.message_count == 2
    # Another process: its own repository object and clock.
    other = make_repo(clock=StepClock(1_900_000_000_000))
    other.open(sid).append("message", user("q2"))
    after = _row(repo, sid)
    assert after.message_count == 3 and after.updated_at == 1_900_000_000_000
    assert repo.list()[0][0].id == sid


def test_a_truncated_file_is_re_read(repo: SessionRepository) -> None:
    sid = _session(repo, "q1", "a1", "q2")
    assert _row(repo, sid).message_count == 3
    path = repo.root / f"{sid}.jsonl"
    data = path.read_bytes()
    # Cut the last line off, as a tool outside gg might: the row must follow the file.
    path.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 1])
    assert _row(repo, sid).message_count == 2


def test_a_different_file_of_the_same_size_and_mtime_is_re_read(repo: SessionRepository) -> None:
    sid = _session(repo, "question A", "answer")
    assert _row(repo, sid).preview == "question A"
    path = repo.root / f"{sid}.jsonl"
    old = path.read_bytes()
    st = path.stat()
    new = old.replace(b"question A", b"question B")
    assert len(new) == len(old) and new != old
    # Replace it with a new file of the same size and the same mtime: only the inode differs.
    tmp = path.with_name("replacement.tmp")
    tmp.write_bytes(new)
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(tmp, path)
    st2 = path.stat()
    assert (st2.st_size, st2.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert st2.st_ino != st.st_ino
    assert _row(repo, sid).preview == "question B"
    # A fresh repository (cold memory, index.json only) agrees.
    assert _row(SessionRepository(repo.root), sid).preview == "question B"


@pytest.mark.parametrize(
    "garbage",
    [
        b"{nonsense",
        b"",
        b"[1, 2, 3]",
        b'{"version": 2, "sessions": {}}',
        b'{"version": 4, "sessions": []}',
        b'{"version": 4, "sessions": {"SID": {"stamp": "x", "summary": {}}}}',
        b'{"version": 4, "sessions": {"SID": {"stamp": [1, 2, 3, 4], "summary": {"id": 1}}}}',
    ],
)
def test_a_corrupt_or_foreign_index_is_ignored_and_rebuilt(
    repo: SessionRepository, garbage: bytes
) -> None:
    sid = _session(repo, "q1", "a1")
    repo.list()
    cache = repo.root / "index.json"
    cache.write_bytes(garbage.replace(b"SID", sid.encode()))
    # The same repository (its memory is warm) notices index.json changed and re-reads it.
    row = _row(repo, sid)
    assert row.message_count == 2 and row.preview == "q1"
    obj = json.loads(cache.read_text())
    assert obj["version"] == 4 and obj["sessions"][sid]["summary"]["preview"] == "q1"
    assert (cache.stat().st_mode & 0o777) == 0o600


def test_a_row_with_a_stale_stamp_in_a_foreign_index_is_not_used(repo: SessionRepository) -> None:
    sid = _session(repo, "q1", "a1")
    repo.list()
    cache = repo.root / "index.json"
    obj = json.loads(cache.read_text())
    row = obj["sessions"][sid]
    row["summary"]["preview"] = "forged"
    row["summary"]["messageCount"] = 99
    row["stamp"][2] += 1  # another inode: an index copied from elsewhere
    cache.write_text(json.dumps(obj))
    got = _row(repo, sid)
    assert got.preview == "q1" and got.message_count == 2


def test_a_deleted_session_leaves_the_memory_and_the_index(repo: SessionRepository) -> None:
    keep = _session(repo, "q1")
    gone = _session(repo, "q2")
    assert {r.id for r in repo.list()[0]} == {keep, gone}
    (repo.root / f"{gone}.jsonl").unlink()
    assert [r.id for r in repo.list()[0]] == [keep]
    assert set(json.loads((repo.root / "index.json").read_text())["sessions"]) == {keep}


def test_one_malformed_row_costs_only_that_row(repo: SessionRepository) -> None:
    good = _session(repo, "q1")
    bad = _session(repo, "q2")
    repo.list()
    cache = repo.root / "index.json"
    obj = json.loads(cache.read_text())
    obj["sessions"][good]["summary"]["preview"] = "from cache"  # its stamp still matches
    obj["sessions"][bad]["summary"]["messageCount"] = "many"
    cache.write_text(json.dumps(obj))
    fresh = SessionRepository(repo.root)  # a new process: index.json is all it has
    assert _row(fresh, good).preview == "from cache"
    assert _row(fresh, bad).message_count == 1
