"""Firing one job: a fresh session, one unattended turn, and the run record of what happened.

Shared by the loop and `gg/job.run`, so a firing while the previous run of the same job is
still going is recorded once as `skipped` whichever of them fired it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ggd.app import DaemonServices, TurnRequest, UnattendedApprover

from .protocol import JOB_EVENT, SUMMARY_LIMIT, Job, JobEvent, RunRecord
from .schedule import zone
from .store import Clock, JobStore, new_run_id, utc_now

log = logging.getLogger("ggd.scheduler")


def session_name(job: Job, started_ms: int) -> str:
    """scheduler/<name>-<local timestamp>: what the session list shows for a firing."""
    from datetime import datetime

    local = datetime.fromtimestamp(started_ms / 1000, zone(job.timezone))
    return f"scheduler/{job.name}-{local.strftime('%Y%m%d-%H%M%S')}"


def _terminal(run: Any) -> tuple[str, str]:
    """(status, summary) of a finished run: ok, timeout, interrupted (canceled) or error."""
    status = getattr(run, "status", "failed")
    if status == "completed":
        return "ok", (run.result or "")[:SUMMARY_LIMIT]
    if status == "canceled":
        return "interrupted", "the run was canceled"
    code = ""
    ring = getattr(run, "ring", None)
    if ring is not None:
        tail = ring.since(max(0, ring.last_sequence - 1))
        code = str(tail[-1].get("errorCode", "")) if tail else ""
    text = (run.error or "the run failed")[:SUMMARY_LIMIT]
    return ("timeout" if code == "run_timeout" else "error"), text


class Firing:
    """Starts firings and records them; remembers which job has a run in flight."""

    def __init__(self, services: DaemonServices, store: JobStore, clock: Clock = utc_now) -> None:
        self.services = services
        self.store = store
        self.clock = clock
        self.in_flight: dict[str, asyncio.Task[None]] = {}
        # Jobs between the busy check and their task being registered (fire awaits in between).
        self._starting: set[str] = set()

    def _now(self) -> int:
        return int(self.clock().timestamp() * 1000)

    def busy(self, job_id: str) -> bool:
        """The job's previous run is still going."""
        task = self.in_flight.get(job_id)
        return job_id in self._starting or (task is not None and not task.done())

    def _event(self, kind: str, job: Job, rec: RunRecord) -> None:
        ev = JobEvent(type=kind, job_id=job.id, job_name=job.name, run=rec)
        try:
            self.services.broadcast(JOB_EVENT.name, ev.wire(), job.workspace)
        except Exception:
            log.warning("job event not delivered", extra={"job": job.id}, exc_info=True)

    async def _record(self, rec: RunRecord) -> RunRecord:
        return await asyncio.to_thread(self.store.append_run, rec)

    async def fire(self, job: Job) -> RunRecord:
        """Fire a job now: skipped while it runs, else one run started (or an error recorded)."""
        now = self._now()
        if self.busy(job.id):
            rec = RunRecord(
                id=new_run_id(),
                job_id=job.id,
                started_at=now,
                finished_at=now,
                status="skipped",
                summary="the previous run of this job was still going",
            )
            await self._record(rec)
            self._event("fired", job, rec)
            return rec
        self._starting.add(job.id)
        try:
            return await self._start(job, now)
        finally:
            self._starting.discard(job.id)

    async def _start(self, job: Job, now: int) -> RunRecord:
        rec = RunRecord(id=new_run_id(), job_id=job.id, started_at=now, status="running")
        await asyncio.to_thread(self._count, job.id, now)
        ws = self.services.workspace(job.workspace)
        try:
            if ws is None:
                raise RuntimeError("this daemon does not serve the job's workspace")
            run = await self.services.start_turn(
                TurnRequest(
                    workspace=ws,
                    prompt=job.prompt,
                    approver=UnattendedApprover(
                        allow_all=job.allow_all, who=f"scheduled job {job.name}"
                    ),
                    session_name=session_name(job, now),
                    model=job.model,
                    timeout=job.timeout,
                    budget=job.budget,
                )
            )
        except Exception as exc:
            log.warning("job could not start", extra={"job": job.id}, exc_info=True)
            message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            done = rec.model_copy(
                update={"status": "error", "finished_at": self._now(), "summary": message[:300]}
            )
            await self._record(done)
            self._event("fired", job, done)
            self._event("finished", job, done)
            return done
        rec = rec.model_copy(update={"session_id": run.session_id})
        await self._record(rec)
        self._event("fired", job, rec)
        self.in_flight[job.id] = asyncio.create_task(
            self._finish(job, rec, run), name=f"job {job.id}"
        )
        return rec

    def _count(self, job_id: str, now: int) -> None:
        def bump(j: Job) -> Job:
            return j.model_copy(update={"last_run": now, "run_count": j.run_count + 1})

        try:
            self.store.update(job_id, bump)
        except Exception:
            # A job removed (or a store edited) meanwhile: the firing still runs and is logged.
            log.info("job run count not updated", extra={"job": job_id})

    async def _finish(self, job: Job, rec: RunRecord, run: Any) -> None:
        try:
            await run.finished()
        except asyncio.CancelledError:
            # The daemon is stopping: the run is cancelled with it, so say so now.
            self.store.append_run(
                rec.model_copy(update={"status": "interrupted", "finished_at": self._now()})
            )
            raise
        try:
            status, summary = _terminal(run)
            done = rec.model_copy(
                update={"status": status, "summary": summary, "finished_at": self._now()}
            )
            await self._record(done)
            self._event("finished", job, done)
        except Exception:
            log.exception("job run not recorded", extra={"job": job.id})

    async def aclose(self) -> None:
        """Stop waiting for in-flight runs; each is recorded interrupted."""
        tasks = [t for t in self.in_flight.values() if not t.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)


__all__ = ["Firing", "session_name"]
