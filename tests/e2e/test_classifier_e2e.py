"""Payloads that once ran as "read-only" are denied through the real bash tool path.

A real ggd, the scripted fake model and real files: each payload creates a marker file when it
runs. Under approvalMode auto with a non-interactive client only read-only commands run, so a
marker on disk means the classifier let the payload through without asking.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .runs_helpers import finish, new_session, start, types

# (command, marker it would create). Each was labelled read_only before the classifier failed
# closed, and ran end to end with no prompt.
PAYLOADS = [
    ("hash -p /usr/bin/touch ls; ls marker-hash", "marker-hash"),
    ("sort -o marker-sort README.md", "marker-sort"),
    ("PATH=.:$PATH ls", "marker-path"),
    ("function ls { touch marker-function; }; ls", "marker-function"),
    ("FOO='' touch marker-quoted", "marker-quoted"),
    ("echo 'touch marker-piped' | sh", "marker-piped"),
]


def _script() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [
        # A genuine read runs with no approval: proves the harness would see a payload run.
        {"toolCalls": [{"name": "bash", "arguments": {"command": "cat README.md"}}]},
    ]
    expect: dict[str, Any] = {"lastTool": "demo project"}
    for command, _ in PAYLOADS:
        steps.append(
            {"expect": expect, "toolCalls": [{"name": "bash", "arguments": {"command": command}}]}
        )
        expect = {"lastTool": "denied"}
    steps.append({"expect": expect, "text": "all payloads were refused"})
    return steps


async def test_former_read_only_payloads_are_denied_without_a_person(
    fake_daemon: Any, workspace: Path
) -> None:
    # The workspace's own `ls`, which `PATH=.:$PATH ls` would pick before /bin/ls.
    fake_ls = workspace / "ls"
    fake_ls.write_text("#!/bin/sh\ntouch marker-path\n")
    fake_ls.chmod(0o755)
    d, fm = fake_daemon(_script())
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "try the payloads", approvalMode="auto")
        done = await finish(c, rid, timeout=60)
        assert done["type"] == "run_completed", done
        assert fm.mismatches == []
        assert "approval_requested" not in types(c, rid)  # non-interactive: nobody is asked
        finishes = [e for e in c.events(run_id=rid) if e["type"] == "tool_call_finish"]
        assert len(finishes) == 1 + len(PAYLOADS)
        assert not finishes[0]["isError"] and "demo project" in finishes[0]["output"]
        for (command, marker), event in zip(PAYLOADS, finishes[1:], strict=True):
            assert event["isError"] and "denied" in event["output"], (command, event["output"])
            assert not (workspace / marker).exists(), f"{command!r} ran"
    finally:
        await c.close()
