"""An injected clock and a DaemonServices stand-in whose runs the test finishes by hand."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ggd.app import TurnRequest, Workspace
from ggd.capabilities.scheduler.firing import Firing
from ggd.capabilities.scheduler.loop import SchedulerChannel
from ggd.capabilities.scheduler.store import JobStore


class FakeClock:
    """Time that moves only when the test says so."""

    def __init__(self, start: datetime) -> None:
        self.now = start.astimezone(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def set(self, when: datetime) -> None:
        self.now = when.astimezone(UTC)


class FakeRing:
    """The last event of a finished run (what Firing reads for the timeout code)."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events

    @property
    def last_sequence(self) -> int:
        return len(self.events)

    def since(self, after: int) -> list[dict[str, Any]]:
        return self.events[after:]


@dataclass
class FakeRun:
    """A run the test completes, fails or leaves going."""

    session_id: str
    request: TurnRequest
    status: str = "running"
    result: str | None = None
    error: str | None = None
    ring: FakeRing = field(default_factory=lambda: FakeRing([]))
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def finished(self) -> None:
        await self.done.wait()

    def complete(self, text: str) -> None:
        self.status, self.result = "completed", text
        self.done.set()

    def cancel(self) -> None:
        self.status = "canceled"
        self.done.set()

    def fail(self, error: str, code: str = "provider_error") -> None:
        self.status, self.error = "failed", error
        self.ring = FakeRing([{"type": "run_failed", "errorCode": code}])
        self.done.set()


class FakeServices:
    """DaemonServices with one workspace; start_turn records the request."""

    def __init__(self, home: Path, auto_complete: str | None = None) -> None:
        self.home = home
        self.owns_channels = True
        self.ws = Workspace("w_test", "project", home)
        self.requests: list[TurnRequest] = []
        self.runs: list[FakeRun] = []
        self.events: list[dict[str, Any]] = []
        self.raise_for: set[str] = set()
        self.auto_complete = auto_complete

    def section(self, key: str) -> None:
        return None

    def workspace(self, workspace_id: str) -> Workspace | None:
        return self.ws if workspace_id == self.ws.id else None

    def default_workspace(self) -> Workspace:
        return self.ws

    async def start_turn(self, req: TurnRequest) -> Any:
        self.requests.append(req)
        if req.prompt in self.raise_for:
            raise RuntimeError(f"cannot start {req.prompt}")
        run = FakeRun(f"s_{len(self.runs)}", req)
        self.runs.append(run)
        if self.auto_complete is not None:
            run.complete(self.auto_complete)
        return run

    def broadcast(self, method: str, params: dict[str, Any], workspace_id: str | None) -> int:
        self.events.append(params)
        return 1


def make_loop(
    home: Path, clock: FakeClock, services: FakeServices | None = None
) -> tuple[SchedulerChannel, JobStore, FakeServices]:
    """A channel on a fresh store, all on the fake clock."""
    services = services or FakeServices(home)
    store = JobStore(home, clock)
    firing = Firing(services, store, clock)
    return SchedulerChannel(services, store, firing, clock=clock), store, services


async def finish_all(ch: SchedulerChannel, services: FakeServices, text: str = "done") -> None:
    """Complete every run still going and wait until each firing has recorded its end."""
    for run in services.runs:
        if not run.done.is_set():
            run.complete(text)
    tasks = [t for t in ch.firing.in_flight.values() if not t.done()]
    if tasks:
        await asyncio.wait(tasks, timeout=5)
