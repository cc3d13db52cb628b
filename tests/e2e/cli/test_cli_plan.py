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


def test_the_interactive_session_switches_to_plan_mode_and_back(real_env: CliEnv) -> None:
    write = {"name": "write", "arguments": {"path": "notes.md", "content": "# n\n"}}
    todo = {"name": "todo_write", "arguments": {"todos": TODOS[:1]}}
    real_env.model.add_steps(
        [
            {"toolCalls": [todo, write]},
            {"text": "1. write notes.md"},
            {"toolCalls": [write]},
            {"text": "written"},
        ]
    )
    p = real_env.pty("--name", "planning")
    p.expect("gg> ")
    p.send("/mode plan\r")
    p.expect("approval mode plan from the next turn")
    p.expect("gg> ")
    p.send("plan the notes\r")
    p.expect("1. write notes.md")
    p.expect("gg> ")
    assert not (real_env.ws / "notes.md").exists()
    p.send("/todos\r")
    p.expect(r"todo list \(1/1 done\)")
    p.expect("gg> ")
    p.send("/mode yolo\r")
    p.expect("gg> ")
    p.send("go ahead\r")
    p.expect("written")
    p.expect("gg> ")
    assert (real_env.ws / "notes.md").read_text() == "# n\n"
    p.send("/mode bogus\r")
    p.expect("unknown mode 'bogus'")
    p.expect("gg> ")  # Ctrl+D typed before the prompt reads is the terminal's EOF, not gg's
    p.send("\x04")
    assert p.wait() == 0
