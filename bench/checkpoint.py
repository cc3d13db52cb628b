"""Benchmark of ggd.checkpoints: the cost of a snapshot on a generated 10,000-file repository.

Run: .venv/bin/python bench/checkpoint.py [--json] [--files 10000]
A git repository of `--files` source-like files (100 folders, 0.2-6 KB each, ~30 MB) is
generated in a temp folder, then timed with the real git CLI as a turn would use it:
the first snapshot (every file hashed and stored), a snapshot with nothing changed (what most
turns and every read-only tool boundary cost), a snapshot after 10 files changed (a typical
edit turn), the preview of restoring it and the restore itself; with the store's disk use.
Aims: first snapshot <= 5 s and its store <= the files' own size; an unchanged snapshot
<= 150 ms and adds 0 bytes; 10 changed files <= 200 ms and <= 64 KB added; restoring them
<= 400 ms (the snapshot before it included). Wall medians of 5 tries on a shared 2-core machine;
CPU seconds (this process and git) beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ggd.checkpoints import CheckpointSettings, CheckpointStore  # noqa: E402

_WORDS = "def return import class self value result items index path name data".split()


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _du(path: Path) -> int:
    """Bytes on disk (allocated blocks) under path."""
    total = 0
    for dirpath, _dirs, names in os.walk(path):
        for n in names:
            total += os.lstat(os.path.join(dirpath, n)).st_blocks * 512
    return total


def generate(ws: Path, count: int) -> int:
    """A git repository of `count` files; returns their total size in bytes."""
    rng = random.Random(7)
    size = 0
    for i in range(count):
        folder = ws / f"pkg{i % 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = rng.randint(5, 150)
        text = "\n".join(
            " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 8))) for _ in range(lines)
        )
        (folder / f"mod{i}.py").write_text(text + "\n")
        size += len(text) + 1
    env = {"PATH": os.environ["PATH"], "HOME": str(ws), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=ws, env=env, check=True)
    return size


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    c0, t0 = _cpu(), time.perf_counter()
    out = fn()
    return out, (time.perf_counter() - t0) * 1000, (_cpu() - c0) * 1000


def run(count: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gg-bench-cp-") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        size = generate(ws, count)
        store = CheckpointStore(Path(tmp) / "store", ws, CheckpointSettings())
        first, first_ms, first_cpu = timed(store.snapshot)
        first_disk = _du(Path(tmp) / "store")
        same_ms, same_cpu, same_added = [], [], []
        for _ in range(5):
            before = _du(Path(tmp) / "store")
            _snap, ms, cpu = timed(store.snapshot)
            same_ms.append(ms)
            same_cpu.append(cpu)
            same_added.append(_du(Path(tmp) / "store") - before)
        rng = random.Random(3)
        edit_ms, edit_cpu, edit_added, restore_ms = [], [], [], []
        for round_ in range(5):
            base = store.snapshot().commit
            for path in rng.sample(sorted(ws.rglob("*.py")), 10):
                with path.open("a") as f:
                    f.write(f"# edit {round_}\n")
            before = _du(Path(tmp) / "store")
            _snap, ms, cpu = timed(store.snapshot)
            edit_ms.append(ms)
            edit_cpu.append(cpu)
            edit_added.append(_du(Path(tmp) / "store") - before)

            def restore(target: str = base) -> None:
                now = store.plan(target)[0]
                store.restore(now.commit, target)

            _r, ms, _cpu_ms = timed(restore)
            restore_ms.append(ms)
        return {
            "files": count,
            "filesBytes": size,
            "firstSnapshotMs": first_ms,
            "firstSnapshotCpuMs": first_cpu,
            "firstStoreBytes": first_disk,
            "unchangedSnapshotMs": statistics.median(same_ms),
            "unchangedSnapshotCpuMs": statistics.median(same_cpu),
            "unchangedAddedBytes": max(same_added),
            "tenFilesSnapshotMs": statistics.median(edit_ms),
            "tenFilesSnapshotCpuMs": statistics.median(edit_cpu),
            "tenFilesAddedBytes": statistics.median(edit_added),
            "restoreTenFilesMs": statistics.median(restore_ms),
            "firstCommit": first.commit,
        }


def aims(r: dict[str, Any]) -> list[tuple[str, float, str, bool]]:
    return [
        ("first snapshot", r["firstSnapshotMs"], "<= 5000 ms", r["firstSnapshotMs"] <= 5000),
        (
            "first store size / files size",
            r["firstStoreBytes"] / r["filesBytes"],
            "<= 1.0",
            r["firstStoreBytes"] <= r["filesBytes"],
        ),
        (
            "unchanged snapshot",
            r["unchangedSnapshotMs"],
            "<= 150 ms",
            r["unchangedSnapshotMs"] <= 150,
        ),
        ("unchanged adds", r["unchangedAddedBytes"], "0 bytes", r["unchangedAddedBytes"] == 0),
        ("10-file snapshot", r["tenFilesSnapshotMs"], "<= 200 ms", r["tenFilesSnapshotMs"] <= 200),
        (
            "10-file snapshot adds",
            r["tenFilesAddedBytes"] / 1024,
            "<= 64 KB",
            r["tenFilesAddedBytes"] <= 64 * 1024,
        ),
        ("restore of 10 files", r["restoreTenFilesMs"], "<= 400 ms", r["restoreTenFilesMs"] <= 400),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    ns = ap.parse_args()
    r = run(ns.files)
    if ns.json:
        r["aims"] = [{"figure": f, "value": v, "aim": a, "met": ok} for f, v, a, ok in aims(r)]
        print(json.dumps(r, indent=2))
        return 0
    mb = r["filesBytes"] / 1e6
    print(f"checkpoints on {r['files']} files ({mb:.1f} MB), real git")
    print(
        f"first snapshot      {r['firstSnapshotMs']:8.0f} ms  cpu {r['firstSnapshotCpuMs']:6.0f} ms"
        f"  store {r['firstStoreBytes'] / 1e6:.1f} MB on disk"
    )
    print(
        f"unchanged snapshot  {r['unchangedSnapshotMs']:8.1f} ms  cpu "
        f"{r['unchangedSnapshotCpuMs']:6.1f} ms  adds {r['unchangedAddedBytes']} B"
    )
    print(
        f"10 files changed    {r['tenFilesSnapshotMs']:8.1f} ms  cpu "
        f"{r['tenFilesSnapshotCpuMs']:6.1f} ms  adds {r['tenFilesAddedBytes'] / 1024:.1f} KB"
    )
    print(f"restore 10 files    {r['restoreTenFilesMs']:8.1f} ms (preview snapshot included)")
    for figure, value, aim, ok in aims(r):
        print(f"aim: {figure} = {value:.2f} (aim {aim}): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
