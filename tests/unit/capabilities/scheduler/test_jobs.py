"""Updating jobs: a new schedule or zone recomputes nextRun; names stay unique."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from ggd.capabilities.scheduler.jobs import apply_update, build_job
from ggd.capabilities.scheduler.protocol import JobAddParams, JobUpdateParams
from ggd.capabilities.scheduler.schedule import ScheduleError
from ggd.capabilities.scheduler.store import DuplicateNameError, JobStore, UnknownJobError

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def ms(*args: int) -> int:
    return int(datetime(*args, tzinfo=UTC).timestamp() * 1000)  # type: ignore[misc]


def test_update_recomputes_next_run_for_a_new_schedule_or_zone() -> None:
    job = build_job(JobAddParams(name="a", prompt="p", cron="0 9 * * *"), "w", "UTC", NOW)
    assert job.next_run == ms(2026, 12, 2, 9, 0)
    moved = apply_update(job, JobUpdateParams(job="a", timezone="America/New_York"), NOW)
    assert moved.timezone == "America/New_York" and moved.next_run == ms(2026, 12, 1, 14, 0)
    earlier = apply_update(job, JobUpdateParams(job="a", cron="30 10 * * *"), NOW)
    assert earlier.schedule == "30 10 * * *" and earlier.next_run == ms(2026, 12, 1, 10, 30)
    as_once = apply_update(job, JobUpdateParams(job="a", at="2027-01-01T00:00:00Z"), NOW)
    assert as_once.kind == "once" and as_once.next_run == ms(2027, 1, 1, 0, 0)
    reworded = apply_update(job, JobUpdateParams(job="a", prompt="q", allow_all=True), NOW)
    assert reworded.next_run == job.next_run and reworded.allow_all and reworded.prompt == "q"
    with pytest.raises(ScheduleError, match=r"^timezone:"):
        apply_update(job, JobUpdateParams(job="a", timezone="Nowhere/Land"), NOW)


def test_store_update_keeps_names_unique_and_scopes_by_workspace(tmp_path: Path) -> None:
    store = JobStore(tmp_path)
    for name in ("one", "two"):
        p = JobAddParams(name=name, prompt="p", cron="@daily", timezone="UTC")
        store.add(build_job(p, "w_a", "UTC", NOW))
    with pytest.raises(DuplicateNameError):
        store.update("two", lambda j: apply_update(j, JobUpdateParams(job="two", name="ONE"), NOW))
    renamed = store.update(
        "two", lambda j: apply_update(j, JobUpdateParams(job="two", name="Two"), NOW)
    )
    assert renamed.name == "Two"
    with pytest.raises(UnknownJobError):
        store.get("one", workspace="w_other")  # another workspace's job is not found from here
    assert store.remove("one", workspace="w_a").name == "one"
    assert [j.name for j in store.jobs()] == ["Two"]


def test_config_refuses_an_unknown_default_zone() -> None:
    from pydantic import ValidationError

    from ggd.capabilities.scheduler.config import SchedulerConfig

    assert SchedulerConfig(timezone="Europe/Berlin").timezone == "Europe/Berlin"
    with pytest.raises(ValidationError, match="unknown IANA time zone"):
        SchedulerConfig(timezone="Mars/Olympus")
    with pytest.raises(ValidationError):
        SchedulerConfig.model_validate({"enabeld": False})  # a typo is an error, not ignored


def test_an_at_time_just_past_is_taken_and_due_at_once() -> None:
    from datetime import timedelta

    from ggd.capabilities.scheduler.jobs import MISFIRE_GRACE_SECONDS, next_run

    now = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
    just = (now - timedelta(seconds=5)).isoformat()
    job = build_job(JobAddParams(name="soon", prompt="p", at=just), "w", "UTC", now)
    due = next_run(job, now)
    assert due is not None and due <= int(now.timestamp() * 1000)  # fires on the next tick
    long_ago = (now - timedelta(seconds=MISFIRE_GRACE_SECONDS + 5)).isoformat()
    with pytest.raises(ScheduleError, match="in the past"):
        build_job(JobAddParams(name="late", prompt="p", at=long_ago), "w", "UTC", now)
