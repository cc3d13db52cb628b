"""What a tool did is visible: output previews, exit codes and whole denial reasons with gg's flags."""

from __future__ import annotations

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)


def _bash(command: str) -> dict[str, object]:
    return {"toolCalls": [{"name": "bash", "arguments": {"command": command}}]}


def test_bash_output_is_previewed_and_verbose_shows_all(real_env: CliEnv) -> None:
    real_env.model.add_steps([_bash("seq 1 12"), {"text": "counted"}])
    r = real_env.run("--yolo", "-p", "count")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "counted\n"  # the answer stays alone on stdout
    lines = r.stderr.splitlines()
    at = lines.index("  ✓ bash seq 1 12")
    assert lines[at + 1 : at + 7] == [
        "    │ 1",
        "    │ 2",
        "    │ 3",
        "    │ 4",
        "    │ 5",
        "    … 7 more lines (--verbose shows all)",
    ]
    real_env.model.add_steps([_bash("seq 1 12"), {"text": "counted"}])
    r = real_env.run("--yolo", "--verbose", "-p", "count")
    assert r.returncode == 0, r.stderr
    assert [f"    │ {i}" for i in range(1, 13)] == [ln for ln in r.stderr.splitlines() if "│" in ln]
    assert "more lines" not in r.stderr


def test_a_failed_command_shows_its_exit_code_and_output(real_env: CliEnv) -> None:
    real_env.model.add_steps([_bash("echo oops >&2; exit 3"), {"text": "it failed"}])
    r = real_env.run("--yolo", "-p", "try")
    assert r.returncode == 0, r.stderr
    assert "  ✗ bash echo oops >&2; exit 3 — exit 3\n    │ oops\n" in r.stderr


def test_a_denied_write_prints_the_whole_reason_and_gg_flags(real_env: CliEnv) -> None:
    write = {"name": "write", "arguments": {"path": "notes.md", "content": "# n\n"}}
    real_env.model.add_steps([{"toolCalls": [write]}, {"text": "could not write"}])
    r = real_env.run("-p", "write notes")  # piped: nobody can approve
    assert r.returncode == 0, r.stderr
    assert not (real_env.ws / "notes.md").exists()
    reason = next(ln.strip() for ln in r.stderr.splitlines() if "not interactive" in ln)
    assert len(reason) > 120 and not reason.endswith("…")  # never clipped
    assert reason.endswith("to allow them"), reason
    assert "hint: rerun with --yolo, or with --approval on-request in a terminal" in r.stderr


def test_a_read_line_says_how_much_of_the_file_it_showed(real_env: CliEnv) -> None:
    (real_env.ws / "long.md").write_text("".join(f"line {i}\n" for i in range(1, 192)))
    real_env.model.add_steps(
        [
            {"toolCalls": [{"name": "read", "arguments": {"path": "long.md"}}]},
            {"toolCalls": [{"name": "read", "arguments": {"path": "long.md", "limit": 120}}]},
            {"text": "read it"},
        ]
    )
    r = real_env.run("-p", "read long.md")
    assert r.returncode == 0, r.stderr
    assert "✓ read long.md (191 lines)" in r.stderr
    assert "(lines 1-120 of 191)" in r.stderr
