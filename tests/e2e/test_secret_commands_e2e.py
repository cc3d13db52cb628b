"""Commands that print a secret are asked about (interactive) or denied (non-interactive).

A real ggd whose environment holds two secrets (GG_TELEGRAM_BOT_TOKEN would start the Telegram
channel, so GITHUB_TOKEN stands for it), real bash, the scripted fake model. Each command
below printed a secret with no approval before the classifier tracked copies of secrets and
globbed /proc paths (issue 30 item 2). The secret values must never reach the model (its
requests) or a client (the run's events) unless a person approved the command.
"""

from __future__ import annotations

import json
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
