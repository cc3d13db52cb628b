"""Cost of the protocol gate (ggd/transport/guard.py + ggd/rpc/envelope.py) per message.

    .venv/bin/python bench/protocol_gate.py [--repeat 2000]

In-process, no daemon: times `guard.parse` (UTF-8, depth, JSON) for an ordinary request, a
tool-call-sized request, and the worst 4 MiB inputs for the depth scan, next to plain json.loads.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ggd.transport import guard


def _time(fn: Any, arg: bytes, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn(arg)
    return (time.perf_counter() - start) / repeat


def main() -> None:
    """Print microseconds per call for each input."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2000)
    ns = ap.parse_args()
    small = json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "gg/session.list", "params": {"limit": 5}}
    )
    args = {"path": "src/app.py", "edits": [{"oldText": "x" * 2000, "newText": "y" * 2000}] * 20}
    tool = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "gg/run.steer", "params": args})
    cases = [
        ("ordinary request", small.encode(), ns.repeat),
        ("80 KB, 80 brackets", tool.encode(), ns.repeat // 10),
        ("4 MiB of [],[],...", b"[" + b"[]," * (1400 * 1024) + b"[]]", 3),
        ("4 MiB nested [[[...]]]", b"[" * (2 * 1024 * 1024) + b"]" * (2 * 1024 * 1024), 3),
        ("4 MiB string", b'["' + b"a" * (4 * 1024 * 1024 - 4) + b'"]', 3),
    ]
    print(f"{'input':28} {'guard.parse':>14} {'json.loads':>14}")
    for name, body, repeat in cases:
        gate = _time(guard.parse, body, repeat)
        try:
            plain = f"{_time(json.loads, body, repeat) * 1e6:11.0f} us"
        except RecursionError:
            plain = "RecursionError"
        except ValueError:
            plain = "invalid"
        print(f"{name:28} {gate * 1e6:11.0f} us {plain:>14}")


if __name__ == "__main__":
    main()
