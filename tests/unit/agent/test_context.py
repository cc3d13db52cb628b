"""System prompt assembly and token estimates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ggd.agent import AgentOptions, build_system_prompt, estimate_tokens

from .helpers import RecTool, ScriptedProvider, make_loop, reply


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_agents_files_are_labelled_and_nearest_comes_last(tmp_path: Path, gg_home: Path) -> None:
    ws = tmp_path / "outer" / "inner" / "ws"
    write(gg_home / "AGENTS.md", "GLOBAL RULE")
    write(tmp_path / "outer" / "AGENTS.md", "OUTER RULE")
    write(ws / "AGENTS.md", "WORKSPACE RULE")
    write(ws / "sub" / "AGENTS.md", "NOT AN ANCESTOR")
    tools = [RecTool("read", []), RecTool("bash", [])]
    prompt = build_system_prompt(ws, gg_home, tools, "EXTRA NOTE", today=dt.date(2026, 1, 2))
    order = [prompt.index(s) for s in ("GLOBAL RULE", "OUTER RULE", "WORKSPACE RULE")]
    assert order == sorted(order)
    assert "NOT AN ANCESTOR" not in prompt
    assert f"AGENTS.md (global: {gg_home / 'AGENTS.md'})" in prompt
    assert f"AGENTS.md (workspace: {ws.resolve() / 'AGENTS.md'})" in prompt
    assert f"Workspace: {ws}" in prompt and "2026-01-02" in prompt
    assert "Tools: read, bash" in prompt
    assert prompt.rstrip().endswith("EXTRA NOTE")


def test_gg_home_inside_the_workspace_is_not_repeated(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "ONCE")
    prompt = build_system_prompt(tmp_path, tmp_path, [], None)
    assert prompt.count("ONCE") == 1


def test_estimate_counts_content_and_tool_arguments() -> None:
    plain = [{"role": "user", "content": "x" * 400}]
    assert estimate_tokens(plain) == 100 + 4
    with_args = [
        {
            "role": "assistant",
            "content": "",
            "toolCalls": [{"id": "1", "name": "write", "arguments": {"content": "y" * 800}}],
        }
    ]
    assert estimate_tokens(with_args) > 200
    openai_form = [
        {"role": "assistant", "tool_calls": [{"function": {"name": "w", "arguments": "z" * 400}}]}
    ]
    assert estimate_tokens(openai_form) > 100


async def test_loop_builds_the_prompt_when_none_is_given(tmp_path: Path, gg_home: Path) -> None:
    write(gg_home / "AGENTS.md", "ALWAYS BE BRIEF")
    provider = ScriptedProvider(reply("ok"))
    h = make_loop(provider, [RecTool("read", [])], tmp_path, options=AgentOptions(gg_home=gg_home))
    await h.loop.run("hi")
    system = provider.requests[0].messages[0]
    assert system["role"] == "system" and "ALWAYS BE BRIEF" in system["content"]
    assert "Tools: read" in system["content"]


def test_an_image_counts_as_image_tokens_not_its_base64() -> None:
    from ggd.tools.images import IMAGE_TOKENS

    url = "data:image/png;base64," + "A" * 2_000_000
    parts = [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": url}}]
    sent = estimate_tokens([{"role": "user", "content": parts}])
    assert IMAGE_TOKENS <= sent < IMAGE_TOKENS + 20
    stored = {"role": "user", "content": "hi", "images": [{"id": "img_x"}, {"id": "img_y"}]}
    assert 2 * IMAGE_TOKENS <= estimate_tokens([stored]) < 2 * IMAGE_TOKENS + 20
