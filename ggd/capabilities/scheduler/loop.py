"""The scheduler channel: sleeps until the next due job (at most `max_sleep`), then fires it.

Rules, in the order they apply:
- at start, a `running` record left by a crash becomes `interrupted`, cron jobs are rescheduled
  from now (no catch-up) and a once job that never ran keeps its time (past due: fires once);
- each pass re-reads jobs.json (jobs added by another process are picked up within max_sleep),
  claims the due jobs of workspaces this daemon serves and advances their persisted nextRun
  under the store lock BEFORE dispatch, so a crash never fires a job twice;
- a failing firing is recorded and logged; it never stops the loop. A store that cannot be read
  (a corrupt jobs.json) does: the supervisor reports the channel `failed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, timedelta

from ggd.app import DaemonServices

from .firing import Firing
from .jobs import next_run
from .protocol import Job
from .store import Clock, JobStore, StoreBusyError, utc_now

log = logging.getLogger("ggd.scheduler")

MAX_SLEEP_SECONDS = 30.0
Sleeper = Callable[[float, asyncio.Event], Awaitable[None]]


async def real_sleep(seconds: float, wake: asyncio.Event) -> None:
    """Wait `seconds` of real time, or less when woken (a job was added or changed here)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(wake.wait(), seconds)
    wake.clear()


class SchedulerChannel:
    """The loop, run by the daemon's channel supervisor."""

    name = "scheduler"

    def __init__(
        self,
        services: DaemonServices,
        store: JobStore,
        firing: Firing,
        *,
        clock: Clock = utc_now,
        sleeper: Sleeper = real_sleep,
        max_sleep: float = MAX_SLEEP_SECONDS,
    ) -> None:
        self.services = services
        self.store = store
        self.firing = firing
        self.clock = clock
        self.sleeper = sleeper
        self.max_sleep = max_sleep
        self.wake = asyncio.Event()
        self._stopping = False
        self.running = False
        self.failure: str | None = None

    def kick(self) -> None:
        """Re-read the store now (a job was added, changed or resumed through this daemon)."""
        self.wake.set()

    async def run(self) -> None:
        """Recover, then fire due jobs until stopped."""
        self.running = True
        try:
            await asyncio.to_thread(self.recover)
            while not self._stopping:
                delay = await self.tick()
                if self._stopping:
                    break
                await self.sleeper(delay, self.wake)
        except Exception as exc:
            self.failure = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self.running = False
            await self.firing.aclose()

    async def stop(self) -> None:
        """Return from run() at the next wake-up (now)."""
        self._stopping = True
        self.wake.set()

    # -- one pass --------------------------------------------------------------------------------

    def _due(self, job: Job, now_ms: int) -> bool:
        return (
            job.enabled
            and job.next_run is not None
            and job.next_run <= now_ms
            and self._served(job)
        )

    def _served(self, job: Job) -> bool:
        return self.services.workspace(job.workspace) is not None

    def recover(self) -> None:
        """Start-up rules: interrupted records, cron rescheduled from now, never-ran once jobs kept."""
        now = self.clock()
        now_ms = int(now.timestamp() * 1000)
        for rec in self.store.runs():
            if rec.status == "running":
                self.store.append_run(
                    rec.model_copy(update={"status": "interrupted", "finished_at": now_ms})
                )

        def change(jobs: list[Job]) -> None:
            for i, job in enumerate(jobs):
                if not job.enabled or not self._served(job):
                    continue
                if job.kind == "cron":
                    jobs[i] = job.model_copy(update={"next_run": next_run(job, now, job.last_run)})
                elif job.next_run is None and job.run_count == 0:
                    # Claimed (nextRun advanced) but the daemon died before the run started.
                    jobs[i] = job.model_copy(update={"next_run": next_run(job, now)})

        self.store.mutate(change)

    def claim_due(self) -> tuple[list[Job], int | None]:
        """Due jobs (their nextRun advanced, under the lock) and the earliest later nextRun."""
        now = self.clock()
        now_ms = int(now.timestamp() * 1000)
        after = now.astimezone(UTC) + timedelta(seconds=1)
        due: list[Job] = []

        def change(jobs: list[Job]) -> int | None:
            soonest: int | None = None
            for i, job in enumerate(jobs):
                if not job.enabled or job.next_run is None or not self._served(job):
                    continue
                if job.next_run <= now_ms:
                    due.append(job)
                    # From now, not from the missed time: a daemon that slept through several
                    # fire times fires once. `last` lets a repeated DST wall time fire once.
                    nxt = next_run(job, after, job.next_run) if job.kind == "cron" else None
                    jobs[i] = job = job.model_copy(update={"next_run": nxt})
                if job.next_run is not None and (soonest is None or job.next_run < soonest):
                    soonest = job.next_run
            return soonest

        # A pure read first: a pass with nothing due writes nothing.
        current = self.store.jobs()
        if not any(self._due(j, now_ms) for j in current):
            return [], change(current)  # changes nothing: no job is due
        soonest = self.store.mutate(change)
        return due, soonest

    async def tick(self) -> float:
        """Fire what is due now; return how long to sleep (never more than max_sleep)."""
        try:
            due, soonest = await asyncio.to_thread(self.claim_due)
        except StoreBusyError:
            log.warning("job store busy; retrying")
            return min(1.0, self.max_sleep)
        for job in due:
            try:
                await self.firing.fire(job)
            except Exception:
                log.exception("job firing failed", extra={"job": job.id})
        if soonest is None:
            return self.max_sleep
        now_ms = int(self.clock().timestamp() * 1000)
        return max(0.0, min(self.max_sleep, (soonest - now_ms) / 1000))


__all__ = ["MAX_SLEEP_SECONDS", "SchedulerChannel", "Sleeper", "real_sleep"]
