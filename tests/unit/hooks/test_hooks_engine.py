"""HookEngine with real hook processes: SubagentStop (for the subagent runner) and the runner's
environment, without a daemon."""

from __future__ import annotations

import json
from pathlib import Path

from ggd.hooks import HookEngine, Scope


def _engine(tmp_path: Path, config: dict) -> tuple[HookEngine, Scope]:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    (home / "hooks.json").write_text(json.dumps({"hooks": config}))
    engine = HookEngine(home, env={"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-secret"})
    scope = Scope(session_id="s_child", workspace=ws, transcript_path=home / "s.jsonl")
    return engine, scope


async def test_subagent_stop_blocks_once_then_lets_the_child_end(tmp_path: Path) -> None:
    script = (
        'read -r line; case "$line" in *\'"stop_hook_active": true\'*) exit 0;; esac; '
        "echo 'check the child output' >&2; exit 2"
    )
    engine, scope = _engine(tmp_path, {"SubagentStop": [{"hooks": [{"command": script}]}]})
    assert await engine.stop(scope, "SubagentStop", "child done", False) == "check the child output"
    assert await engine.stop(scope, "SubagentStop", "child done", True) == ""
    assert await engine.stop(scope, "Stop", "done", False) == ""  # no Stop hook configured


async def test_hooks_get_the_documented_env_and_no_secret(tmp_path: Path) -> None:
    out = tmp_path / "env.txt"
    engine, scope = _engine(
        tmp_path, {"Notification": [{"hooks": [{"command": f"env > {out}; pwd >> {out}"}]}]}
    )
    await engine.notify(scope, "gg needs your permission to use bash", "permission_prompt")
    text = out.read_text()
    assert "GG_SESSION_ID=s_child" in text and "GG_HOOK_EVENT=Notification" in text
    assert f"CLAUDE_PROJECT_DIR={scope.workspace}" in text
    assert "sk-secret" not in text and "OPENAI_API_KEY" not in text
    assert text.rstrip().endswith(str(scope.workspace))
