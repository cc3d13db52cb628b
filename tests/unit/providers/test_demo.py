"""The offline demo model: labelled steps through the real SSE parsing path, truthful reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ggd.providers import ChatRequest, Completed, DemoProvider, TextDelta, ToolCall
from ggd.providers.demo import pick_file

TOOLS = [
    {"type": "function", "function": {"name": n}}
    for n in ("read", "list", "grep", "bash", "edit", "write")
]


async def turn(provider: DemoProvider, messages: list[dict[str, Any]]) -> Completed:
    """One model call; asserts the text streamed as deltas and is labelled."""
    deltas: list[str] = []
    done: Completed | None = None
    async for ev in provider.stream(ChatRequest(model="gg-demo", messages=messages, tools=TOOLS)):
        if isinstance(ev, TextDelta):
            deltas.append(ev.text)
        elif isinstance(ev, Completed):
            done = ev
    assert done is not None and len(deltas) > 1 and "".join(deltas) == done.text
    assert done.text.startswith("[demo model] ")
    return done


def run_tool(call: ToolCall, workspace: Path, allow_write: bool) -> str:
    """A tiny stand-in for the builtin tools, enough to drive the script (the real tools are
    exercised end to end in tests/e2e/cli/test_cli_demo.py)."""
    if call.name == "list":
        return "\n".join(sorted(p.name + ("/" if p.is_dir() else "") for p in workspace.iterdir()))
    if call.name == "read":
        return (workspace / call.arguments["path"]).read_text()
    if call.name == "grep":
        hits = [
            f"{p.name}:{i}:{line}"
            for p in sorted(workspace.glob("*.py"))
            for i, line in enumerate(p.read_text().splitlines(), 1)
            if "TODO" in line
        ]
        return "\n".join(hits) or "no matches"
    if call.name in ("edit", "bash"):
        if not allow_write:
            return "denied: the user denied this"
        if call.name == "bash":
            return "ok"
        target = workspace / call.arguments["path"]
        for e in call.arguments["edits"]:
            target.write_text(target.read_text().replace(e["oldText"], e["newText"]))
        return f"edited {call.arguments['path']}"
    raise AssertionError(call)


async def drive(
    workspace: Path, allow_write: bool = True
) -> tuple[list[Completed], list[dict[str, Any]]]:
    provider = DemoProvider()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "what is this project?"}]
    answers: list[Completed] = []
    for _ in range(8):
        done = await turn(provider, messages)
        answers.append(done)
        if not done.tool_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": done.text,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in done.tool_calls
                ],
            }
        )
        for c in done.tool_calls:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": c.id,
                    "content": run_tool(c, workspace, allow_write),
                }
            )
    await provider.aclose()
    return answers, messages


SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "demo-project"


def copy_sample(dest: Path) -> None:
    for f in SAMPLE.iterdir():
        (dest / f.name).write_text(f.read_text())


async def test_in_the_sample_project_it_lists_reads_greps_edits_and_runs(tmp_path: Path) -> None:
    copy_sample(tmp_path)
    answers, _ = await drive(tmp_path)
    names = [a.tool_calls[0].name if a.tool_calls else None for a in answers]
    assert names == ["list", "read", "grep", "edit", "bash", None]
    assert answers[1].tool_calls[0].arguments == {"path": "README.md"}
    assert "return sum(values) / len(values)" in (tmp_path / "stats.py").read_text()
    assert answers[4].tool_calls[0].arguments == {"command": "python3 test_stats.py"}
    final = answers[-1].text
    readme_lines = len([ln for ln in (SAMPLE / "README.md").read_text().splitlines() if ln.strip()])
    assert f"read README.md ({readme_lines} lines)" in final
    assert "edited stats.py" in final and "ran `python3 test_stats.py`" in final
    assert "OPENAI_API_KEY" in final and "GG_MODEL" in final and "config.json" in final
    assert answers[-1].stop_reason == "end_turn"


async def test_outside_the_sample_it_proposes_no_write_and_says_only_what_it_did(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "README.md").write_text("# My project\n\nthree\nlines\n")
    answers, _ = await drive(tmp_path)
    names = [a.tool_calls[0].name if a.tool_calls else None for a in answers]
    assert names == ["list", "read", "grep", None]
    final = answers[-1].text
    assert "read README.md (3 lines)" in final and "searched for TODO (0 matching lines)" in final
    assert "edited" not in final and "demo project" in final


async def test_demo_reads_the_first_file_without_a_readme(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x\n")
    answers, _ = await drive(tmp_path)
    assert answers[1].tool_calls[0] == ToolCall(
        answers[1].tool_calls[0].id, "read", {"path": "notes.txt"}
    )


async def test_demo_greps_for_todo_in_an_empty_folder(tmp_path: Path) -> None:
    answers, _ = await drive(tmp_path)
    assert answers[1].tool_calls[0].name == "grep"
    assert answers[1].tool_calls[0].arguments == {"pattern": "TODO"}
    assert "read " not in answers[-1].text  # it never claims a read it did not do


async def test_denied_edit_is_acknowledged_and_the_turn_ends(tmp_path: Path) -> None:
    copy_sample(tmp_path)
    answers, _ = await drive(tmp_path, allow_write=False)
    assert [a.tool_calls[0].name if a.tool_calls else None for a in answers][-2:] == ["edit", None]
    assert "not allowed" in answers[-1].text and "edited stats.py (denied)" in answers[-1].text
    assert "len(values) - 1" in (tmp_path / "stats.py").read_text()


async def test_a_new_user_message_restarts_the_script(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    _, messages = await drive(tmp_path)
    messages.append({"role": "user", "content": "again"})
    provider = DemoProvider()
    done = await turn(provider, messages)
    assert done.tool_calls[0].name == "list"
    await provider.aclose()


async def test_without_tools_the_demo_just_explains() -> None:
    provider = DemoProvider()
    done: Completed | None = None
    async for ev in provider.stream(
        ChatRequest(model="gg-demo", messages=[{"role": "user", "content": "hi"}])
    ):
        if isinstance(ev, Completed):
            done = ev
    assert done is not None and not done.tool_calls and "GG_MODEL" in done.text
    assert provider.is_demo and provider.name == "demo" and provider.default_model == "gg-demo"
    await provider.aclose()


def test_pick_file_handles_listing_shapes() -> None:
    assert pick_file("src/\nREADME.rst\nzeta.py") == "README.rst"
    assert pick_file("- docs/\n- main.go  (120 bytes)\n") == "main.go"
    assert pick_file("a/\nb/\n") is None
    assert pick_file("") is None
