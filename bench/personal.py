"""Benchmark of the per-turn cost of the personal layer and skills (they re-read files every turn).

Run: .venv/bin/python bench/personal.py [--json] [--skills 10] [--entries 500]
Prints median times of: skill discovery, the memory prompt section, one memory_add (locked,
fsynced), one memory_search over every entry.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from ggd.capabilities.personal.prompt import memory_text  # noqa: E402
from ggd.capabilities.personal.scope import parse_scope  # noqa: E402
from ggd.capabilities.personal.search import search  # noqa: E402
from ggd.capabilities.personal.store import MemoryStore  # noqa: E402
from ggd.capabilities.skills.discovery import discover  # noqa: E402


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run(skills: int, entries: int) -> dict[str, float]:
    """The figures, in milliseconds."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = root / "src" / "project"
        for i in range(skills):
            d = ws / ".agents" / "skills" / f"skill-{i}"
            d.mkdir(parents=True)
            (d / "SKILL.md").write_text(
                f"---\nname: skill-{i}\ndescription: Skill {i}.\n---\nBody\n"
            )
        store = MemoryStore(root / "gg")
        general, daily = parse_scope("general"), parse_scope("daily")
        for i in range(entries):
            store.add(f"fact {i}: deploys of service {i % 17} go through review", general)
        add_ms = _median_ms(lambda: store.add("one more fact about deploys", daily), 50)
        return {
            "discover_ms": _median_ms(lambda: discover(ws, root / "home"), 100),
            "memory_section_ms": _median_ms(
                lambda: memory_text(store.curated(), store.today_log(), store.today(), 4000, 2000),
                100,
            ),
            "memory_add_ms": add_ms,
            "memory_search_ms": _median_ms(lambda: search(store, "deploys service 3"), 50),
        }


def main() -> int:
    """CLI entry point."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skills", type=int, default=10)
    ap.add_argument("--entries", type=int, default=500)
    ns = ap.parse_args()
    figures = run(ns.skills, ns.entries)
    if ns.json:
        print(json.dumps(figures))
    else:
        print(f"personal layer and skills ({ns.skills} skills, {ns.entries} memory entries):")
        for key, value in figures.items():
            print(f"  {key:<20} {value:8.3f} ms (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
