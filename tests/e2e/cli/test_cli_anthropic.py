"""`gg -p` on a terminal with an Anthropic model set up the way users do: ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL and GG_MODEL=anthropic:..., the fake Messages API running as its own process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fix_the_bug import ANSWER, APPROVALS, FIX_THE_BUG, FIXED, make_project

from .conftest import REPO, CliEnv

HANG = {"text": "Let me think about that", "hang": True}
AFTER = {"text": "Still here."}


@pytest.fixture
def fake_process(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """`python -m tests.fakes.fake_anthropic --script` serving the task, a cancel, a last turn."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [*FIX_THE_BUG, HANG, AFTER]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_anthropic", "--script", str(script)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()  # the first line, printed once it serves
    assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.stderr else ""

    def state() -> Any:
        with urllib.request.urlopen(f"{url.removesuffix('/v1')}/_fake/requests", timeout=5) as r:
            return json.loads(r.read())

    try:
        yield url, state
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def test_gg_p_fixes_the_bug_through_the_anthropic_kind(
    cli_env: CliEnv, fake_process: tuple[str, Any]
) -> None:
    url, state = fake_process
    make_project(cli_env.ws)
    cli_env.env |= {
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": url.removesuffix("/v1"),  # as the SDK takes it, without /v1
        "GG_MODEL": "anthropic:claude-fake",
    }
    p = cli_env.pty("-p", "the stats test fails: fix the bug")
    for tool, allow in APPROVALS:
        p.expect(rf"\? approve {tool}")
        p.expect(r"allow\? \[y\]es / \[n\]o")
        p.send("y" if allow else "n")
        p.expect("→ allowed" if allow else "→ denied")
    p.expect(re.escape(ANSWER))
    assert p.wait() == 0
    assert (cli_env.ws / "src" / "stats.py").read_text() == FIXED
    seen = state()
    assert seen["mismatches"] == [] and seen["rejections"] == [], seen
    assert len(seen["requests"]) == 10
    assert all(u["cache_read_input_tokens"] > 0 for u in seen["cacheUses"][1:])
    first = seen["requests"][0]
    assert first["model"] == "claude-fake" and first["system"][0]["cache_control"]
    # Ctrl+C mid-answer cancels the run; the session goes on from what streamed.
    p = cli_env.pty("--continue", "-p", "anything else?")
    p.expect("Let me think")
    p.send("\x03")
    p.expect("canceling the run")
    assert p.wait() == 130
    r = cli_env.run("--continue", "-p", "still there?")
    assert r.returncode == 0 and r.stdout == "Still here.\n", r.stderr
    assert state()["rejections"] == []
