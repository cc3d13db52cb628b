"""/proc readers the benches share, stdlib only (bench/_ws_reader.py processes import it too)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["cpu_seconds"]


def cpu_seconds(pid: int) -> float:
    """CPU seconds of every thread of a process.

    From /proc/<pid>/task/*/schedstat (nanoseconds): /proc/<pid>/stat counts 10 ms ticks, too
    coarse for a run that costs 0.2 s (one tick is 5 %). Falls back to the ticks where the
    kernel keeps no schedstat.
    """
    total = 0
    found = False
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int((task / "schedstat").read_text().split()[0])
                found = True
    if found:
        return total / 1e9
    stat = Path(f"/proc/{pid}/stat").read_text()
    # Fields after the ")" that ends the command name: utime and stime are fields 14 and 15.
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
