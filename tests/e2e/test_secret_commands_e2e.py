"""Commands that print a secret are asked about (interactive) or denied (non-interactive).

A real ggd whose environment holds two secrets (GG_TELEGRAM_BOT_TOKEN would start the Telegram
channel, so GITHUB_TOKEN stands for it), real bash, the scripted fake model. Each command
below printed a secret with no approval before the classifier tracked copies of secrets and
globbed /proc paths (issue 30 item 2). The secret values must never reach the model (its
requests) or a client (the run's events) unless a person approved the command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .runs_helpers import finish, new_session, start, until

TOKEN = "ghp-token-3c9d1e7f5a"
AWS_SECRET = "aws-secret-8b2f4e6a0c"
SECRETS = {"GITHUB_TOKEN": TOKEN, "AWS_SECRET_ACCESS_KEY": AWS_SECRET}

COMMANDS = [
    'cat <<< "$GITHUB_TOKEN"',
    "cat <<EOF\n$AWS_SECRET_ACCESS_KEY\nEOF",
    "x=$AWS_SECRET_ACCESS_KEY; echo $x",
    'read x <<< "$GITHUB_TOKEN"; echo $x',
    "cat /pro?/self/envir*",
    "ps aux --forest e",
    'for k in "$AWS_SECRET_ACCESS_KEY"; do echo $k; done',
    "a=($GITHUB_TOKEN); echo ${a[0]}",
    'sed "" /pro?/sel?/environ',
    'x=$(cat /pro?/self/environ); echo "$x"',
]


def _script(last_expect: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [
        # A genuine read runs with no approval: the harness would see a secret command run.
        {"toolCalls": [{"name": "bash", "arguments": {"command": "cat README.md"}}]},
    ]
    expect: dict[str, Any] = {"lastTool": "demo project"}
    for command in COMMANDS:
        steps.append(
            {"expect": expect, "toolCalls": [{"name": "bash", "arguments": {"command": command}}]}
        )
        expect = {"lastTool": "denied"}
    steps.append({"expect": {"lastTool": last_expect}, "text": "done"})
    return steps


def _leaks(text: str) -> list[str]:
    return [name for name, value in SECRETS.items() if value in text]


async def test_secret_printing_commands_are_denied_without_a_person(
    fake_daemon: Any, workspace: Path
) -> None:
    d, fm = fake_daemon(_script("denied"), env=SECRETS)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "print the secrets", approvalMode="auto")
        done = await finish(c, rid, timeout=60)
        assert done["type"] == "run_completed", done
        assert fm.mismatches == []
        events = c.events(run_id=rid)
        assert not [e for e in events if e["type"] == "approval_requested"]
        finishes = [e for e in events if e["type"] == "tool_call_finish"]
        assert len(finishes) == 1 + len(COMMANDS)
        assert not finishes[0]["isError"] and "demo project" in finishes[0]["output"]
        for command, event in zip(COMMANDS, finishes[1:], strict=True):
            assert event["isError"] and "denied" in event["output"], (command, event["output"])
        assert _leaks(json.dumps(events)) == []
        assert _leaks(json.dumps(fm.requests)) == []
    finally:
        await c.close()


async def test_secret_printing_commands_ask_a_person_first(
    fake_daemon: Any, workspace: Path
) -> None:
    # Every command asks; the user denies all but the last, which then shows the secret: proof
    # that the commands really print it once a person lets them.
    d, fm = fake_daemon(_script(AWS_SECRET), env=SECRETS)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "print the secrets", interactive=True)
        after = 0
        for k, command in enumerate(COMMANDS):
            ask = await until(c, rid, "approval_requested", timeout=30, after=after)
            approval = ask["approval"]
            assert approval["details"] == command
            assert approval["risk"] != "read_only", approval
            reason = approval["riskReason"]
            assert any(w in reason for w in ("secret", "environment", "private")), reason
            last = k == len(COMMANDS) - 1
            await c.request(
                "gg/run.approve", {"runId": rid, "approvalId": approval["id"], "allow": last}
            )
            after = ask["sequence"]
        done = await finish(c, rid, timeout=60)
        assert done["type"] == "run_completed", done
        assert fm.mismatches == []
        events = c.events(run_id=rid)
        finishes = [e for e in events if e["type"] == "tool_call_finish"]
        assert [e["isError"] for e in finishes] == [False] + [True] * (len(COMMANDS) - 1) + [False]
        # Only the approved command's output holds a secret.
        asked = [e for e in events if e["type"] == "approval_requested"]
        assert _leaks(json.dumps(events[: events.index(asked[-1]) + 1])) == []
        assert _leaks(json.dumps(fm.requests[:-1])) == []
        assert AWS_SECRET in finishes[-1]["output"]
    finally:
        await c.close()


async def test_a_scheduled_job_is_denied_them(fake_daemon: Any, workspace: Path) -> None:
    # The unattended approver decides from the same label: with no allowAll, every one is denied.
    d, fm = fake_daemon(_script("denied"), env=SECRETS)
    c = await d.connect("unix")
    try:
        await c.request("gg/job.add", {"name": "peek", "cron": "0 3 * * *", "prompt": "peek"})
        rec = (await c.request("gg/job.run", {"job": "peek"}))["run"]
        done = await c.wait_for(
            "gg/job.event",
            lambda p: p["type"] == "finished" and p["run"]["id"] == rec["id"],
            60,
        )
        assert done["run"]["status"] == "ok", done
        assert fm.mismatches == []
        tool_msgs = [m for m in fm.requests[-1]["messages"] if m.get("role") == "tool"]
        assert len(tool_msgs) == 1 + len(COMMANDS)
        assert all("scheduled job peek" in str(m["content"]) for m in tool_msgs[1:]), tool_msgs
        assert _leaks(json.dumps(fm.requests)) == []
    finally:
        await c.close()


async def test_an_mcp_caller_is_denied_them_or_asked(fake_daemon: Any, workspace: Path) -> None:
    # `ggd --mcp` starts runs on the same daemon: denied without elicitation, asked with it.
    import mcp_types as types
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    d, fm = fake_daemon([*_script("denied"), *_script("denied")], env=SECRETS)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ggd.daemon", "--mcp", "--workspace", str(workspace)],
        env=d.env,
        cwd=str(workspace),
    )
    asked: list[str] = []

    async def decline(_ctx: Any, request: Any) -> types.ElicitResult:
        asked.append(request.message)
        return types.ElicitResult(action="accept", content={"allow": False})

    answers = []
    for callback in (None, decline):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, elicitation_callback=callback) as session:
                await session.initialize()
                result = await session.call_tool("gg_ask", {"prompt": "print the secrets"})
                answers.append("".join(b.text for b in result.content if b.type == "text"))
    assert [json.loads(a)["status"] for a in answers] == ["completed", "completed"], answers
    assert len(asked) == len(COMMANDS), asked
    assert fm.mismatches == []
    assert _leaks(json.dumps(fm.requests)) == [] and _leaks(json.dumps(answers)) == []
