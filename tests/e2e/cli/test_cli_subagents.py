"""`gg -p` shows a subagent's progress as indented lines under its parent's tool lines."""

from __future__ import annotations

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)


def test_each_child_gets_indented_progress_lines(real_env: CliEnv) -> None:
    task = {
        "id": "t_1",
        "name": "task",
        "arguments": {"agent": "explore", "prompt": "CHILD: read it", "description": "look"},
    }
    real_env.model.add_steps(
        [
            {"toolCalls": [task], "when": {"firstUser": "PARENT"}},
            {
                "toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}],
                "when": {"firstUser": "CHILD"},
            },
            {"text": "child answer", "when": {"firstUser": "CHILD"}},
            {"text": "parent answer", "when": {"firstUser": "PARENT"}},
        ]
    )
    (real_env.ws / "README.md").write_text("hello\n")
    r = real_env.run("-p", "PARENT: delegate")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "parent answer\n"
    lines = r.stderr.splitlines()
    start = lines.index("  ↳ explore look …")
    assert lines[start + 1] == "    explore · read README.md"
    assert lines[start + 2] == "  ↳ explore done (2 turns, 1 tools)"
    assert any(ln.startswith("  ✓ task explore: look") for ln in lines[start + 3 :]), lines
    # The child session is listed only on request, naming its parent.
    plain = real_env.run("sessions", "list")
    assert plain.returncode == 0, plain.stderr
    assert "explore: look" not in plain.stdout
    listed = real_env.run("sessions", "list", "--children")
    assert listed.returncode == 0, listed.stderr
    child = next(ln for ln in listed.stdout.splitlines() if "explore: look" in ln)
    assert "↳ s_" in child
