"""Reliability of the session store under SIGKILL: every session stays openable, no ack is lost."""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ggd.session import SessionRepository

# One long-lived helper imports ggd.session once and forks a fresh writer per iteration, so
# 200+ kills cost milliseconds each instead of an interpreter start each. The writer reopens
# the session (repairing any torn tail the last kill left), appends in a tight loop and
# acknowledges each entry on stdout only after append() returned (i.e. after fsync).
# Every few entries is large (~1 MB) so a SIGKILL can land inside write(); since that window
# is narrow, a third of the writers also simulate the kernel's short write (half a line on
# disk, lease still held) and are killed right there, so the torn-tail repair and the
# dead-holder lease release run dozens of times per test.
ZYGOTE = r"""
import os, signal, sys
from pathlib import Path
from ggd.session import SessionRepository, journal

repo = SessionRepository(Path(sys.argv[1]))
out = sys.stdout.fileno()
while True:
    line = sys.stdin.readline().split()
    if not line or line[0] != "go":
        break
    sid, big_every, torn_after = line[1], int(line[2]), int(line[3])
    pid = os.fork()
    if pid == 0:
        try:
            sf = repo.open(sid)
            os.write(out, b"pid %d\n" % os.getpid())
            n = 0
            while True:
                n += 1
                if n == torn_after:
                    # A short write as the kernel leaves it when SIGKILL lands inside write():
                    # half a line on disk, lease held, then death.
                    with journal.lease(sf._lock_path, 5.0):
                        with open(sf._path, "ab") as f:
                            f.write(b'{"type":"message","id":"deadbeef","parentId":"')
                            f.flush()
                        os.write(out, b"torn -\n")
                        signal.pause()
                size = 1_000_000 if n % big_every == 0 else 40
                if size > 40:
                    os.write(out, b"big -\n")
                e = sf.append("message", {"role": "user", "content": "x" * size})
                os.write(out, b"ack " + e.id.encode() + b"\n")
        except BaseException as exc:
            os.write(out, ("error %s\n" % type(exc).__name__).encode())
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    os.write(out, b"dead %d\n" % status)
"""

KILLS = 200
PER_SESSION = 25  # reuse one file for this many kills, then start another


class LineReader:
    """Reads lines from a pipe with a deadline (a hung child fails the test, never hangs it)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def readline(self, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError("writer process did not answer in time")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("writer helper exited")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()


def test_sigkill_mid_append_keeps_sessions_openable_and_acked_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "gg-home"
    monkeypatch.setenv("GG_HOME", str(home))
    root = home / "sessions"
    repo = SessionRepository(root)
    rng = random.Random(20251130)
    helper = subprocess.Popen(
        [sys.executable, "-c", ZYGOTE, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert helper.stdin is not None and helper.stdout is not None
    reader = LineReader(helper.stdout.fileno())
    acked: dict[str, list[str]] = {}
    torn_seen = 0
    started = time.monotonic()
    try:
        sid = ""
        for i in range(KILLS):
            if i % PER_SESSION == 0:
                sid = repo.create("ws").id
                acked[sid] = []
            # A third of the writers simulate a short write (torn line, lease held) and die there.
            torn_after = rng.randint(1, 4) if rng.random() < 1 / 3 else 0
            helper.stdin.write(f"go {sid} {rng.randint(2, 5)} {torn_after}\n".encode())
            helper.stdin.flush()
            first = reader.readline().split()
            assert first[0] == "pid", first
            pid = int(first[1])
            # Half the kills follow an ack count, half aim at a large write just starting.
            want, on_big = rng.randint(1, 4), rng.random() < 0.5
            got = 0
            while True:
                kind, value = reader.readline().split()
                if kind == "ack":
                    acked[sid].append(value)
                    got += 1
                else:
                    assert kind in ("big", "torn"), (kind, value)
                if kind == "torn" or (on_big and kind == "big") or (not on_big and got >= want):
                    break
            os.kill(pid, signal.SIGKILL)
            while True:  # acks written before the kill landed count too
                kind, value = reader.readline().split()
                if kind == "dead":
                    assert os.WIFSIGNALED(int(value))
                    break
                assert kind in ("ack", "big", "torn"), (kind, value)
                if kind == "ack":
                    acked[sid].append(value)
            path = root / f"{sid}.jsonl"
            torn_seen += not path.read_bytes().endswith(b"\n")
            sf = repo.open(sid)  # must open (repairing a torn tail) after every kill
            present = {e.id for e in sf.entries}
            missing = [a for a in acked[sid] if a not in present]
            assert not missing, f"acknowledged entries lost after kill {i}: {missing}"
            assert path.read_bytes().endswith(b"\n")
    finally:
        helper.stdin.close()
        helper.wait(timeout=30)
    elapsed = time.monotonic() - started
    # Final audit: every session opens, holds every ack in order, and is one linear branch.
    for sid, ids in acked.items():
        sf = repo.open(sid)
        order = [e.id for e in sf.entries]
        assert [x for x in order if x in set(ids)] == ids
        assert [e.parent_id for e in sf.entries] == [None, *order[:-1]]
        assert all(n == 1 for n in Counter(e.parent_id for e in sf.entries).values())
    assert len(repo.list(limit=100)[0]) == len(acked)
    print(
        f"\n{KILLS} kills, {sum(map(len, acked.values()))} acks, {torn_seen} torn tails repaired, {elapsed:.1f}s"
    )
