"""Schedules: parsing cron / RFC 3339 / duration inputs and next-fire times from APScheduler 3.

Next-fire maths is APScheduler's (`CronTrigger.from_crontab`, `DateTrigger`); this module only
normalises inputs and applies two rules of ours on top:

- crontab weekday numbers (0 and 7 are Sunday) are translated to names, because APScheduler 3
  counts 0 as Monday (its documented historical mismatch, issue 286);
- a wall-clock time that happens twice (the autumn DST fall-back) fires once: APScheduler returns
  both instants, we skip the second.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

if TYPE_CHECKING:  # imported where used: APScheduler's cron parser is ~7 ms at every start
    from apscheduler.triggers.cron import CronTrigger

MACROS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
}
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


class ScheduleError(ValueError):
    """An input that cannot be a schedule; the message names the field and what is accepted."""


def zone(name: str) -> ZoneInfo:
    """An IANA time zone by name, or ScheduleError naming the timezone field."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise ScheduleError(
            f"timezone: unknown IANA time zone {name!r} (for example Europe/Berlin or UTC)"
        ) from None


def local_zone_name() -> str:
    """The machine's IANA zone name, else UTC."""
    try:
        import tzlocal

        name = tzlocal.get_localzone_name()
    except Exception:
        return "UTC"
    return name if name else "UTC"


def _dow_part(part: str) -> str:
    """One comma item of a crontab weekday field with numbers turned into names (crontab meaning)."""
    body, _, step_s = part.partition("/")
    if not re.fullmatch(r"[\d*-]+", body) or (step_s and not step_s.isdigit()):
        return part  # names (mon-fri) mean the same to APScheduler; let it judge anything else
    step = int(step_s) if step_s else 1
    if body == "*":
        if not step_s:
            return "*"
        lo, hi = 0, 6
    elif "-" in body:
        a, _, b = body.partition("-")
        if not (a.isdigit() and b.isdigit()):
            return part
        lo, hi = int(a), int(b)
    else:
        if not body.isdigit():
            return part
        lo = hi = int(body)
        if step_s:
            hi = 6
    if not (0 <= lo <= 7 and 0 <= hi <= 7) or lo > hi or step < 1:
        raise ScheduleError(
            f"schedule: day of week {part!r} is out of range (0-7, 0 and 7 are Sunday)"
        )
    return ",".join(dict.fromkeys(_DAYS[d] for d in range(lo, hi + 1, step)))


def crontab(expr: str) -> str:
    """A 5-field expression (macros expanded, weekday numbers in crontab meaning)."""
    text = MACROS.get(expr.strip().lower(), expr.strip())
    fields = text.split()
    if len(fields) != 5:
        raise ScheduleError(
            f"schedule: {expr!r} is not a cron expression: expected 5 fields "
            "(minute hour day month weekday) or @hourly, @daily, @weekly, @monthly"
        )
    fields[4] = ",".join(_dow_part(p) for p in fields[4].split(","))
    return " ".join(fields)


def cron_trigger(expr: str, tz: str) -> CronTrigger:
    """APScheduler's trigger for a cron schedule, or ScheduleError naming the field."""
    from apscheduler.triggers.cron import CronTrigger

    zi = zone(tz)
    try:
        return CronTrigger.from_crontab(crontab(expr), timezone=zi)
    except ScheduleError:
        raise
    except ValueError as exc:
        raise ScheduleError(f"schedule: {expr!r} is not a valid cron expression ({exc})") from None


def parse_time(text: str, tz: str) -> datetime:
    """An RFC 3339 time (a time without an offset is read in `tz`), as an aware datetime."""
    zi = zone(tz)
    raw = text.strip()
    try:
        when = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        raise ScheduleError(
            f"at: {text!r} is not an RFC 3339 time (for example 2027-03-28T09:00:00+02:00)"
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=zi)


def parse_duration(text: str, field: str = "in") -> float:
    """Seconds from '90s', '10m', '1h30m', '2d' or a bare number of seconds."""
    raw = text.strip().lower().replace(" ", "")
    try:
        value = float(raw)
    except ValueError:
        pos, value = 0, 0.0
        for m in _DURATION.finditer(raw):
            if m.start() != pos:
                break
            value += float(m.group(1)) * _UNITS[m.group(2)]
            pos = m.end()
        if pos != len(raw) or not raw:
            raise ScheduleError(
                f"{field}: {text!r} is not a duration (for example 90s, 10m, 1h30m, 2d)"
            ) from None
    if value <= 0:
        raise ScheduleError(f"{field}: the duration must be positive")
    return value


def to_ms(when: datetime) -> int:
    """Epoch milliseconds of an aware datetime."""
    return int(when.timestamp() * 1000)


def from_ms(ms: int, tz: tzinfo) -> datetime:
    """An aware datetime in `tz` from epoch milliseconds."""
    return datetime.fromtimestamp(ms / 1000, tz)


def _wall(when: datetime, tz: tzinfo) -> tuple[int, int, int, int, int]:
    local = when.astimezone(tz)
    return (local.year, local.month, local.day, local.hour, local.minute)


def next_cron(expr: str, tz: str, now: datetime, last: datetime | None = None) -> datetime | None:
    """The first fire time at or after `now`; a wall time equal to `last`'s (DST repeat) is skipped."""
    trig = cron_trigger(expr, tz)
    zi = zone(tz)
    start = now
    for _ in range(4):  # a repeated wall time is skipped at most once; bounded either way
        when: datetime | None = trig.get_next_fire_time(None, start)
        # Timestamps, not datetimes: same-zone datetimes compare by wall time and ignore fold.
        if when is None or last is None or when.timestamp() <= last.timestamp():
            return when
        if _wall(when, zi) != _wall(last, zi):
            return when
        # UTC arithmetic: adding to a zoned datetime works on wall time and drops the fold.
        start = when.astimezone(UTC) + timedelta(seconds=1)
    return None


def once_time(schedule: str, tz: str) -> datetime | None:
    """The fire time of a one-shot schedule (APScheduler's DateTrigger)."""
    from apscheduler.triggers.date import DateTrigger

    trig = DateTrigger(parse_time(schedule, tz), timezone=zone(tz))
    run_date: datetime = trig.run_date
    return run_date


__all__ = [
    "MACROS",
    "ScheduleError",
    "cron_trigger",
    "crontab",
    "from_ms",
    "local_zone_name",
    "next_cron",
    "once_time",
    "parse_duration",
    "parse_time",
    "to_ms",
    "zone",
]
