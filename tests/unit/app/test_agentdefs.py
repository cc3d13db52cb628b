"""Agent definitions: Claude Code's subagent files parse unchanged; where files are looked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggd.app.agentdefs import (
    DefinitionError,
    definition_from_text,
    listing,
    load_catalog,
)

# A file as Claude Code's documentation writes one (comma-separated tools, a model alias).
CLAUDE_STYLE = """---
name: code-reviewer
description: Expert code review specialist. Proactively reviews code for quality, security,
  and maintainability. Use immediately after writing or modifying code.
tools: Read, Grep, Glob, Bash
model: sonnet
---

You are a senior code reviewer ensuring high standards of code quality and security.

When invoked:
1. Run git diff to see recent changes
"""

YAML_LIST = """---
name: "test-runner"
description: >
  Runs the tests
  and reports failures.
tools:
  - Read
  - Bash(pytest:*)
  - mcp__github__get_issue
  - Task
maxTurns: 12
---
Run the tests.
"""


def test_a_claude_code_definition_works_unchanged() -> None:
    d = definition_from_text(CLAUDE_STYLE, "x.md")
    assert d.name == "code-reviewer"
    assert d.description.startswith("Expert code review specialist. Proactively reviews")
    assert d.description.endswith("after writing or modifying code.")
    assert d.tools == ("read", "grep", "list", "bash")
    assert d.model == "sonnet" and d.max_turns is None
    assert d.prompt.startswith("You are a senior code reviewer")
    assert not d.may_delegate


def test_lists_folded_text_tool_patterns_and_max_turns() -> None:
    d = definition_from_text(YAML_LIST, "y.md")
    assert d.name == "test-runner"
    assert d.description == "Runs the tests and reports failures."
    assert d.tools == ("read", "bash", "mcp_github_get_issue", "task")
    assert d.max_turns == 12 and d.may_delegate


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("name: x\n", "no front matter"),
        ("---\nname: x\ndescription: y\n", "no closing"),
        ("---\ndescription: y\n---\n", "name: required"),
        ("---\nname: Bad Name\ndescription: y\n---\n", "name: required"),
        ("---\nname: x\n---\n", "description: required"),
        ("---\nname: x\ndescription: y\nmaxTurns: lots\n---\n", "maxTurns"),
    ],
)
def test_bad_definitions_say_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(DefinitionError, match=why):
        definition_from_text(text, "z.md")


def _write(folder: Path, name: str, text: str) -> None:
    (folder / ".agents" / "agents").mkdir(parents=True, exist_ok=True)
    (folder / ".agents" / "agents" / name).write_text(text)


def test_the_nearest_file_wins_and_bad_files_are_reported(tmp_path: Path) -> None:
    home, outer = tmp_path / "home", tmp_path / "outer"
    ws = outer / "project"
    ws.mkdir(parents=True)
    _write(home, "a.md", "---\nname: helper\ndescription: from home\n---\n")
    _write(home, "h.md", "---\nname: homeonly\ndescription: only at home\n---\n")
    _write(outer, "a.md", "---\nname: helper\ndescription: from the parent folder\n---\n")
    _write(ws, "a.md", "---\nname: helper\ndescription: from the project\n---\n")
    _write(ws, "e.md", "---\nname: explore\ndescription: my own explore\ntools: Read\n---\n")
    _write(ws, "broken.md", "no front matter here")
    cat = load_catalog(ws, home)
    assert cat.get("helper") is not None and cat.agents["helper"].description == "from the project"
    assert cat.agents["homeonly"].description == "only at home"
    assert cat.agents["explore"].description == "my own explore"  # a file replaces a builtin
    assert cat.get("general") is not None
    assert list(cat.problems) == [str(ws / ".agents" / "agents" / "broken.md")]
    assert listing(cat).splitlines()[0].startswith("- explore: my own explore")
    assert cat.names() == sorted(cat.names())
