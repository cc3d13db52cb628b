"""`gg hooks list|test EVENT|trust` against a real ggd: what is configured, a test run, trust."""

from __future__ import annotations

import json

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)

NO_RM = "jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0"


def test_list_and_test_a_hook_then_trust_the_workspace_file(real_env: CliEnv) -> None:
    real_env.home.mkdir(parents=True, exist_ok=True)
    (real_env.home / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": NO_RM}]}
                    ]
                }
            }
        )
    )
    ws_file = real_env.ws / ".gg" / "hooks.json"
    ws_file.parent.mkdir(parents=True)
    ws_file.write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}})
    )
    r = real_env.run("hooks", "list")
    assert r.returncode == 0, r.stderr
    assert "PreToolUse        Bash" in r.stdout and "(GG_HOME/hooks.json, 60 s)" in r.stdout
    assert "this workspace's .gg/hooks.json (1 hooks) is not trusted" in r.stdout

    r = real_env.run("hooks", "test", "PreToolUse", "--input", '{"command": "rm -rf /"}')
    assert r.returncode == 0, r.stderr
    assert ": exit 2" in r.stdout and "stderr: no rm -rf" in r.stdout
    assert "decision: deny — no rm -rf" in r.stdout
    r = real_env.run("hooks", "test", "PreToolUse", "--input", '{"command": "ls"}')
    assert "continues" in r.stdout, r.stdout

    r = real_env.run("hooks", "test", "Bogus")
    assert r.returncode == 2 and "invalid choice" in r.stderr

    r = real_env.run("hooks", "trust")
    assert r.returncode == 0 and "(1 hooks)" in r.stdout, r.stderr
    r = real_env.run("hooks", "list")
    assert "Stop" in r.stdout and "not trusted" not in r.stdout
