"""Benchmark of the artifact and library stores: edit latency (alone and contended), publish, add.

Run: .venv/bin/python bench/artifacts.py [--json] [--dir DIR]
Files go to a temp dir (under --dir when given); every write is fsynced, so the disk decides.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ggd.capabilities.artifacts.artifact_store import ArtifactStore  # noqa: E402
from ggd.capabilities.artifacts.library_store import LibraryStore  # noqa: E402
from ggd.capabilities.artifacts.publish import publish  # noqa: E402

MiB = 1024 * 1024
EDITOR = (
    "import sys; from pathlib import Path;"
    "from ggd.capabilities.artifacts.artifact_store import ArtifactStore;"
    "s = ArtifactStore(Path(sys.argv[1])); sys.stdin.readline();"
    "[s.edit(sys.argv[2], 'x' * 2000) for _ in range(int(sys.argv[3]))]"
)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_edit(home: Path, n: int = 200) -> dict[str, float]:
    """Latency (ms) of one 2 KB edit, one process."""
    store = ArtifactStore(home)
    meta = store.create("bench", "markdown", "x", "s")
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        store.edit(meta.id, "x" * 2000)
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": _pct(times, 0.5), "p99_ms": _pct(times, 0.99), "n": n}


def bench_contended(home: Path, n: int = 50) -> dict[str, float]:
    """Wall time (s) of two processes making n edits each on one artifact."""
    store = ArtifactStore(home)
    meta = store.create("bench", "markdown", "x", "s")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", EDITOR, str(home), meta.id, str(n)],
            stdin=subprocess.PIPE,
            cwd=REPO,
            text=True,
        )
        for _ in range(2)
    ]
    t0 = time.perf_counter()
    for p in procs:
        p.communicate("go\n", timeout=300)
    wall = time.perf_counter() - t0
    assert store.get(meta.id).version == 2 * n + 1
    return {"wall_s": wall, "edits_per_s": 2 * n / wall}


def bench_publish(home: Path, size: int) -> dict[str, float]:
    """Latency (ms) of publishing one version of `size` bytes."""
    arts, lib = ArtifactStore(home), LibraryStore(home)
    times = []
    for _ in range(20):
        meta = arts.create("bench", "markdown", "x" * size, "s")
        t0 = time.perf_counter()
        publish(arts, lib, meta.id)
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": _pct(times, 0.5), "size": size}


def bench_add(home: Path, src: Path) -> dict[str, float]:
    """Throughput (MiB/s) of adding a 50 MiB file, and the time to refuse a 51 MiB one."""
    lib = LibraryStore(home)
    with open(src, "wb") as fh:
        fh.write(b"\1" * (50 * MiB))
    t0 = time.perf_counter()
    with open(src, "rb") as fh:
        lib.add_stream("big.bin", fh, "file")
    ok = time.perf_counter() - t0
    with open(src, "ab") as fh:
        fh.write(b"\1" * MiB)
    t0 = time.perf_counter()
    try:
        with open(src, "rb") as fh:
            lib.add_stream("bigger.bin", fh, "file")
    except Exception:
        pass
    refused = time.perf_counter() - t0
    return {"add_MiB_per_s": 50 / ok, "refuse_51MiB_s": refused}


def main() -> int:
    """Run every measurement and print a table (or JSON)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--dir", type=Path)
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=ns.dir) as tmp:
        root = Path(tmp)
        out: dict[str, Any] = {
            "edit": bench_edit(root / "a"),
            "contended_2x50": bench_contended(root / "b"),
            "publish_100KiB": bench_publish(root / "c", 100 * 1024),
            "publish_1MiB": bench_publish(root / "d", MiB),
            "library_add": bench_add(root / "e", root / "src.bin"),
        }
    if ns.json:
        print(json.dumps(out, indent=2))
        return 0
    for name, figures in out.items():
        row = ", ".join(
            f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()
        )
        print(f"{name:<16} {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
