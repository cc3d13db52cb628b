"""The offline demo model: four labelled steps through the real SSE parsing path."""

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
    """A tiny stand-in for the builtin tools, enough to drive the script."""
    if call.name == "list":
        return "\n".join(sorted(p.name + ("/" if p.is_dir() else "") for p in workspace.iterdir()))
    if call.name == "read":
        return (workspace / call.arguments["path"]).read_text()
    if call.name == "grep":
        return "no matches"
    if call.name == "write":
        if not allow_write:
            return "Denied by the user."
        (workspace / call.arguments["path"]).write_text(call.arguments["content"])
        return "wrote gg-demo.md"
    raise AssertionError(call)


async def drive(
    workspace: Path, allow_write: bool = True
) -> tuple[list[Completed], list[dict[str, Any]]]:
    provider = DemoProvider()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "what is this project?"}]
    answers: list[Completed] = []
    for _ in range(6):
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


async def test_demo_lists_reads_readme_writes_and_explains(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "app.py").write_text("print('hi')\n")
    (tmp_path / "README.md").write_text("# My project\n")
    answers, _ = await drive(tmp_path)
    assert [a.tool_calls[0].name if a.tool_calls else None for a in answers] == [
        "list",
        "read",
        "write",
        None,
    ]
    assert answers[0].tool_calls[0].arguments == {"path": "."}
    assert answers[1].tool_calls[0].arguments == {"path": "README.md"}
    assert answers[2].tool_calls[0].arguments["path"] == "gg-demo.md"
    assert (tmp_path / "gg-demo.md").read_text().startswith("# gg demo")
    final = answers[3].text
    assert "OPENAI_API_KEY" in final and "GG_MODEL" in final and "config.json" in final
    assert answers[3].stop_reason == "end_turn"


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


async def test_denied_write_is_acknowledged_and_the_turn_ends(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    answers, _ = await drive(tmp_path, allow_write=False)
    assert len(answers) == 4 and not answers[-1].tool_calls
    assert "denied" in answers[-1].text.lower() and "OPENAI_API_KEY" in answers[-1].text
    assert not (tmp_path / "gg-demo.md").exists()


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
