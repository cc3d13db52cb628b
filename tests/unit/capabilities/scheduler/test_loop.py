"""The scheduler loop on an injected clock: nothing here sleeps on real time."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from ggd.capabilities.scheduler.jobs import build_job
from ggd.capabilities.scheduler.protocol import Job, JobAddParams, RunRecord
from ggd.capabilities.scheduler.store import JobStore

from .fakes import FakeClock, FakeServices, finish_all, make_loop

T0 = datetime(2026, 12, 1, 10, 0, 30, tzinfo=UTC)


def add(store: JobStore, ws: str = "w_test", **params: object) -> Job:
    p = JobAddParams.model_validate({"prompt": "do it", "timezone": "UTC", **params})
    return store.add(build_job(p, ws, "UTC", store.clock()))


def statuses(store: JobStore, job: Job) -> list[str]:
    return [r.status for r in reversed(store.runs(job.id))]


async def test_cron_fires_at_its_minutes_and_advances_next_run_first(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ch, store, services = make_loop(tmp_path, clock)
    job = add(store, name="every5", cron="*/5 * * * *")
    assert job.next_run == int(datetime(2026, 12, 1, 10, 5, tzinfo=UTC).timestamp() * 1000)
    assert await ch.tick() == 30.0  # due in 270 s, but the loop looks again within 30 s
    assert services.requests == []
    clock.set(datetime(2026, 12, 1, 10, 4, 50, tzinfo=UTC))
    assert await ch.tick() == 10.0  # sleeps exactly until the job is due
    clock.set(datetime(2026, 12, 1, 10, 5, tzinfo=UTC))
    await ch.tick()
    assert len(services.requests) == 1
    req = services.requests[0]
    assert req.session_name == "scheduler/every5-20261201-100500"
    assert req.timeout == 600 and req.prompt == "do it"
    assert req.approver.allow_all is False  # type: ignore[attr-defined]
    stored = store.get("every5")
    assert stored.next_run == int(datetime(2026, 12, 1, 10, 10, tzinfo=UTC).timestamp() * 1000)
    assert stored.run_count == 1 and stored.last_run is not None
    await finish_all(ch, services, "all good")
    [rec] = store.runs(job.id)
    assert rec.status == "ok" and rec.summary == "all good" and rec.session_id == "s_0"
    assert [e["type"] for e in services.events] == ["fired", "finished"]
    await ch.tick()
    assert len(services.requests) == 1  # not due again until 10:10


async def test_once_job_fires_once(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ch, store, services = make_loop(tmp_path, clock)
    job = add(store, name="once", in_seconds=90)
    clock.advance(89)
    await ch.tick()
    assert services.requests == []
    clock.advance(1)
    await ch.tick()
    await finish_all(ch, services)
    clock.advance(3600)
    await ch.tick()
    assert len(services.requests) == 1
    assert store.get(job.id).next_run is None and statuses(store, job) == ["ok"]


async def test_overlapping_firing_is_recorded_skipped_once(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC))
    ch, store, services = make_loop(tmp_path, clock)
    job = add(store, name="minutely", cron="* * * * *")
    clock.advance(60)
    await ch.tick()
    assert len(services.runs) == 1  # a long run starts and is not finished
    for _ in range(3):
        await ch.tick()  # ticks between fire times record nothing
    clock.advance(60)
    await ch.tick()
    for _ in range(3):
        await ch.tick()
    assert statuses(store, job) == ["running", "skipped"]
    assert len(services.requests) == 1
    await finish_all(ch, services)
    clock.advance(60)
    await ch.tick()
    await finish_all(ch, services)
    assert statuses(store, job) == ["ok", "skipped", "ok"]
    assert store.get(job.id).run_count == 2  # a skipped firing is not a run


async def test_a_failing_firing_is_recorded_and_the_next_job_still_fires(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ch, store, services = make_loop(tmp_path, clock)
    services.raise_for.add("explode")
    bad = add(store, name="bad", in_seconds=10, prompt="explode")
    good = add(store, name="good", in_seconds=10)
    clock.advance(10)
    await ch.tick()
    [rec] = store.runs(bad.id)
    assert rec.status == "error" and "cannot start explode" in rec.summary
    assert rec.finished_at is not None
    await finish_all(ch, services)
    assert statuses(store, good) == ["ok"]
    # A run that fails, or hits its time limit, is recorded as such with the error as summary.
    later = add(store, name="later", cron="* * * * *", timeout=5)
    clock.advance(60)
    await ch.tick()
    services.runs[-1].fail("the run took longer than its time limit (5 s)", "run_timeout")
    await finish_all(ch, services)
    [timed] = store.runs(later.id)
    assert timed.status == "timeout" and "time limit" in timed.summary
    # Stopped by a user (Stop in a client): interrupted, not an error of the job.
    clock.advance(60)
    await ch.tick()
    services.runs[-1].cancel()
    await finish_all(ch, services)
    assert store.runs(later.id)[0].status == "interrupted"


async def test_restart_reschedules_cron_from_now_and_fires_a_missed_once_job_once(
    tmp_path: Path,
) -> None:
    clock = FakeClock(T0)
    _ch, store, services = make_loop(tmp_path, clock)
    hourly = add(store, name="hourly", cron="0 * * * *")
    once = add(store, name="once", in_seconds=60)
    # A run that was going when the daemon died.
    store.append_run(RunRecord(id="jr_dead", job_id=hourly.id, started_at=1, status="running"))
    clock.advance(5 * 3600)  # the daemon was down for five hours
    ch2, _, services2 = make_loop(tmp_path, clock)
    await asyncio.to_thread(ch2.recover)
    assert statuses(store, hourly) == ["interrupted"]
    expected = int(datetime(2026, 12, 1, 16, 0, tzinfo=UTC).timestamp() * 1000)
    assert store.get("hourly").next_run == expected  # from now: no catch-up of five firings
    await ch2.tick()
    assert [r.prompt for r in services2.requests] == ["do it"]
    assert services2.requests[0].session_name.startswith("scheduler/once-")
    await finish_all(ch2, services2)
    # Another restart: the once job has fired and does not fire again.
    ch3, _, services3 = make_loop(tmp_path, clock)
    await asyncio.to_thread(ch3.recover)
    await ch3.tick()
    assert services3.requests == [] and statuses(store, once) == ["ok"]
    assert services.requests == []


async def test_a_job_fires_only_in_the_daemon_serving_its_workspace(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ch, store, services = make_loop(tmp_path, clock)
    other = add(store, ws="w_elsewhere", name="elsewhere", in_seconds=5)
    clock.advance(60)
    await ch.tick()
    assert services.requests == []
    assert store.get(other.id).next_run == other.next_run  # left for the daemon that serves it


async def test_paused_job_does_not_fire_and_reads_never_write(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ch, store, services = make_loop(tmp_path, clock)
    job = add(store, name="p", cron="* * * * *", enabled=False)
    add(store, name="later", cron="0 0 1 1 *")  # enabled, not due for a month
    await asyncio.to_thread(ch.recover)  # nothing to reschedule: no write either
    before = store.jobs_path.stat().st_mtime_ns, store.jobs_path.read_bytes()
    clock.advance(120)
    for _ in range(3):
        await ch.tick()
    store.jobs()
    store.runs()
    assert services.requests == [] and job.next_run is None
    assert (store.jobs_path.stat().st_mtime_ns, store.jobs_path.read_bytes()) == before


async def test_run_sleeps_with_the_injected_sleeper_and_stops(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ch, store, services = make_loop(tmp_path, clock)
    add(store, name="soon", in_seconds=12)
    delays: list[float] = []

    async def sleeper(seconds: float, wake: asyncio.Event) -> None:
        delays.append(seconds)
        clock.advance(seconds)
        if len(delays) == 3:
            await ch.stop()

    ch.sleeper = sleeper
    await asyncio.wait_for(ch.run(), 5)
    assert delays == [12.0, 30.0, 30.0]
    assert len(services.requests) == 1
    assert store.runs()[0].status == "interrupted"  # stopped while its run was going


async def _fire_daily_across(tmp_path: Path, start: datetime, days: int) -> list[datetime]:
    """Drive a 02:30 Europe/Berlin job day by day; return the instants it fired."""
    clock = FakeClock(start)
    services = FakeServices(tmp_path, auto_complete="ok")
    ch, store, _ = make_loop(tmp_path, clock, services)
    add(store, name="berlin", cron="30 2 * * *", timezone="Europe/Berlin")
    fired: list[datetime] = []
    end = start.timestamp() + days * 86400
    while True:
        nxt = store.get("berlin").next_run
        assert nxt is not None
        if nxt / 1000 > end:
            break
        clock.set(datetime.fromtimestamp(nxt / 1000, UTC))
        await ch.tick()
        await finish_all(ch, services)
        fired.append(clock())
        clock.advance(30)
        await ch.tick()  # nothing more is due within the same minute
    assert len(services.requests) == len(fired)
    return fired


async def test_dst_spring_forward_2027_berlin_fires_once_each_day(tmp_path: Path) -> None:
    fired = await _fire_daily_across(tmp_path, datetime(2027, 3, 26, 12, 0, tzinfo=UTC), 5)
    berlin = ZoneInfo("Europe/Berlin")
    days = [f.astimezone(berlin).date().isoformat() for f in fired]
    assert days == ["2027-03-27", "2027-03-28", "2027-03-29", "2027-03-30", "2027-03-31"]
    # 02:30 does not exist on 2027-03-28; APScheduler gives 02:30+01:00, i.e. 01:30 UTC,
    # which is 03:30 CEST: the job still fires that day, an hour of wall time later.
    assert fired[1] == datetime(2027, 3, 28, 1, 30, tzinfo=UTC)
    assert fired[1].astimezone(berlin).strftime("%H:%M") == "03:30"
    assert [f.astimezone(berlin).strftime("%H:%M") for f in fired[2:]] == ["02:30"] * 3


async def test_dst_fall_back_2027_berlin_fires_once_each_day(tmp_path: Path) -> None:
    fired = await _fire_daily_across(tmp_path, datetime(2027, 10, 29, 12, 0, tzinfo=UTC), 5)
    berlin = ZoneInfo("Europe/Berlin")
    days = [f.astimezone(berlin).date().isoformat() for f in fired]
    assert days == ["2027-10-30", "2027-10-31", "2027-11-01", "2027-11-02", "2027-11-03"]
    # 02:30 happens twice on 2027-10-31: APScheduler returns both (00:30 and 01:30 UTC);
    # the job fires at the first only.
    assert fired[1] == datetime(2027, 10, 31, 0, 30, tzinfo=UTC)
    assert all(f.astimezone(berlin).strftime("%H:%M") == "02:30" for f in fired)


async def test_run_now_and_the_schedule_at_once_start_one_run(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ch, store, services = make_loop(tmp_path, clock)
    job = add(store, name="both", in_seconds=10)
    clock.advance(10)
    # The loop's firing and a manual run now race: one run, one skipped record.
    await asyncio.gather(ch.tick(), ch.firing.fire(job))
    assert len(services.requests) == 1
    assert sorted(statuses(store, job)) == ["running", "skipped"]
    await finish_all(ch, services)
