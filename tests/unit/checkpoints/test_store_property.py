"""The checkpoint store against a real git and real bash: random writes, edits, deletes,
renames, mode changes and bash commands, snapshot after each step, then restores to random
snapshots. Every restore must give back exactly the recorded files (bytes and mode), and the
workspace's own .git must stay byte-identical throughout."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from ggd.checkpoints import CheckpointSettings, CheckpointStore

from .helpers import state, tree_bytes, user_repo

WALKS = 100
NAMES = ["a.txt", "b.py", "src/c.txt", "src/deep/d.md", "e f.txt", "*weird[1].txt", "x.log"]


def _step(rng: random.Random, ws: Path) -> None:
    existing = [n for n in NAMES if (ws / n).exists()]
    op = rng.choice(["write", "edit", "delete", "rename", "chmod", "bash", "bash"])
    name = rng.choice(NAMES)
    path = ws / name
    if op == "write" or not existing:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.randbytes(rng.randint(0, 64)) + b"\n")
        return
    src = ws / rng.choice(existing)
    if op == "edit":
        with src.open("ab") as f:
            f.write(f"line {rng.random()}\n".encode())
    elif op == "delete":
        src.unlink()
    elif op == "rename":
        path.parent.mkdir(parents=True, exist_ok=True)
        src.replace(path)
    elif op == "chmod":
        src.chmod(0o644 if src.stat().st_mode & 0o100 else 0o755)
    else:
        cmd = rng.choice(
            [
                f"mkdir -p gen && seq 1 {rng.randint(1, 50)} > gen/n.txt",
                "rm -rf gen",
                "printf 'x' >> a.txt",
                "mv a.txt src/moved.txt 2>/dev/null; true",
                "sed -i 's/1/one/' gen/n.txt 2>/dev/null; true",
            ]
        )
        subprocess.run(["bash", "-c", cmd], cwd=ws, check=True)


@pytest.mark.parametrize("seed", range(1))
def test_restores_give_back_the_recorded_state(tmp_path: Path, seed: int) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    user_repo(ws)
    git_before = tree_bytes(ws / ".git")
    store = CheckpointStore(tmp_path / "store", ws, CheckpointSettings(ignore=("*.log",)))
    ok = 0
    for walk in range(WALKS):
        rng = random.Random(walk * 7919 + seed)
        recorded: list[tuple[str, dict[str, tuple[str, int]]]] = []
        for _turn in range(rng.randint(2, 4)):
            for _ in range(rng.randint(1, 4)):
                _step(rng, ws)
            snap = store.snapshot("turn")
            recorded.append((snap.commit, state(ws, (".git", "x.log"))))
        for _ in range(2):
            commit, expected = rng.choice(recorded)
            now, _before, _diff, _conflicts = store.plan(commit)
            store.restore(now.commit, commit)
            assert state(ws, (".git", "x.log")) == expected, f"walk {walk}"
        assert tree_bytes(ws / ".git") == git_before, f"walk {walk} touched the user's .git"
        ok += 1
    assert ok == WALKS
    assert not (ws / "hook-ran.txt").exists()
