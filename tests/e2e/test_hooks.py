"""Claude Code-compatible hooks through a real ggd, the scripted model and real hook processes.

The hook script below is written from Claude Code's public hooks reference (the JSON on stdin,
exit 2 with stderr to block, `hookSpecificOutput.additionalContext` for UserPromptSubmit, a
PostToolUse logger) and is used unchanged: gg maps its tool names (bash -> Bash) and adds
Claude Code's argument names, so the script needs nothing gg-specific.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from .daemon import wait_until
from .rpc_client import RpcError
from .runs_helpers import finish, finished_tools, new_session, start, until

# Written from Claude Code's hooks reference, not for gg.
CLAUDE_CODE_HOOK = r"""
import json, os, re, sys

data = json.load(sys.stdin)
event = data["hook_event_name"]
if event == "PreToolUse" and data.get("tool_name") == "Bash":
    command = data.get("tool_input", {}).get("command", "")
    if re.search(r"\brm\s+-(rf|fr)\b", command):
        print("Blocked: rm -rf is not allowed in this project", file=sys.stderr)
        sys.exit(2)
elif event == "UserPromptSubmit":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                      "additionalContext": "Project rule: answer in English."}}))
elif event == "PostToolUse":
    log = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "bash-command-log.txt")
    with open(log, "a") as f:
        f.write(data["tool_input"].get("command", "") + "\n")
sys.exit(0)
"""


def _bash(command: str) -> dict:
    return {"toolCalls": [{"name": "bash", "arguments": {"command": command}}]}


def _hooks(path: Path, config: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": config}))


def _command(script: Path) -> dict:
    return {"type": "command", "command": f"{sys.executable} {script}"}


@pytest.fixture
def cc_script(tmp_path: Path) -> Path:
    script = tmp_path / "cc_hook.py"
    script.write_text(CLAUDE_CODE_HOOK)
    return script


# Claude Code's documented PostToolUse example, character for character.
CC_DOCS_LOGGER = (
    'jq -r \'"\\(.tool_input.command) - \\(.tool_input.description // "No description")"\' '
    ">> ~/.claude/bash-command-log.txt"
)


async def test_a_claude_code_hook_script_works_unchanged_and_its_deny_is_final_in_yolo(
    fake_daemon, gg_home: Path, workspace: Path, cc_script: Path, tmp_path: Path
) -> None:
    home = tmp_path / "user-home"
    (home / ".claude").mkdir(parents=True)
    docs_logger = {"type": "command", "command": CC_DOCS_LOGGER}
    _hooks(
        gg_home / "hooks.json",
        {
            "PreToolUse": [{"matcher": "Bash", "hooks": [_command(cc_script)]}],
            "UserPromptSubmit": [{"hooks": [_command(cc_script)]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [_command(cc_script), docs_logger]}],
        },
    )
    (workspace / "build").mkdir()
    d, fm = fake_daemon(
        [_bash("rm -rf build"), _bash("echo hi"), {"text": "done"}], env={"HOME": str(home)}
    )
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "clean up", approvalMode="yolo")
        end = await finish(c, rid)
        assert end["type"] == "run_completed", end
        rm, echo = finished_tools(c, rid).values()
        assert rm["isError"]
        assert "denied by a PreToolUse hook: Blocked: rm -rf is not allowed" in rm["output"]
        assert (workspace / "build").is_dir()  # yolo, and still not run
        assert not echo["isError"]
        log = (workspace / "bash-command-log.txt").read_text()
        assert log == "echo hi\n"  # PostToolUse ran only for the call that ran
        docs_log = (home / ".claude" / "bash-command-log.txt").read_text()
        assert docs_log == "echo hi - No description\n"
        first_user = [m for m in fm.requests[0]["messages"] if m["role"] == "user"][-1]
        assert "Project rule: answer in English." in first_user["content"]
    finally:
        await c.close()


async def test_an_untrusted_workspace_hook_does_not_run_until_trusted(
    fake_daemon, gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    _hooks(
        workspace / ".gg" / "hooks.json",
        {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]},
    )
    d, _fm = fake_daemon([{"text": "one"}, {"text": "two"}])
    c = await d.connect("unix")
    try:
        listed = await c.request("gg/hooks.list", {})
        assert listed["workspaceFile"] == "untrusted" and listed["hooks"] == []
        assert [h["event"] for h in listed["untrusted"]] == ["UserPromptSubmit"]
        sid = await new_session(c)
        await finish(c, await start(c, sid, "hi"))
        assert not marker.exists()
        assert (await c.request("gg/hooks.trust", {})) == {"hooks": 1}
        await finish(c, await start(c, sid, "again"))
        assert marker.exists()
        # Any change to the file makes it untrusted again.
        marker.unlink()
        _hooks(
            workspace / ".gg" / "hooks.json",
            {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": f"touch {marker}x"}]}]},
        )
        assert (await c.request("gg/hooks.list", {}))["workspaceFile"] == "untrusted"
    finally:
        await c.close()


async def test_a_hook_that_times_out_is_reported_and_the_run_goes_on(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    slow = {"type": "command", "command": "sleep 30", "timeout": 1}
    failing = {"type": "command", "command": "echo broken >&2; exit 3"}
    _hooks(gg_home / "hooks.json", {"PreToolUse": [{"matcher": "*", "hooks": [slow, failing]}]})
    (workspace / "a.txt").write_text("a\n")
    d, _fm = fake_daemon(
        [{"toolCalls": [{"name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "ok"}]
    )
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        began = time.monotonic()
        rid = await start(c, sid, "read it")
        end = await finish(c, rid)
        assert time.monotonic() - began < 15
        assert end["type"] == "run_completed", end
        (read,) = finished_tools(c, rid).values()
        assert not read["isError"]
        failed = {e["command"]: e for e in c.events(run_id=rid) if e["type"] == "hook_failed"}
        assert "timed out after 1 s" in failed["sleep 30"]["error"]
        assert failed["echo broken >&2; exit 3"]["error"] == "exit 3: broken"
        assert failed["sleep 30"]["hookEvent"] == "PreToolUse"
    finally:
        await c.close()


async def test_exit_2_on_user_prompt_submit_refuses_the_prompt_for_the_user(
    fake_daemon, gg_home: Path
) -> None:
    block = {"type": "command", "command": "echo 'no secrets in prompts' >&2; exit 2"}
    _hooks(gg_home / "hooks.json", {"UserPromptSubmit": [{"hooks": [block]}]})
    d, fm = fake_daemon([{"text": "never"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        with pytest.raises(RpcError) as err:
            await start(c, sid, "my password is hunter2")
        assert "no secrets in prompts" in err.value.message
        snap = await c.request("gg/session.get", {"sessionId": sid})
        assert snap["messages"] == []  # nothing was saved
        assert fm.requests == []
    finally:
        await c.close()


async def test_a_hook_allow_skips_asking_but_never_the_dangerous_command_approval(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    allow = {
        "type": "command",
        "command": 'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "allow"}}\'',
    }
    _hooks(gg_home / "hooks.json", {"PreToolUse": [{"hooks": [allow]}]})
    write = {"toolCalls": [{"name": "write", "arguments": {"path": "w.txt", "content": "w\n"}}]}
    d, _fm = fake_daemon([write, _bash("sudo true"), {"text": "ok"}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go", interactive=True)
        ask = await until(c, rid, "approval_requested")
        assert ask["approval"]["toolName"] == "bash" and ask["approval"]["risk"] == "dangerous"
        assert (workspace / "w.txt").read_text() == "w\n"  # the allowed write was not asked
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": False}
        )
        assert (await finish(c, rid))["type"] == "run_completed"
        asked = [e for e in c.events(run_id=rid) if e["type"] == "approval_requested"]
        assert len(asked) == 1
    finally:
        await c.close()


async def test_plan_mode_still_refuses_what_a_hook_allows(fake_daemon, gg_home: Path, workspace):
    allow = {"type": "command", "command": 'echo \'{"decision": "approve"}\''}
    _hooks(gg_home / "hooks.json", {"PreToolUse": [{"hooks": [allow]}]})
    write = {"toolCalls": [{"name": "write", "arguments": {"path": "w.txt", "content": "w\n"}}]}
    d, _fm = fake_daemon([write, {"text": "plan"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "plan", approvalMode="plan")
        await finish(c, rid)
        (res,) = finished_tools(c, rid).values()
        assert res["isError"] and "plan mode" in res["output"]
        assert not (workspace / "w.txt").exists()
    finally:
        await c.close()


async def test_stop_hook_sends_the_model_back_once_and_hooks_get_a_scrubbed_env(
    fake_daemon, gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "stop.py"
    script.write_text(
        "import json, os, sys\n"
        "data = json.load(sys.stdin)\n"
        f"open({str(tmp_path / 'env.json')!r}, 'w').write(json.dumps("
        "{'env': dict(os.environ), 'cwd': os.getcwd(), 'input': data}))\n"
        "if not data['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'run the tests first'}))\n"
    )
    _hooks(gg_home / "hooks.json", {"Stop": [{"hooks": [_command(script)]}]})
    d, fm = fake_daemon([{"text": "done"}, {"text": "tests pass"}], env={"SECRET_TOKEN": "s3"})
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "fix it")
        end = await finish(c, rid)
        assert end["content"] == "tests pass"
        last_user = [m for m in fm.requests[1]["messages"] if m["role"] == "user"][-1]
        assert last_user["content"] == "run the tests first"
        seen = json.loads((tmp_path / "env.json").read_text())
        env = seen["env"]
        assert env["GG_SESSION_ID"] == sid and env["GG_HOOK_EVENT"] == "Stop"
        assert env["GG_WORKSPACE"] == str(workspace) == env["CLAUDE_PROJECT_DIR"]
        assert "OPENAI_API_KEY" not in env and "SECRET_TOKEN" not in env
        assert seen["cwd"] == str(workspace)
        assert seen["input"]["stop_hook_active"] is True  # the second answer's Stop
        assert seen["input"]["session_id"] == sid and seen["input"]["permission_mode"] == "default"
    finally:
        await c.close()


async def test_notification_fires_when_an_approval_waits(
    fake_daemon, gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    out = tmp_path / "notified.json"
    note = {"type": "command", "command": f"cat > {out}"}
    _hooks(gg_home / "hooks.json", {"Notification": [{"hooks": [note]}]})
    write = {"toolCalls": [{"name": "write", "arguments": {"path": "w.txt", "content": "w\n"}}]}
    d, _fm = fake_daemon([write, {"text": "ok"}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go", interactive=True)
        ask = await until(c, rid, "approval_requested")
        # The hook runs beside the approval (it never delays it): wait for its file, bounded.
        await wait_until(lambda: out.exists() and out.read_text().strip(), timeout=10)
        data = json.loads(out.read_text())
        assert data["hook_event_name"] == "Notification"
        assert data["message"] == "gg needs your permission to use write"
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": False}
        )
        await finish(c, rid)
    finally:
        await c.close()


async def test_cancelling_a_run_kills_its_running_hook(
    fake_daemon, gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "hook.pid"
    slow = {"type": "command", "command": f"echo $$ > {pid_file}; sleep 30; touch {tmp_path}/late"}
    _hooks(gg_home / "hooks.json", {"PreToolUse": [{"hooks": [slow]}]})
    d, _fm = fake_daemon([_bash("echo hi"), {"text": "never"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go", approvalMode="yolo")
        await wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(), timeout=20)
        pid = int(pid_file.read_text())
        await c.request("gg/run.cancel", {"runId": rid})
        end = await finish(c, rid, timeout=20)  # well before the hook's 30 s sleep
        assert end["type"] == "run_canceled"

        def gone() -> bool:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                return True
            return stat.split(") ")[1].startswith("Z")  # a zombie is dead too

        await wait_until(gone, timeout=10)
        assert not (tmp_path / "late").exists()
    finally:
        await c.close()


async def test_a_hook_ask_asks_a_person_even_in_yolo(fake_daemon, gg_home: Path, workspace):
    ask = {
        "type": "command",
        "command": 'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "ask", "permissionDecisionReason": "check it"}}\'',
    }
    _hooks(gg_home / "hooks.json", {"PreToolUse": [{"matcher": "Write", "hooks": [ask]}]})
    write = {"toolCalls": [{"name": "write", "arguments": {"path": "w.txt", "content": "w\n"}}]}
    d, _fm = fake_daemon([write, {"text": "ok"}, write, {"text": "ok"}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "go", interactive=True, approvalMode="yolo")
        asked = await until(c, rid, "approval_requested")
        assert asked["approval"]["toolName"] == "write"
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": asked["approval"]["id"], "allow": True}
        )
        await finish(c, rid)
        assert (workspace / "w.txt").read_text() == "w\n"
        # Nobody can answer a non-interactive run: the ask is a denial there.
        (workspace / "w.txt").unlink()
        rid2 = await start(c, sid, "again", approvalMode="yolo")
        await finish(c, rid2)
        (res,) = finished_tools(c, rid2).values()
        assert res["isError"] and "asked for a person's approval" in res["output"]
        assert not (workspace / "w.txt").exists()
    finally:
        await c.close()


async def test_a_broken_hooks_file_is_reported_once_and_the_run_goes_on(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "hooks.json").write_text('{"hooks": {"PreTool": []}}')
    (workspace / "a.txt").write_text("a\n")
    read = {"toolCalls": [{"name": "read", "arguments": {"path": "a.txt"}}]}
    d, _fm = fake_daemon([read, read, {"text": "ok"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "read twice")
        assert (await finish(c, rid))["type"] == "run_completed"
        failed = [e for e in c.events(run_id=rid) if e["type"] == "hook_failed"]
        assert len(failed) == 1, failed
        assert "unknown hook event 'PreTool'" in failed[0]["error"]
        assert failed[0]["command"] == "(configuration)"
        listed = await c.request("gg/hooks.list", {})
        assert any("PreTool" in e for e in listed["errors"])
    finally:
        await c.close()
