"""The SubagentStop point: every stop hook gets the outcome; a failing hook is only logged."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from ggd.app.run import Run
from ggd.app.subagents import ChildOutcome, SubagentManager


async def test_stop_hooks_run_in_order_and_a_failure_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    manager = SubagentManager(SimpleNamespace(opts=SimpleNamespace()))  # type: ignore[arg-type]
    seen: list[Any] = []

    async def broken(outcome: ChildOutcome) -> None:
        raise RuntimeError("hook bug")

    async def record(outcome: ChildOutcome) -> None:
        seen.append((outcome.agent, outcome.status, outcome.answer))

    manager.stop_hooks += [broken, record]
    parent = Run(session_id="s_p", interactive=True, approval_mode="auto", model="m")
    child = Run(session_id="s_c", interactive=True, approval_mode="auto", model="m")
    outcome = ChildOutcome(parent, child, "explore", "t_1", "completed", "found it", None)
    with caplog.at_level(logging.ERROR, logger="ggd.app"):
        await manager.subagent_stopped(outcome)
    assert seen == [("explore", "completed", "found it")]
    assert "subagent stop hook failed" in caplog.text
