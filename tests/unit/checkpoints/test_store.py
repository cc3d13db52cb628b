"""CheckpointStore with a real git: ignores, the size and file-count limits, byte-exact
restores despite .gitattributes, a folder that is not a repository, owner-only storage, no new
object for an unchanged tree, pruning."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ggd.checkpoints import CheckpointError, CheckpointSettings, CheckpointStore

from .helpers import state


def _store(tmp_path: Path, **kw: object) -> tuple[CheckpointStore, Path]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return CheckpointStore(tmp_path / "store", ws, CheckpointSettings(**kw)), ws  # type: ignore[arg-type]


def _objects(store: CheckpointStore) -> int:
    return sum(len(f) for _d, _s, f in os.walk(store.git.git_dir / "objects"))


def test_a_plain_folder_ignores_and_big_files(tmp_path: Path) -> None:
    store, ws = _store(tmp_path, max_file_bytes=100)
    (ws / "keep.txt").write_text("keep\n")
    (ws / "node_modules").mkdir()
    (ws / "node_modules" / "dep.js").write_text("x\n")
    (ws / ".gitignore").write_text("secret.env\n")
    (ws / "secret.env").write_text("TOKEN=1\n")
    (ws / "big.bin").write_bytes(b"\0" * 101)
    snap = store.snapshot()
    assert sorted(store.files(snap.commit)) == [".gitignore", "keep.txt"]
    assert snap.skipped == ("big.bin",)
    (ws / "keep.txt").write_text("changed\n")
    later = store.snapshot()
    diff = store.diff(snap.commit, later.commit)
    assert [f.path for f in diff.files] == ["keep.txt"] and diff.skipped == ("big.bin",)
    assert stat.S_IMODE((tmp_path / "store").stat().st_mode) == 0o700
    assert (
        stat.S_IMODE(tmp_path.stat().st_mode) == 0o700
    )  # the store's parent (GG_HOME/checkpoints)


def test_an_unchanged_tree_adds_nothing(tmp_path: Path) -> None:
    store, ws = _store(tmp_path)
    for i in range(50):
        (ws / f"f{i}.txt").write_text(f"{i}\n")
    first = store.snapshot()
    count = _objects(store)
    again = store.snapshot()
    assert again.commit == first.commit and not again.new
    assert _objects(store) == count


def test_bytes_come_back_exactly_whatever_gitattributes_say(tmp_path: Path) -> None:
    store, ws = _store(tmp_path)
    (ws / ".gitattributes").write_text("* text=auto eol=crlf\n*.txt filter=lfs\n")
    (ws / "a.txt").write_bytes(b"one\r\ntwo\nthree\r")
    (ws / "run.sh").write_text("#!/bin/sh\n")
    (ws / "run.sh").chmod(0o755)
    (ws / "link").symlink_to("a.txt")
    snap = store.snapshot()
    want = state(ws)
    (ws / "a.txt").write_text("other\n")
    (ws / "run.sh").unlink()
    (ws / "link").unlink()
    now = store.plan(snap.commit)[0]
    store.restore(now.commit, snap.commit)
    assert state(ws) == want
    assert (ws / "link").is_symlink() and os.readlink(ws / "link") == "a.txt"


def test_too_many_files_is_refused_not_attempted(tmp_path: Path) -> None:
    store, ws = _store(tmp_path, max_files=3)
    for i in range(5):
        (ws / f"f{i}").write_text("x")
    with pytest.raises(CheckpointError, match="maxFiles"):
        store.snapshot()


def test_pruning_by_age_keeps_the_latest(tmp_path: Path) -> None:
    store, ws = _store(tmp_path, max_age_days=1e-9, prune_every_seconds=0)
    (ws / "a").write_text("1")
    old = store.snapshot().commit
    (ws / "a").write_text("2")
    latest = store.snapshot().commit
    assert store.prune() == 1
    assert not store.exists(old) and store.exists(latest)
    with pytest.raises(CheckpointError, match="pruned"):
        store.diff(old, latest)


def test_a_restore_rewrites_only_the_files_that_differ(tmp_path: Path) -> None:
    store, ws = _store(tmp_path)
    for i in range(20):
        (ws / f"f{i}.txt").write_text(f"{i}\n")
    base = store.snapshot().commit
    (ws / "f0.txt").write_text("changed\n")
    untouched = (ws / "f1.txt").stat().st_mtime_ns
    os.utime(ws / "f1.txt", ns=(untouched - 10**9, untouched - 10**9))  # a build tool's view
    untouched -= 10**9
    now = store.plan(base)[0]
    store.restore(now.commit, base)
    assert (ws / "f0.txt").read_text() == "0\n"
    assert (ws / "f1.txt").stat().st_mtime_ns == untouched


def test_a_nested_repository_is_left_out_and_never_deleted(tmp_path: Path) -> None:
    import subprocess

    from .helpers import GIT_ENV

    store, ws = _store(tmp_path)
    (ws / "top.txt").write_text("top\n")
    base = store.snapshot().commit
    sub = ws / "vendor" / "lib"
    sub.mkdir(parents=True)
    (sub / "f.txt").write_text("theirs\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=sub, env=GIT_ENV, check=True, capture_output=True)
    snap = store.snapshot()
    assert snap.skipped == ("vendor/lib/",)
    assert sorted(store.files(snap.commit)) == ["top.txt"]
    now = store.plan(base)[0]
    store.restore(now.commit, base)
    assert (sub / "f.txt").read_text() == "theirs\n" and (sub / ".git").is_dir()


def test_pruning_by_size_drops_the_oldest_first(tmp_path: Path) -> None:
    store, ws = _store(tmp_path, max_store_bytes=1, prune_every_seconds=0)
    made = []
    for i in range(6):
        (ws / "a").write_bytes(os.urandom(2000) + bytes([i]))
        made.append(store.snapshot().commit)
    dropped = store.prune()
    assert dropped == 5  # everything but the latest, which gg's next conflict check needs
    assert [store.exists(c) for c in made] == [False] * 5 + [True]
    assert store.prune() == 0  # at most every prune_every_seconds: here 0, and nothing is left


def test_the_shadow_repository_settings_read_back_wherever_it_lives(
    tmp_path: Path,
) -> None:
    # Its settings are written in git's config syntax, not by `git config`: a store under a
    # path with a quote, a backslash, a space and a newline must still read back exactly.
    odd = tmp_path / 'a "home" \\ here\nand there'
    odd.mkdir()
    store, ws = _store(odd)
    (ws / "f.txt").write_text("x\n")
    store.snapshot()

    def get(key: str) -> str:
        return store.git.text(["config", "--get", key]).strip()

    assert get("core.hooksPath") == str(store.git.git_dir / "hooks-off")
    assert (get("gc.auto"), get("core.autocrlf"), get("commit.gpgSign")) == ("0", "false", "false")
