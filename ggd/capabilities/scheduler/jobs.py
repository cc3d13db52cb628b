"""Jobs as values: building one from add params, applying an update, and its next fire time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from .protocol import DEFAULT_TIMEOUT_SECONDS, Job, JobAddParams, JobUpdateParams
from .schedule import ScheduleError, from_ms, next_cron, once_time, to_ms, zone
from .store import new_job_id

# A once job whose time passed this recently is still taken, and fires at once: `gg job add --at`
# a few seconds ahead reaches a daemon that `gg` may first have to start.
MISFIRE_GRACE_SECONDS = 60


def schedule_of(
    cron: str | None, at: str | None, in_seconds: float | None, tz: str, now: datetime
) -> tuple[str, str]:
    """(kind, schedule) from exactly one of cron / at / inSeconds, validated."""
    given = [n for n, v in (("cron", cron), ("at", at), ("inSeconds", in_seconds)) if v is not None]
    if len(given) != 1:
        raise ScheduleError("schedule: give exactly one of cron, at or inSeconds")
    if cron is not None:
        if next_cron(cron, tz, now) is None:  # also validates the expression and the zone
            raise ScheduleError(f"schedule: {cron!r} never fires (no such date)")
        return "cron", cron.strip()
    if at is not None:
        when = once_time(at, tz)
        assert when is not None
        if when.timestamp() < now.timestamp() - MISFIRE_GRACE_SECONDS:
            raise ScheduleError(f"at: {at!r} is in the past")
        return "once", when.isoformat()
    assert in_seconds is not None
    when = now.astimezone(zone(tz)) + timedelta(seconds=in_seconds)
    return "once", when.replace(microsecond=0).isoformat()


def next_run(job: Job, now: datetime, last_ms: int | None = None) -> int | None:
    """The job's next fire time in epoch ms (None: nothing left to fire)."""
    if job.kind == "once":
        when = once_time(job.schedule, job.timezone)
        return to_ms(when) if when is not None else None
    last = from_ms(last_ms, UTC) if last_ms is not None else None
    nxt = next_cron(job.schedule, job.timezone, now, last)
    return to_ms(nxt) if nxt is not None else None


def build_job(params: JobAddParams, workspace_id: str, default_tz: str, now: datetime) -> Job:
    """A new job from add params (ScheduleError names the bad field)."""
    tz = params.timezone or default_tz
    zone(tz)
    kind, schedule = schedule_of(params.cron, params.at, params.in_seconds, tz, now)
    job = Job(
        id=new_job_id(),
        name=params.name.strip(),
        kind=kind,
        schedule=schedule,
        prompt=params.prompt,
        timezone=tz,
        workspace=workspace_id,
        enabled=params.enabled,
        allow_all=params.allow_all,
        timeout=params.timeout or DEFAULT_TIMEOUT_SECONDS,
        model=params.model,
        budget=params.budget,
        created_at=to_ms(now),
    )
    if not job.name:
        raise ScheduleError("name: must not be blank")
    return job.model_copy(update={"next_run": next_run(job, now) if job.enabled else None})


def apply_update(job: Job, params: JobUpdateParams, now: datetime) -> Job:
    """The job with the given fields changed; a new schedule or zone recomputes nextRun."""
    changes: dict[str, object] = {}
    tz = params.timezone or job.timezone
    if params.timezone is not None:
        zone(tz)
        changes["timezone"] = tz
    if params.cron is not None or params.at is not None:
        kind, schedule = schedule_of(params.cron, params.at, None, tz, now)
        changes.update(kind=kind, schedule=schedule)
    for field in ("name", "prompt", "allow_all", "timeout", "model", "budget"):
        value = getattr(params, field)
        if value is not None:
            changes[field] = value.strip() if field == "name" and isinstance(value, str) else value
    new = job.model_copy(update=changes)
    if {"timezone", "schedule"} & changes.keys():
        new = new.model_copy(update={"next_run": next_run(new, now) if new.enabled else None})
    return new


__all__ = ["apply_update", "build_job", "next_run", "schedule_of"]
