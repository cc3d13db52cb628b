"""SessionRepository: create/open by id, private modes, list order, paging, bad files."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ggd.session import SessionNotFoundError, SessionRepository, SessionSummary

from .conftest import StepClock, assistant, user


def mode(p: Path) -> int:
    return p.stat().st_mode & 0o777


def test_root_and_files_are_private(gg_home: Path, repo: SessionRepository) -> None:
    assert mode(gg_home) == 0o700 and mode(repo.root) == 0o700
    sf = repo.create("ws")
    sf.append("message", user("x"))
    repo.list()
    files = sorted(p.name for p in repo.root.iterdir())
    assert files == sorted([f"{sf.id}.jsonl", f"{sf.id}.jsonl.lock", "index.json"])
    for p in repo.root.iterdir():
        assert mode(p) == 0o600, p.name


def test_existing_root_mode_is_tightened(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir(mode=0o755)
    os.chmod(root, 0o755)
    SessionRepository(root)
    assert mode(root) == 0o700


def test_files_stay_private_under_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        repo = SessionRepository(tmp_path / "s")
        sf = repo.create("ws")
        sf.append("message", user("x"))
        repo.list()
    finally:
        os.umask(old)
    assert all(mode(p) == 0o600 for p in repo.root.iterdir())


def test_open_unknown_and_malformed_ids(repo: SessionRepository) -> None:
    for sid in ["s_0000000000000000", "../etc/passwd", "", "a/b", "x" * 65]:
        with pytest.raises(SessionNotFoundError) as info:
            repo.open(sid)
        assert str(repo.root) not in str(info.value)
    assert not repo.exists("../x") and not repo.exists("s_0000000000000000")
    sf = repo.create("ws")
    assert repo.exists(sf.id) and repo.open(sf.id).id == sf.id


def test_ids_are_unique_and_url_safe(repo: SessionRepository) -> None:
    ids = {repo.create("ws").id for _ in range(50)}
    assert len(ids) == 50
    assert all(i.startswith("s_") and len(i) == 18 and i[2:].isalnum() for i in ids)


def _populate(repo: SessionRepository, n: int, workspace: str = "ws") -> list[str]:
    ids = []
    for i in range(n):
        sf = repo.create(workspace, name=f"n{i}")
        sf.append("message", user(f"question {i}"))
        sf.append("message", assistant("answer"))
        ids.append(sf.id)
    return ids


def test_list_is_newest_first_with_summary_fields(repo: SessionRepository) -> None:
    ids = _populate(repo, 3)
    page, cursor = repo.list()
    assert cursor is None
    assert [s.id for s in page] == ids[::-1]
    top = page[0]
    assert top == SessionSummary(
        id=ids[2],
        workspace_id="ws",
        name="n2",
        model=None,
        created_at=top.created_at,
        updated_at=top.updated_at,
        message_count=2,
        preview="question 2",
        parent=None,
        first_prompt="question 2",
    )
    assert top.updated_at > top.created_at
    # Activity moves a session to the top.
    repo.open(ids[0]).append("message", user("more"))
    assert repo.list()[0][0].id == ids[0]
    assert repo.list()[0][0].message_count == 3


def test_list_paging_with_opaque_cursor_visits_each_once(repo: SessionRepository) -> None:
    ids = _populate(repo, 7)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page, cursor = repo.list(limit=3, cursor=cursor)
        pages += 1
        seen += [s.id for s in page]
        if cursor is None:
            break
        assert isinstance(cursor, str)
    assert pages == 3 and seen == ids[::-1]
    with pytest.raises(ValueError):
        repo.list(cursor="not-a-cursor!")
    with pytest.raises(ValueError):
        repo.list(limit=0)


def test_list_cursor_is_stable_when_sessions_are_added(repo: SessionRepository) -> None:
    ids = _populate(repo, 4)
    first, cursor = repo.list(limit=2)
    _populate(repo, 2)  # newer sessions land before the cursor, not in the next page
    second, _ = repo.list(limit=2, cursor=cursor)
    assert [s.id for s in first + second] == ids[::-1]


def test_list_filters_by_workspace(repo: SessionRepository) -> None:
    a = _populate(repo, 2, "wa")
    b = _populate(repo, 1, "wb")
    assert [s.id for s in repo.list(workspace_id="wa")[0]] == a[::-1]
    assert [s.id for s in repo.list(workspace_id="wb")[0]] == b
    assert repo.list(workspace_id="none")[0] == []


def test_list_flags_a_damaged_file_and_skips_a_headerless_one(
    repo: SessionRepository, caplog: pytest.LogCaptureFixture
) -> None:
    good = _populate(repo, 2)
    bad = repo.create("ws")
    bad.append("message", user("a"))
    bad.append("message", user("b"))
    path = repo.root / f"{bad.id}.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[1] = b"{corrupt"
    path.write_bytes(b"\n".join(lines))
    (repo.root / "s_ffffffffffffffff.jsonl").write_bytes(b"")  # empty: no header
    (repo.root / "notes.txt").write_text("ignored")
    with caplog.at_level(logging.WARNING, logger="ggd.session"):
        page, _ = repo.list()
    # A damaged body is listed, flagged; a file without a header cannot be (no workspace).
    assert sorted(s.id for s in page) == sorted([*good, bad.id])
    assert [s.id for s in page if s.damaged] == [bad.id]
    assert "s_ffffffffffffffff" in caplog.text
    again, _ = repo.list()  # from the list cache: the flag survives it
    assert [s.id for s in again if s.damaged] == [bad.id]


def test_list_reads_a_torn_file_without_touching_it(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    sf.append("message", user("q"))
    path = repo.root / f"{sf.id}.jsonl"
    with open(path, "ab") as f:
        f.write(b'{"type":"mess')
    before = path.read_bytes()
    (row,) = repo.list()[0]
    assert row.message_count == 1 and path.read_bytes() == before


def test_list_cache_is_never_the_source_of_truth(
    make_repo: Callable[..., SessionRepository],
) -> None:
    repo = make_repo()
    ids = _populate(repo, 2)
    repo.list()
    cache = repo.root / "index.json"
    assert set(json.loads(cache.read_text())["sessions"]) == set(ids)
    # A second process (own clock, own objects) renames a session: the stale row is refreshed.
    other = make_repo(clock=StepClock(1_800_000_000_000))
    other.open(ids[0]).rename("changed elsewhere")
    page, _ = repo.list()
    assert page[0].id == ids[0] and page[0].name == "changed elsewhere"
    # A garbage cache is ignored and rebuilt; a deleted session disappears.
    cache.write_text("{nonsense")
    (repo.root / f"{ids[1]}.jsonl").unlink()
    page, _ = repo.list()
    assert [s.id for s in page] == [ids[0]]
    assert set(json.loads(cache.read_text())["sessions"]) == {ids[0]}


def test_list_uses_cache_rows_when_files_are_unchanged(repo: SessionRepository) -> None:
    ids = _populate(repo, 1)
    repo.list()
    cache = repo.root / "index.json"
    obj = json.loads(cache.read_text())
    obj["sessions"][ids[0]]["summary"]["preview"] = "from cache"
    cache.write_text(json.dumps(obj))
    assert repo.list()[0][0].preview == "from cache"


def test_summary_of_one_session(repo: SessionRepository) -> None:
    (sid,) = _populate(repo, 1)
    s = repo.summary(sid)
    assert s.id == sid and s.message_count == 2 and s.preview == "question 0"
    assert SessionSummary.from_json(s.to_json()) == s


def test_fork_and_clone_are_listed_with_lineage(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    q = sf.append("message", user("q"))
    fk = sf.fork(q.id)
    rows = {s.id: s for s in repo.list()[0]}
    assert rows[fk.id].parent == {"sessionId": sf.id, "nodeId": q.id, "kind": "fork", "copied": 1}
    assert repo.list()[0][0].id == fk.id  # the newest session is the fork
