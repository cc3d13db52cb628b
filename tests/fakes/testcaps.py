"""A test capability loaded with GG_CAPABILITIES_EXTRA=tests.fakes.testcaps:CAPABILITY.

It exercises every extension hook against a real daemon, steered by marker files in GG_HOME:

- provider `flaky`: builds a read-only `probe` tool; raises in build while GG_HOME/flaky.fail
  exists (the reason names GG_HOME and a secret so tests can check both are scrubbed); registers
  a resource on the session's exit stack whose close appends the session id to GG_HOME/closed.txt
- provider `absent`: never available (an expected absence: not advertised, not degraded)
- channels `steady` (runs until stopped) and `crashy` (raises as soon as it starts)
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from ggd.app import (
    Capability,
    ChannelContext,
    Contribution,
    ScopeContext,
    SessionContext,
    SetupContext,
    ToolProvider,
)
from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolResult

SECRET = os.environ.get("GG_TEST_SECRET_TOKEN", "")


class ProbeTool(Tool):
    """A read-only tool the flaky provider builds."""

    name = "probe"
    description = "Answers 'probe ok'."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}
    parallel_safe = True

    def summary(self, args: dict[str, Any]) -> str:
        return "probe"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary="probe", risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(output="probe ok")


class Flaky(ToolProvider):
    name = "flaky"
    capabilities = ("test.flaky",)

    def __init__(self, home: Path) -> None:
        self.home = home

    async def build(self, session: SessionContext) -> Contribution:
        if (self.home / "flaky.fail").exists():
            raise RuntimeError(f"cannot open {self.home}/flaky.db with token {SECRET}")
        if not session.state.get("opened"):
            session.state["opened"] = True
            sid, closed = session.session_id, self.home / "closed.txt"

            async def close() -> None:
                with closed.open("a") as fh:
                    fh.write(sid + "\n")

            session.resources.push_async_callback(close)
        return Contribution(tools=[ProbeTool()])


class Absent(ToolProvider):
    name = "absent"
    capabilities = ("test.absent",)

    def available(self, scope: ScopeContext) -> str | None:
        return "not configured"


class Steady:
    name = "steady"

    def __init__(self) -> None:
        self._stop = asyncio.Event()

    async def run(self) -> None:
        await self._stop.wait()

    async def stop(self) -> None:
        self._stop.set()


class Crashy:
    name = "crashy"

    async def run(self) -> None:
        await asyncio.sleep(0)
        raise RuntimeError("the test channel crashed on purpose")

    async def stop(self) -> None:
        return None


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [Flaky(setup.home), Absent()]


def _channels(ctx: ChannelContext) -> list[Any]:
    return [Steady(), Crashy()]


CAPABILITY = Capability(
    name="testcaps",
    summary="Test-only capability exercising providers, resources and channels.",
    providers=_providers,
    channels=_channels,
)
