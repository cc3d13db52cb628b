"""The 10-step fix-the-bug task every model kind's end-to-end tests run (its data only).

A workspace with a wrong mean() and a test of it; a script of ten model requests: nine with tool
calls (list, two reads in parallel, grep, the failing test, a wrong edit the test denies, the
right edit, the passing test, a read and a grep), then the answer. Approvals, in order: bash
(allow), edit (deny), edit (allow), bash (allow). Scripts use the shared step format
(ggd/providers/scripted.py), so every fake serves it in its own wire format.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["ANSWER", "APPROVALS", "BUGGY", "FIXED", "FIX_THE_BUG", "make_project"]

BUGGY = (
    "def mean(values):\n    # TODO: fix the average\n    return sum(values) / (len(values) - 1)\n"
)
FIXED = "def mean(values):\n    # TODO: fix the average\n    return sum(values) / len(values)\n"
TEST = (
    "import sys\nsys.path.insert(0, 'src')\nfrom stats import mean\n"
    "assert mean([1, 2, 3]) == 2, mean([1, 2, 3])\nprint('tests ok')\n"
)
ANSWER = "Fixed: mean divides by len(values) and the test passes."
RUN_TEST = {"name": "bash", "arguments": {"command": "python3 test_stats.py"}}


def _edit(old: str, new: str) -> dict[str, Any]:
    return {
        "name": "edit",
        "arguments": {"path": "src/stats.py", "edits": [{"oldText": old, "newText": new}]},
    }


def _read(path: str) -> dict[str, Any]:
    return {"name": "read", "arguments": {"path": path}}


FIX_THE_BUG: list[dict[str, Any]] = [
    {
        "thinking": "Find the code first.",
        "text": "Looking around.",
        "toolCalls": [{"name": "list", "arguments": {"path": "."}}],
    },
    {
        "expect": {"lastTool": "test_stats.py"},
        "toolCalls": [_read("src/stats.py"), _read("test_stats.py")],
    },
    {
        "expect": {"lastTool": "mean([1, 2, 3])"},
        "toolCalls": [{"name": "grep", "arguments": {"pattern": "len(values)", "literal": True}}],
    },
    {"thinking": "Run the test to see it fail.", "toolCalls": [RUN_TEST]},
    {
        "expect": {"lastTool": "AssertionError"},
        "chunkSize": 5,
        "toolCalls": [_edit("(len(values) - 1)", "(len(values) + 1)")],
    },
    {
        "expect": {"lastTool": "denied"},
        "thinking": "Dividing by len is the mean.",
        "toolCalls": [_edit("(len(values) - 1)", "len(values)")],
    },
    {"expect": {"lastTool": "src/stats.py"}, "toolCalls": [RUN_TEST]},
    {"expect": {"lastTool": "tests ok"}, "toolCalls": [_read("src/stats.py")]},
    {
        "expect": {"lastTool": "/ len(values)"},
        "toolCalls": [{"name": "grep", "arguments": {"pattern": "TODO", "literal": True}}],
    },
    {
        "expect": {"lastTool": "TODO"},
        "text": ANSWER,
    },
]
APPROVALS = [("bash", True), ("edit", False), ("edit", True), ("bash", True)]


def make_project(ws: Path) -> None:
    """The task's workspace: src/stats.py with the bug, test_stats.py that shows it."""
    (ws / "src").mkdir()
    (ws / "src" / "stats.py").write_text(BUGGY)
    (ws / "test_stats.py").write_text(TEST)
