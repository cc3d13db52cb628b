"""Hook configuration and how one hook's exit code and output are read (no daemon needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ggd.hooks.config import HookCommand, HookConfigError, load, parse, trust_workspace
from ggd.hooks.engine import Outcome, _read_one
from ggd.hooks.names import claude_name, tool_input
from ggd.hooks.runner import HookRun


def _hook(event: str = "PreToolUse", matcher: str = "") -> HookCommand:
    return HookCommand(event, matcher, "cmd", 60.0, "test")


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"hooks": {"PreTool": []}}, "unknown hook event 'PreTool'"),
        ({"hooks": {"Stop": {}}}, "Stop must be a list of matcher groups"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}]}}, "only type"),
        ({"hooks": {"Stop": [{"hooks": [{"command": ""}]}]}}, "command must be a non-empty"),
        ({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": 0}]}]}}, "timeout must be"),
        ({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": "5"}]}]}}, "a number"),
        ([], "must be a JSON object"),
    ],
)
def test_bad_configuration_is_a_clear_error(obj: object, message: str) -> None:
    with pytest.raises(HookConfigError) as err:
        parse(obj, "GG_HOME/hooks.json")
    assert message in str(err.value) and "GG_HOME/hooks.json" in str(err.value)


def test_claude_code_settings_parse_with_the_default_timeout() -> None:
    hooks = parse(
        {"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"command": "fmt"}]}]}},
        "home",
    )
    assert hooks == [HookCommand("PostToolUse", "Edit|Write", "fmt", 60.0, "home")]


def test_matchers_follow_claude_code_and_gg_names() -> None:
    assert _hook(matcher="").matches("Bash", "bash")
    assert _hook(matcher="*").matches("Read", "read")
    assert _hook(matcher="Bash").matches(claude_name("bash"), "bash")
    assert _hook(matcher="bash").matches(claude_name("bash"), "bash")
    assert _hook(matcher="Edit|Write").matches(claude_name("write"), "write")
    assert not _hook(matcher="Edit|Write").matches(claude_name("read"), "read")
    assert not _hook(matcher="Bas").matches("Bash", "bash")  # a full match, not a prefix
    assert _hook(matcher="mcp_.*").matches("mcp_time_now", "mcp_time_now")
    assert _hook(matcher="[").matches("[", "x")  # not a regex: compared as it is


def test_tool_input_adds_claude_codes_names(tmp_path: Path) -> None:
    args = {"path": "src/a.py", "edits": [{"oldText": "a", "newText": "b"}]}
    out = tool_input("edit", args, tmp_path)
    assert out["file_path"] == str(tmp_path / "src" / "a.py")
    assert (out["old_string"], out["new_string"]) == ("a", "b")
    assert out["path"] == "src/a.py"  # gg's own names stay


def test_the_workspace_file_needs_trust_of_its_exact_content(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "ws"
    (root / ".gg").mkdir(parents=True)
    config = {"hooks": {"Stop": [{"hooks": [{"command": "true"}]}]}}
    (root / ".gg" / "hooks.json").write_text(json.dumps(config))
    loaded = load(home, root)
    assert loaded.workspace_file == "untrusted" and loaded.hooks == []
    assert trust_workspace(home, root) == 1
    assert (home / "hooks-trust.json").stat().st_mode & 0o777 == 0o600
    assert load(home, root).workspace_file == "trusted"
    (root / ".gg" / "hooks.json").write_text(json.dumps(config) + " ")
    assert load(home, root).workspace_file == "untrusted"


def _read(event: str, run: HookRun) -> tuple[Outcome, list[str]]:
    out, problems = Outcome(), []
    _read_one(event, _hook(event), run, out, lambda _e, _c, why: problems.append(why))
    return out, problems


def test_exit_codes_and_json_output_decide_as_the_reference_says() -> None:
    out, _ = _read("PreToolUse", HookRun(2, "", "no rm -rf\n"))
    assert out.blocked and out.decision == "deny" and out.reason == "no rm -rf"
    out, problems = _read("PreToolUse", HookRun(1, "", "oops"))
    assert not out.blocked and out.decision is None and problems == ["exit 1: oops"]
    deny = {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "r"}}
    out, _ = _read("PreToolUse", HookRun(0, json.dumps(deny), ""))
    assert (out.decision, out.decision_reason) == ("deny", "r")
    out, _ = _read("PreToolUse", HookRun(0, '{"decision": "approve"}', ""))
    assert out.decision == "allow"
    out, _ = _read("UserPromptSubmit", HookRun(0, "plain context\n", ""))
    assert out.context == ["plain context"]
    out, _ = _read("PreToolUse", HookRun(0, "plain stdout is not context here", ""))
    assert out.context == []
    out, _ = _read("Stop", HookRun(0, '{"decision": "block", "reason": "tests first"}', ""))
    assert out.blocked and out.reason == "tests first"
    out, _ = _read("PostToolUse", HookRun(0, '{"continue": false, "stopReason": "halt"}', ""))
    assert out.blocked and out.reason == "halt"
    out, problems = _read("Stop", HookRun(None, "", "", timed_out=True, error="timed out"))
    assert not out.blocked and problems == ["timed out"]


def test_deny_wins_over_ask_and_ask_over_allow() -> None:
    out = Outcome()
    for decision in ("allow", "deny", "ask"):
        body = json.dumps({"hookSpecificOutput": {"permissionDecision": decision}})
        _read_one("PreToolUse", _hook(), HookRun(0, body, ""), out, lambda *_: None)
    assert out.decision == "deny"
