"""Derived files beside a session: served only for the exact file they were built from."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from ggd.session import DerivedKind, SessionConflictError, SessionFile, SessionRepository

from .conftest import assistant, user

KIND = DerivedKind(".snap", b"test/1")


class Builder:
    """A build callback that records what it was asked to build from."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, sf: SessionFile) -> bytes:
        self.calls += 1
        texts = [m.get("content") for m in sf.messages()]
        return repr((sf.leaf_id, texts)).encode()


def _session(repo: SessionRepository, n: int = 4) -> SessionFile:
    sf = repo.create("w1", name="d")
    for i in range(n):
        sf.append("message", user(f"q{i}") if i % 2 == 0 else assistant(f"a{i}"))
    return sf


def _expected(sf: SessionFile) -> bytes:
    return repr((sf.leaf_id, [m.get("content") for m in sf.messages()])).encode()


def test_built_once_then_read_back_private_and_beside_the_jsonl(repo: SessionRepository) -> None:
    sf = _session(repo)
    build = Builder()
    assert sf.derived(KIND, build) == _expected(sf)
    path = repo.root / f"{sf.id}.snap"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = repo.open(sf.id)
    assert again.derived(KIND, build) == _expected(sf)
    assert build.calls == 1  # the second object read the file
    rows, _ = repo.list()
    assert [r.id for r in rows] == [sf.id]  # the list is not confused by the sidecar


def test_an_append_makes_it_stale_and_the_next_use_rebuilds(repo: SessionRepository) -> None:
    sf = _session(repo)
    build = Builder()
    sf.derived(KIND, build)
    sf.append("message", user("more"))
    assert sf.derived(KIND, build) == _expected(sf)
    assert build.calls == 2
    sf.checkout(sf.entries[0].id)
    assert repo.open(sf.id).derived(KIND, build) == _expected(sf)
    assert build.calls == 3


@pytest.mark.parametrize(
    "damage",
    ["truncate", "flip_payload", "magic", "empty", "extra", "directory"],
)
def test_torn_foreign_or_unreadable_files_are_rebuilt_silently(
    repo: SessionRepository, damage: str
) -> None:
    sf = _session(repo)
    build = Builder()
    sf.derived(KIND, build)
    path = repo.root / f"{sf.id}.snap"
    blob = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(blob[:-3])
    elif damage == "flip_payload":
        path.write_bytes(blob[:-1] + bytes([blob[-1] ^ 0x01]))
    elif damage == "magic":
        path.write_bytes(b"GGDRV\x00\x02\n" + blob[8:])  # another format version
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "extra":
        path.write_bytes(blob + b"x")
    else:
        path.unlink()
        path.mkdir()
    fresh = repo.open(sf.id, defer=KIND)
    # nothing usable beside it: opened the usual way (a bad checksum shows only on load)
    assert fresh.loaded is (damage != "flip_payload")
    assert fresh.derived(KIND, build) == _expected(sf)
    assert build.calls == 2


def test_a_file_of_another_kind_or_key_is_foreign(repo: SessionRepository) -> None:
    sf = _session(repo)
    kind_b = DerivedKind(".snap", b"test/2")
    sf.derived(KIND, Builder())
    other = Builder()
    assert sf.derived(kind_b, other) == _expected(sf)
    assert other.calls == 1
    assert repo.open(sf.id, defer=KIND).loaded  # KIND's file is gone: a plain open


def test_a_second_writer_append_is_never_served_from_the_old_file(
    make_repo: Callable[..., SessionRepository],
) -> None:
    repo_a, repo_b = make_repo(), make_repo()
    sf_a = _session(repo_a)
    sf_a.derived(KIND, Builder())
    sf_b = repo_b.open(sf_a.id, defer=KIND)
    assert not sf_b.loaded  # current file: opened without decoding entries
    sf_b.append("message", user("from b"))
    # a fresh open sees b's append, whatever the old file says
    build = Builder()
    fresh = repo_a.open(sf_a.id, defer=KIND)
    assert fresh.loaded
    assert fresh.derived(KIND, build) == _expected(fresh)
    assert b"from b" in _expected(fresh)
    # a's own view is older than the disk: built from that view, and not stored as current
    old = Builder()
    assert sf_a.derived(KIND, old) == _expected(sf_a)
    assert old.calls == 1
    assert repo_a.open(sf_a.id, defer=KIND).derived(KIND, Builder()) == _expected(fresh)


def test_a_deferred_open_keeps_the_identity_taken_at_open(
    make_repo: Callable[..., SessionRepository],
) -> None:
    repo_a, repo_b = make_repo(), make_repo()
    sf = _session(repo_a)
    sf.derived(KIND, Builder())
    lazy = repo_a.open(sf.id, defer=KIND)
    assert not lazy.loaded
    assert lazy.header == sf.header
    repo_b.open(sf.id).append("message", user("other writer"))
    # the entries load as they were at open time, and the next append conflicts
    assert [m["content"] for m in lazy.messages()] == [m["content"] for m in sf.messages()]
    with pytest.raises(SessionConflictError):
        lazy.append("message", user("stale"))


def test_a_deferred_open_then_appends_and_reads_like_a_normal_one(
    repo: SessionRepository,
) -> None:
    sf = _session(repo)
    sf.derived(KIND, Builder())
    lazy = repo.open(sf.id, defer=KIND)
    assert not lazy.loaded
    lazy.append("message", user("next"))
    eager = repo.open(sf.id)
    assert [e.id for e in lazy.entries] == [e.id for e in eager.entries]
    assert lazy.name == eager.name and lazy.tree() == eager.tree()


def test_a_torn_tail_after_the_file_was_built_is_repaired_as_before(
    repo: SessionRepository,
) -> None:
    sf = _session(repo)
    sf.derived(KIND, Builder())
    jsonl = repo.root / f"{sf.id}.jsonl"
    good = jsonl.stat().st_size
    with open(jsonl, "ab") as f:
        f.write(b'{"type":"message","id":"dead')  # a write that never completed
    fresh = repo.open(sf.id, defer=KIND)
    assert fresh.loaded
    assert jsonl.stat().st_size == good
    build = Builder()
    assert fresh.derived(KIND, build) == _expected(sf)


def test_a_replaced_file_of_the_same_size_is_not_served(repo: SessionRepository) -> None:
    sf = _session(repo)
    sf.derived(KIND, Builder())
    jsonl = repo.root / f"{sf.id}.jsonl"
    data = jsonl.read_bytes()
    st = jsonl.stat()
    # same bytes, same size and mtime, but a new inode (a restore, a copy back into place)
    tmp = jsonl.with_name("copy.tmp")
    tmp.write_bytes(data)
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(tmp, jsonl)
    assert repo.open(sf.id, defer=KIND).loaded


def test_bad_suffixes_are_refused() -> None:
    with pytest.raises(ValueError):
        DerivedKind(".jsonl", b"x")
    with pytest.raises(ValueError):
        DerivedKind("snap", b"x")


def test_an_unwritable_directory_only_skips_the_cache(
    repo: SessionRepository, tmp_path: Path
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes into a read-only directory")
    sf = _session(repo)
    os.chmod(repo.root, 0o500)
    try:
        assert sf.derived(KIND, Builder()) == _expected(sf)
    finally:
        os.chmod(repo.root, 0o700)
    assert not (repo.root / f"{sf.id}.snap").exists()


def test_a_file_damaged_after_it_was_read_and_checked_is_still_refused(
    repo: SessionRepository,
) -> None:
    sf = _session(repo)
    sf.derived(KIND, Builder())
    again = repo.open(sf.id, defer=KIND)
    assert again.derived(KIND, Builder()) == _expected(sf)  # read and its CRC checked once
    path = repo.root / f"{sf.id}.snap"
    blob = path.read_bytes()
    damaged = blob[:-1] + bytes([blob[-1] ^ 0x01])
    path.write_bytes(damaged)  # in place: a new mtime
    build = Builder()
    assert repo.open(sf.id, defer=KIND).derived(KIND, build) == _expected(sf)
    assert build.calls == 1
    tmp = path.with_name("x.tmp")
    tmp.write_bytes(damaged)
    st = path.stat()
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(tmp, path)  # replaced by a copy with the same size and mtime: a new inode
    assert repo.open(sf.id, defer=KIND).derived(KIND, build) == _expected(sf)
    assert build.calls == 2


def test_a_copy_left_by_a_killed_writer_is_swept_on_the_next_write(
    repo: SessionRepository,
) -> None:
    sf = _session(repo)
    stray = repo.root / f".{sf.id}.snap.deadbeef.tmp"
    stray.write_bytes(b"x" * 1000)  # what a SIGKILL between write and rename leaves
    other = repo.root / ".index.json.cafe0000.tmp"
    other.write_bytes(b"{}")
    sf.derived(KIND, Builder())
    assert not stray.exists()
    assert other.exists()  # only this file's own copies
    assert (repo.root / f"{sf.id}.snap").exists()
