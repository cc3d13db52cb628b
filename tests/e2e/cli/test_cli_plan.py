"""Plan mode and the todo list from the `gg` CLI: --approval plan refuses writes, the list is drawn."""

from __future__ import annotations

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)

TODOS = [
    {"content": "read the notes", "status": "completed"},
    {"content": "write the summary", "status": "in_progress"},
    {"content": "run the tests", "status": "pending"},
]


def test_plan_mode_refuses_the_write_and_the_todo_block_is_drawn(real_env: CliEnv) -> None:
    write = {"name": "write", "arguments": {"path": "notes.md", "content": "# n\n"}}
    todo = {"name": "todo_write", "arguments": {"todos": TODOS}}
    real_env.model.add_steps([{"toolCalls": [todo, write]}, {"text": "1. write notes.md"}])
    r = real_env.run("--approval", "plan", "-p", "plan the notes")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1. write notes.md\n"
    assert not (real_env.ws / "notes.md").exists()
    assert "plan mode" in r.stderr
    assert (
        "  todo list (1/3 done)\n"
        "    ☒ read the notes\n"
        "    ◐ write the summary\n"
        "    ☐ run the tests\n"
    ) in r.stderr, r.stderr
