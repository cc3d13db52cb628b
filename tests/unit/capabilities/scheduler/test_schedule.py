"""Schedule inputs: cron (crontab weekday meaning), macros, RFC 3339 times, zones, durations."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ggd.capabilities.scheduler.jobs import build_job
from ggd.capabilities.scheduler.protocol import JobAddParams
from ggd.capabilities.scheduler.schedule import (
    ScheduleError,
    crontab,
    next_cron,
    parse_duration,
    parse_time,
)

TUESDAY = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("expr", "weekday"),
    [("0 9 * * 0", "Sunday"), ("0 9 * * 7", "Sunday"), ("0 9 * * 1", "Monday"),
     ("0 9 * * 6", "Saturday"), ("0 9 * * sun", "Sunday"), ("0 9 * * 3-5", "Wednesday")],
)  # fmt: skip
def test_weekday_numbers_mean_what_crontab_means(expr: str, weekday: str) -> None:
    when = next_cron(expr, "UTC", TUESDAY)
    assert when is not None and when.strftime("%A") == weekday


def test_macros_and_steps() -> None:
    assert crontab("@daily") == "0 0 * * *"
    assert crontab("@hourly") == "0 * * * *"
    assert crontab("0 9 * * */2") == "0 9 * * sun,tue,thu,sat"
    nxt = next_cron("@weekly", "UTC", TUESDAY)
    assert nxt == datetime(2026, 12, 6, 0, 0, tzinfo=UTC)  # Sunday midnight


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"cron": "61 * * * *"}, "schedule"),
        ({"cron": "* * *"}, "schedule"),
        ({"cron": "0 9 * * 8"}, "schedule"),
        ({"cron": "0 0 30 2 *"}, "schedule"),
        ({"at": "next tuesday"}, "at"),
        ({"at": "2020-01-01T00:00:00Z"}, "at"),
        ({"cron": "@daily", "timezone": "Europe/Atlantis"}, "timezone"),
        ({"cron": "@daily", "at": "2027-01-01T00:00:00Z"}, "schedule"),
        ({}, "schedule"),
    ],
)
def test_bad_input_names_the_field(params: dict[str, str], field: str) -> None:
    p = JobAddParams.model_validate({"name": "n", "prompt": "p", **params})
    with pytest.raises(ScheduleError) as err:
        build_job(p, "w", "UTC", TUESDAY)
    assert str(err.value).startswith(f"{field}:"), err.value


def test_times_and_durations() -> None:
    assert parse_time("2027-03-28T09:00:00Z", "UTC") == datetime(2027, 3, 28, 9, tzinfo=UTC)
    local = parse_time("2027-03-28T09:00:00", "Europe/Berlin")  # no offset: the job's zone
    assert local.astimezone(UTC) == datetime(2027, 3, 28, 7, tzinfo=UTC)
    assert parse_duration("90s") == 90 and parse_duration("1h30m") == 5400
    assert parse_duration("2d") == 172800 and parse_duration("15") == 15
    for bad in ("soon", "5x", "-3", "0"):
        with pytest.raises(ScheduleError):
            parse_duration(bad)
    p = JobAddParams(name="n", prompt="p", in_seconds=90, timezone="Europe/Berlin")
    job = build_job(p, "w", "UTC", TUESDAY)
    assert job.kind == "once" and job.schedule == "2026-12-01T11:01:30+01:00"
    assert job.next_run == int(TUESDAY.timestamp() * 1000) + 90_000
