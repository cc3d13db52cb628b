"""A restore killed half way (kill -9 of the process group, git included) is finished when the
next ggd starts: the workspace ends exactly as restored, never half. Real git, a real ggd."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ggd.checkpoints import CheckpointSettings, CheckpointStore
from tests.unit.checkpoints.helpers import state, tree_bytes, user_repo

from .daemon import Daemon, daemon_env

CHILD = """
import sys
from pathlib import Path
from ggd.checkpoints import CheckpointSettings, CheckpointStore
store = CheckpointStore(Path(sys.argv[1]), Path(sys.argv[2]), CheckpointSettings())
store.restore(sys.argv[3], sys.argv[4])
"""


def _two_states(store: CheckpointStore, ws: Path, n: int) -> tuple[str, dict, str, dict]:
    for i in range(n):
        (ws / f"d{i % 20}").mkdir(exist_ok=True)
        (ws / f"d{i % 20}" / f"f{i}.txt").write_text(f"first {i}\n" * 20)
    a = store.snapshot("a").commit
    sa = state(ws)
    for i in range(n):
        p = ws / f"d{i % 20}" / f"f{i}.txt"
        if i % 3 == 0:
            p.unlink()
        else:
            p.write_text(f"second {i}\n")
    (ws / "new.txt").write_text("new\n")
    b = store.snapshot("b").commit
    return a, sa, b, state(ws)


def test_a_restore_killed_half_way_is_finished_at_the_next_start(
    gg_home: Path, workspace: Path
) -> None:
    user_repo(workspace)
    git_before = tree_bytes(workspace / ".git")
    folder = gg_home / "checkpoints" / "w_killed"
    store = CheckpointStore(folder, workspace, CheckpointSettings())
    a, sa, b, sb = _two_states(store, workspace, 3000)
    journal = folder / "restore.json"
    killed_mid = False
    for _attempt in range(5):  # bounded: each try restores b -> a and is killed once it began
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(folder), str(workspace), b, a],
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        marker = workspace / "new.txt"  # only in b: git removes files before it writes others
        while child.poll() is None and time.monotonic() < deadline:
            if journal.exists() and not marker.exists():
                break
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        if journal.exists() and state(workspace) not in (sa, sb):
            killed_mid = True
            break
        # It finished (or had not begun): put b back and try again.
        journal.unlink(missing_ok=True)
        (folder / "git" / "index.lock").unlink(missing_ok=True)
        now = store.plan(b)[0].commit
        store.restore(now, b)
    assert killed_mid, "could not kill a restore half way in 5 tries"
    assert json.loads(journal.read_text())["to"] == a

    d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    try:
        assert not journal.exists()
        assert state(workspace) == sa
        assert tree_bytes(workspace / ".git") == git_before
        assert "finished a restore that was interrupted" in d.logs()
    finally:
        d.stop()
