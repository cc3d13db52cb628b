"""SessionFile.release(): an idle session drops its entries and rebuilds the same view on read."""

from __future__ import annotations

import os

import pytest

from ggd.session import SessionConflictError, SessionRepository

from .conftest import assistant, user


def test_release_then_read_rebuilds_the_same_view(repo: SessionRepository) -> None:
    sf = repo.create("ws", name="n")
    q = sf.append("message", user("q"))
    sf.append("message", assistant("a1"))
    sf.checkout(q.id)
    sf.append("message", assistant("a2"))
    before = (list(sf.entries), sf.messages(), sf.tree(), sf.name, sf.preview, sf.leaf_id)
    sf.release()
    assert not sf.loaded and "released" in repr(sf)
    after = (list(sf.entries), sf.messages(), sf.tree(), sf.name, sf.preview, sf.leaf_id)
    assert sf.loaded and after == before


def test_append_after_release_is_durable_and_chains_on_the_leaf(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    a = sf.append("message", user("q"))
    sf.release()
    b = sf.append("message", assistant("a"))
    assert b.parent_id == a.id and sf.get(b.id) is b
    assert [e.id for e in repo.open(sf.id).entries] == [a.id, b.id]


def test_released_view_ignores_another_writers_append_and_still_conflicts(
    repo: SessionRepository,
) -> None:
    sf = repo.create("ws")
    a = sf.append("message", user("q"))
    sf.release()
    other = repo.open(sf.id)
    other.append("message", assistant("from the other writer"))
    assert [e.id for e in sf.entries] == [a.id]  # exactly the view this object had
    with pytest.raises(SessionConflictError):
        sf.append("message", assistant("stale"))
    sf.reload()
    assert len(sf.entries) == 2


def test_released_view_of_a_replaced_file_is_a_conflict_until_reload(
    repo: SessionRepository,
) -> None:
    sf = repo.create("ws")
    sf.append("message", user("q"))
    path = repo.root / f"{sf.id}.jsonl"
    sf.release()
    copy = path.with_name("copy.tmp")
    copy.write_bytes(path.read_bytes())
    os.replace(copy, path)  # same bytes, another inode
    with pytest.raises(SessionConflictError):
        sf.messages()
    sf.reload()
    assert sf.messages() == [user("q")]


def test_released_view_of_a_deleted_file_is_a_conflict(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    sf.append("message", user("q"))
    sf.release()
    (repo.root / f"{sf.id}.jsonl").unlink()
    with pytest.raises(SessionConflictError):
        sf.tree()
