"""Rendering: streaming Markdown, tool lines, approval prompts, trees, NO_COLOR."""

from __future__ import annotations

import io

import pytest

from ggcli.render import (
    MarkdownStream,
    Style,
    approval_prompt,
    format_context,
    format_sessions,
    format_tool_line,
    format_tree,
    use_color,
)

ON = Style(True)
BOLD, CYAN, RESET = "\x1b[1m", "\x1b[36m", "\x1b[0m"


def render(chunks: list[str], style: Style = ON) -> str:
    md = MarkdownStream(style)
    return "".join(md.feed(c) for c in chunks) + md.finish()


def plain(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


SAMPLE = "# Title\nsome **bold** and `code` here\n```py\nx = 1  # not a heading\n```\n* list\n"


def test_plain_style_is_the_identity() -> None:
    assert render([SAMPLE], Style(False)) == SAMPLE


@pytest.mark.parametrize("size", [1, 2, 3, 5, 100])
def test_chunking_does_not_change_the_result(size: int) -> None:
    chunks = [SAMPLE[i : i + size] for i in range(0, len(SAMPLE), size)]
    assert render(chunks) == render([SAMPLE])
    rendered = SAMPLE.replace("**", "").replace("`code`", "code")
    rendered = rendered.replace("```py\nx", "╭─ py\n│ x").replace("```\n*", "╰─\n*")
    assert plain(render(chunks)) == rendered


def test_styles_are_applied() -> None:
    out = render([SAMPLE])
    assert "\x1b[0m\x1b[1;35m# Title" in out
    assert "\x1b[0m\x1b[1mbold\x1b[0m" in out
    assert f"\x1b[0m{CYAN}code\x1b[0m" in out
    # Inside the fence nothing is interpreted, and the block is coloured with a labelled gutter.
    assert (
        "\x1b[2m╭─ py\x1b[0m\n\x1b[0m\x1b[36m\x1b[2m│ \x1b[0m\x1b[0m\x1b[36mx = 1  # not a heading\n"
        in out
    )
    assert "```" not in out


def test_text_streams_without_waiting_for_the_line_end() -> None:
    md = MarkdownStream(ON)
    assert md.feed("Hello wor") == "Hello wor"
    assert md.feed("ld") == "ld"
    assert md.feed("\n#") == "\n"  # a '#' at the start of a line waits for one more character
    assert md.feed("x") == "#x"


def test_unclosed_styles_are_reset_at_the_end() -> None:
    out = render(["**bold forever"])
    assert out.endswith(RESET)


def test_tool_lines() -> None:
    assert format_tool_line("read", "read a.txt", True) == "  ✓ read a.txt"
    assert format_tool_line("bash", "ls -la", True) == "  ✓ bash ls -la"
    line = format_tool_line("bash", "false", False, "exit 1\nmore")
    assert line == "  ✗ bash false — exit 1"
    assert "\x1b[31m" in format_tool_line("bash", "x", False, "boom", ON)


def test_approval_prompt_shows_tool_summary_risk_reason_and_diff() -> None:
    approval = {
        "id": "a1",
        "toolName": "edit",
        "summary": "edit src/x.py",
        "risk": "dangerous",
        "riskReason": "touches many files",
        "details": {"diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"},
    }
    text = approval_prompt(approval)
    assert text.splitlines() == [
        "? approve edit: edit src/x.py",
        "  risk: dangerous (touches many files)",
        "  --- a/x",
        "  +++ b/x",
        "  @@ -1 +1 @@",
        "  -old",
        "  +new",
        "  allow? [y]es / [n]o / [a]lways this session: ",
    ]
    coloured = approval_prompt(approval, ON)
    assert "\x1b[32m+new" in coloured and "\x1b[31m-old" in coloured
    assert "\x1b[31mdangerous" in coloured


def test_approval_prompt_with_details_as_text() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"
    coloured = approval_prompt({"id": "a", "toolName": "edit", "summary": "s", "details": diff}, ON)
    assert "\x1b[32m+new" in coloured and "\x1b[31m-old" in coloured
    preview = approval_prompt(
        {"id": "a", "toolName": "write", "summary": "s", "details": "-x\n"}, ON
    )
    assert "  -x" in preview and "\x1b[31m-x" not in preview


def test_approval_prompt_without_details_or_risk() -> None:
    text = approval_prompt(
        {"id": "a", "toolName": "bash", "summary": "rm x", "details": {"command": "rm x"}}
    )
    assert "risk: normal" in text
    assert "  rm x" in text.splitlines()


def test_tree_and_sessions() -> None:
    tree = [
        {"id": "m1", "depth": 0, "role": "user", "text": "hi", "active": True},
        {
            "id": "m2",
            "parentId": "m1",
            "role": "assistant",
            "text": "hello\nthere",
            "active": False,
        },
    ]
    assert format_tree(tree) == "● m1 user: hi ◀ head\n○ m2 assistant: hello there"
    assert format_tree([]) == "(empty session)"
    rows = format_sessions([{"id": "s1", "name": "n", "messageCount": 3, "activeRunId": "r"}])
    assert rows.startswith("s1  n (running)  3 msgs  -")
    assert format_sessions([]) == "no sessions in this workspace"


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_use_color_honours_no_color_and_dumb_terminals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_color(FakeTty())
    assert not use_color(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(FakeTty())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color(FakeTty())


def test_format_context_shows_use_against_the_budget() -> None:
    info = {"model": "openai:m", "contextTokens": 5120, "promptBudget": 24000}
    info |= {"messageCount": 14, "hasSummary": True}
    assert format_context(info) == (
        "context: 5,120 of 24,000 tokens (21%) · 14 messages in context"
        " · older turns summarised · openai:m"
    )
    assert format_context({"contextTokens": 7}) == "context: 7 tokens · ? messages in context"
    assert format_context({}).startswith("context: unknown size")


def test_tool_result_previews_output_and_counts_the_rest() -> None:
    from ggcli.render import format_tool_result

    out = "\n".join(f"l{i}" for i in range(1, 9)) + "\n[exit code: 0]"
    text = format_tool_result("bash", "bash ls", True, out, details={"exitCode": 0})
    assert text.splitlines() == [
        "  ✓ bash ls",
        *[f"    │ l{i}" for i in range(1, 6)],
        "    … 3 more lines (--verbose shows all)",
    ]
    full = format_tool_result("bash", "bash ls", True, out, verbose=True)
    assert full.count("│") == 8 and "[exit code" not in full
    assert format_tool_result("read", "read a", True, "a\nb\n") == "  ✓ read a (2 lines)"


def test_tables_are_drawn_with_aligned_columns() -> None:
    table = "Intro\n| name | **n** |\n|:-----|----:|\n| `a` | 1 |\n| bbbb | 22 |\nafter\n"
    md = MarkdownStream(Style(False), render=True)
    out = "".join(md.feed(ch) for ch in table) + md.finish()  # streamed one char at a time
    assert out == (
        "Intro\n"
        "┌──────┬────┐\n"
        "│ name │  n │\n"
        "├──────┼────┤\n"
        "│ `a`  │  1 │\n"
        "│ bbbb │ 22 │\n"
        "└──────┴────┘\n"
        "after\n"
    )


def terminal_lines(out: str) -> list[str]:
    """What a terminal shows: backspaces take back characters, clear-to-end is a no-op here."""
    lines = []
    for raw in out.replace("\x1b[K", "").split("\n"):
        shown: list[str] = []
        for ch in raw:
            if ch == "\b":
                if shown:
                    shown.pop()
            else:
                shown.append(ch)
        lines.append("".join(shown).rstrip())
    return [ln for ln in lines if ln] if lines else []


def test_long_lines_break_between_words_not_inside_them() -> None:
    md = MarkdownStream(Style(False), render=True, width=20)
    text = "the quick brown fox jumps over the lazy dog again and again\n"
    out = "".join(md.feed(text[i : i + 3]) for i in range(0, len(text), 3)) + md.finish()
    lines = terminal_lines(out)
    assert all(len(ln) <= 20 for ln in lines), lines
    assert " ".join(lines) == text.strip()  # every word whole, in order
    md = MarkdownStream(Style(False), render=True, width=20)
    code = "```\n" + "x" * 30 + " = 1\n```\n"
    assert "x" * 30 + " = 1" in md.feed(code) + md.finish()  # code is never re-flowed


def test_wrapping_streams_a_word_before_its_end_arrives() -> None:
    md = MarkdownStream(Style(False), render=True, width=20)
    assert md.feed("working on it") == "working on it"  # shown now, though "it" may grow


def test_tree_branches_where_it_splits_and_collapses_straight_runs() -> None:
    tree: list[dict[str, object]] = []
    prev = None
    for k in range(6):
        tree.append(
            {"id": f"u{k}", "parentId": prev, "role": "user", "text": f"q{k}", "active": True}
        )
        tree.append({"id": f"a{k}", "parentId": f"u{k}", "role": "assistant", "text": f"r{k}"})
        tree[-1]["active"] = k < 5
        prev = f"a{k}"
    tree[-2]["active"] = False  # u5 is on the old branch
    tree.append({"id": "ub", "parentId": "a4", "role": "user", "text": "other", "active": True})
    assert format_tree(tree).splitlines() == [
        "● u0 user: q0",
        "● a0 assistant: r0",
        "● u1 user: q1",
        "┆ … 4 more messages (/tree all shows them)",
        "● a3 assistant: r3",
        "● u4 user: q4",
        "● a4 assistant: r4",
        "├─○ u5 user: q5",
        "│ ○ a5 assistant: r5",
        "└─● ub user: other ◀ head",
    ]
    assert len(format_tree(tree, full=True).splitlines()) == 13


def test_tree_draws_separate_roots_in_columns_of_their_own() -> None:
    # A checkout of the first message, then a new prompt: a second root, a separate history.
    tree: list[dict[str, object]] = [
        {"id": "u0", "parentId": None, "role": "user", "text": "q0"},
        {"id": "a0", "parentId": "u0", "role": "assistant", "text": "r0"},
        {"id": "b1", "parentId": "u0", "role": "assistant", "text": "retry"},
        {"id": "b2", "parentId": "b1", "role": "user", "text": "more"},
        {"id": "z0", "parentId": None, "role": "user", "text": "again", "active": True},
        {"id": "z1", "parentId": "z0", "role": "assistant", "text": "fresh", "active": True},
        {"id": "y0", "role": "user", "text": "third"},
    ]
    assert format_tree(tree).splitlines() == [
        "┌ root 1 of 3",
        "○ u0 user: q0",
        "├─○ a0 assistant: r0",
        "└─○ b1 assistant: retry",
        "  ○ b2 user: more",
        # Right of every column the first history used, so it never continues a rail above.
        "    ┌ root 2 of 3",
        "    ● z0 user: again",
        "    ● z1 assistant: fresh ◀ head",
        "      ┌ root 3 of 3",
        "      ○ y0 user: third",
    ]


def test_a_subagents_approval_and_failure_name_the_agent() -> None:
    from ggcli.render import approval_prompt, format_child_event

    ask = approval_prompt({"toolName": "write", "summary": "write a.txt", "agent": "general"})
    assert ask.splitlines()[0] == "? approve [general] write: write a.txt"
    failed = format_child_event(
        {"type": "child_run_finished", "agent": "explore", "status": "failed", "error": "boom"}
    )
    assert failed == "  ↳ explore failed: boom (0 turns, 0 tools)"
    assert format_child_event({"type": "text_delta"}) is None


def test_a_child_session_row_names_its_parent() -> None:
    from ggcli.render import format_sessions

    rows = format_sessions(
        [
            {"id": "s_p", "name": "parent", "updatedAt": 0, "messageCount": 2, "preview": "go"},
            {
                "id": "s_c",
                "name": "explore: look",
                "updatedAt": 0,
                "messageCount": 4,
                "preview": "found",
                "parentSessionId": "s_p",
            },
        ]
    ).splitlines()
    assert "↳" not in rows[0]
    assert rows[1].startswith("s_c  explore: look  4 msgs") and "↳ s_p" in rows[1]
