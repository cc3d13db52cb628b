"""Two real processes appending to one session: one wins, the other gets a conflict, no branch."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from ggd.session import SessionRepository

from .conftest import user

# Child: open the session, say "ready", wait for "go" on stdin, then append once.
CHILD = r"""
import sys
from pathlib import Path
from ggd.session import SessionConflictError, SessionRepository

root, sid, label, retry = sys.argv[1:5]
sf = SessionRepository(Path(root)).open(sid)
print("ready", flush=True)
sys.stdin.readline()
try:
    e = sf.append("message", {"role": "assistant", "content": label})
    print("ok", e.id, flush=True)
except SessionConflictError:
    if retry == "1":
        sf.reload()
        e = sf.append("message", {"role": "assistant", "content": label})
        print("retried", e.id, flush=True)
    else:
        print("conflict", flush=True)
"""


def _race(root: Path, sid: str, retry: bool) -> list[list[str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(root), sid, f"writer-{i}", "1" if retry else "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    try:
        for p in procs:  # both have read the file before either writes
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p in procs:
            out, _ = p.communicate(timeout=30)
            assert p.returncode == 0
            results.append(out.split())
        return results
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def _assert_single_chain(repo: SessionRepository, sid: str) -> list[str]:
    """Every entry has at most one child and each parent precedes it: one linear branch."""
    sf = repo.open(sid)
    children = Counter(e.parent_id for e in sf.entries)
    assert all(n == 1 for n in children.values()), children
    ids = [e.id for e in sf.entries]
    assert [e.parent_id for e in sf.entries] == [None, *ids[:-1]]
    return ids


@pytest.mark.parametrize("rounds", [3])
def test_two_processes_one_conflict_never_an_interleaved_branch(
    repo: SessionRepository, rounds: int
) -> None:
    sf = repo.create("ws")
    sf.append("message", user("start"))
    for _ in range(rounds):
        before = _assert_single_chain(repo, sf.id)
        results = _race(repo.root, sf.id, retry=False)
        verdicts = sorted(r[0] for r in results)
        assert verdicts == ["conflict", "ok"], results
        winner = next(r[1] for r in results if r[0] == "ok")
        after = _assert_single_chain(repo, sf.id)
        assert after == [*before, winner]


def test_two_processes_loser_reloads_and_extends_the_same_branch(repo: SessionRepository) -> None:
    sf = repo.create("ws")
    sf.append("message", user("start"))
    for _ in range(2):
        before = _assert_single_chain(repo, sf.id)
        results = _race(repo.root, sf.id, retry=True)
        assert sorted(r[0] for r in results) == ["ok", "retried"], results
        first = next(r[1] for r in results if r[0] == "ok")
        second = next(r[1] for r in results if r[0] == "retried")
        assert _assert_single_chain(repo, sf.id) == [*before, first, second]
