"""gg/job.* handlers: thin calls into the store (in a thread) and the shared Firing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from ggd.app import Handler, HandlerContext
from ggd.protocol import errors as E

from .config import SchedulerConfig
from .errors import JobNotFoundError
from .jobs import apply_update, build_job, next_run
from .protocol import (
    Job,
    JobAddParams,
    JobListParams,
    JobListResult,
    JobLogParams,
    JobLogResult,
    JobRefParams,
    JobResult,
    JobRunResult,
    JobUpdateParams,
    RunStatus,
)
from .schedule import ScheduleError, local_zone_name
from .state import scheduler_state, shared
from .store import DuplicateNameError, StoreError, UnknownJobError

T = TypeVar("T")


async def _call(fn: Callable[[], T]) -> T:
    """Run a store operation off the event loop, mapping its errors to protocol errors."""
    try:
        return await asyncio.to_thread(fn)
    except (ScheduleError, DuplicateNameError) as exc:
        raise E.InvalidParamsError(f"invalid params: {exc}") from None
    except UnknownJobError as exc:
        raise JobNotFoundError(str(exc)) from None
    except StoreError as exc:
        raise E.InternalError(str(exc)) from None


def _kick(ctx: HandlerContext) -> None:
    channel = shared(ctx).channel
    if channel is not None:
        channel.kick()


def _default_tz(ctx: HandlerContext) -> str:
    cfg = ctx.config
    if isinstance(cfg, SchedulerConfig) and cfg.timezone:
        return cfg.timezone
    return local_zone_name()


async def job_list(ctx: HandlerContext, params: JobListParams) -> JobListResult:
    """Jobs of the workspace (or all)."""
    store = shared(ctx).store
    jobs = await _call(store.jobs)
    if not params.all:
        jobs = [j for j in jobs if j.workspace == ctx.workspace.id]
    ids = {j.id for j in jobs}
    last: dict[str, RunStatus] = {}
    for rec in await _call(store.runs):  # newest first: the first seen per job is its last
        if rec.job_id in ids:
            last.setdefault(rec.job_id, rec.status)
    return JobListResult(jobs=jobs, scheduler=scheduler_state(ctx), last_status=last)


async def job_add(ctx: HandlerContext, params: JobAddParams) -> JobResult:
    """Validate and store a new job, then wake the loop."""
    store = shared(ctx).store
    tz = _default_tz(ctx)

    def add() -> Job:
        return store.add(build_job(params, ctx.workspace.id, tz, store.clock()))

    job = await _call(add)
    _kick(ctx)
    return JobResult(job=job)


async def job_update(ctx: HandlerContext, params: JobUpdateParams) -> JobResult:
    """Change a job of this workspace."""
    store = shared(ctx).store
    job = await _call(
        lambda: store.update(
            params.job, lambda j: apply_update(j, params, store.clock()), ctx.workspace.id
        )
    )
    _kick(ctx)
    return JobResult(job=job)


def _set_enabled(enabled: bool, now_fn: Callable[[], object]) -> Callable[[Job], Job]:
    def change(job: Job) -> Job:
        if job.enabled == enabled:
            return job
        if not enabled:
            return job.model_copy(update={"enabled": False})
        now = now_fn()
        nxt = job.next_run
        if job.kind == "cron":
            nxt = next_run(job, now, job.last_run)  # type: ignore[arg-type]
        elif nxt is None and job.run_count == 0:
            nxt = next_run(job, now)  # type: ignore[arg-type]
        return job.model_copy(update={"enabled": True, "next_run": nxt})

    return change


async def job_pause(ctx: HandlerContext, params: JobRefParams) -> JobResult:
    """Stop a job from firing."""
    store = shared(ctx).store
    job = await _call(
        lambda: store.update(params.job, _set_enabled(False, store.clock), ctx.workspace.id)
    )
    return JobResult(job=job)


async def job_resume(ctx: HandlerContext, params: JobRefParams) -> JobResult:
    """Let a job fire again (cron from now; a once job that never ran keeps its time)."""
    store = shared(ctx).store
    job = await _call(
        lambda: store.update(params.job, _set_enabled(True, store.clock), ctx.workspace.id)
    )
    _kick(ctx)
    return JobResult(job=job)


async def job_remove(ctx: HandlerContext, params: JobRefParams) -> JobResult:
    """Delete a job."""
    store = shared(ctx).store
    job = await _call(lambda: store.remove(params.job, ctx.workspace.id))
    return JobResult(job=job)


async def job_run(ctx: HandlerContext, params: JobRefParams) -> JobRunResult:
    """Fire a job now in this daemon (its workspace is the connection's)."""
    sh = shared(ctx)
    job = await _call(lambda: sh.store.get(params.job, ctx.workspace.id))
    rec = await sh.firing.fire(job)
    fresh = await _call(lambda: sh.store.get(job.id))
    return JobRunResult(job=fresh, run=rec)


async def job_log(ctx: HandlerContext, params: JobLogParams) -> JobLogResult:
    """Run records of one job, or of every job of the workspace."""
    store = shared(ctx).store
    if params.job is not None:
        job = await _call(lambda: store.get(params.job or "", ctx.workspace.id))
        runs = await _call(lambda: store.runs(job.id, params.limit))
        return JobLogResult(runs=runs)
    jobs = await _call(store.jobs)
    ids = {j.id for j in jobs if j.workspace == ctx.workspace.id}
    runs = await _call(store.runs)
    return JobLogResult(runs=[r for r in runs if r.job_id in ids][: params.limit])


HANDLERS: dict[str, Handler] = {
    "gg/job.list": job_list,
    "gg/job.add": job_add,
    "gg/job.update": job_update,
    "gg/job.pause": job_pause,
    "gg/job.resume": job_resume,
    "gg/job.remove": job_remove,
    "gg/job.run": job_run,
    "gg/job.log": job_log,
}

__all__ = ["HANDLERS"]
