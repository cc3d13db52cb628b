"""The job store: concurrent writers in separate processes, permissions, names, the run log."""

from __future__ import annotations

import json
import multiprocessing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ggd.capabilities.scheduler.jobs import build_job
from ggd.capabilities.scheduler.protocol import JobAddParams, RunRecord
from ggd.capabilities.scheduler.store import DuplicateNameError, JobStore, StoreError

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def _add_many(home: str, prefix: str, count: int) -> None:
    """Runs in a child process: add `count` jobs one read-modify-write at a time."""
    store = JobStore(Path(home))
    for i in range(count):
        p = JobAddParams(name=f"{prefix}-{i}", prompt="p", cron="@daily", timezone="UTC")
        store.add(build_job(p, "w_test", "UTC", NOW))


def test_two_processes_adding_100_jobs_each_lose_none(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_add_many, args=(str(tmp_path), n, 100)) for n in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    names = {j.name for j in JobStore(tmp_path).jobs()}
    assert len(names) == 200
    assert names == {f"{n}-{i}" for n in ("a", "b") for i in range(100)}


def test_files_are_owner_only_and_names_unique_case_insensitively(tmp_path: Path) -> None:
    store = JobStore(tmp_path, lambda: NOW)
    p = JobAddParams(name="Backup", prompt="p", cron="@daily", timezone="UTC")
    store.add(build_job(p, "w_test", "UTC", NOW))
    store.append_run(RunRecord(id="jr_1", job_id="j", started_at=1, status="ok"))
    assert (tmp_path / "scheduler").stat().st_mode & 0o777 == 0o700
    for name in ("jobs.json", "runs.jsonl", "lock"):
        assert (tmp_path / "scheduler" / name).stat().st_mode & 0o777 == 0o600
    with pytest.raises(DuplicateNameError, match="name"):
        store.add(build_job(p.model_copy(update={"name": "BACKUP"}), "w_test", "UTC", NOW))
    assert store.get("backup").name == "Backup"


def test_run_log_keeps_the_last_state_and_survives_a_torn_line(tmp_path: Path) -> None:
    store = JobStore(tmp_path)
    store.append_run(RunRecord(id="jr_1", job_id="j", started_at=1, status="running"))
    store.append_run(RunRecord(id="jr_2", job_id="j", started_at=2, status="skipped"))
    store.append_run(RunRecord(id="jr_1", job_id="j", started_at=1, status="ok", summary="s"))
    with open(store.runs_path, "a") as f:
        f.write('{"id": "jr_3", "jobId"')  # a crash mid-append
    runs = store.runs("j")
    assert [(r.id, r.status) for r in runs] == [("jr_2", "skipped"), ("jr_1", "ok")]
    assert len(store.runs_path.read_text().splitlines()) == 4  # append-only: nothing rewritten


def test_an_append_after_a_torn_line_starts_a_new_line_and_is_read(tmp_path: Path) -> None:
    store = JobStore(tmp_path)
    store.append_run(RunRecord(id="jr_1", job_id="j", started_at=1, status="ok"))
    with open(store.runs_path, "a") as f:
        f.write('{"id": "jr_2", "jobId": "j", "sta')  # killed mid-append: no newline
    store.append_run(RunRecord(id="jr_3", job_id="j", started_at=3, status="ok", summary="s"))
    store.append_run(RunRecord(id="jr_4", job_id="j", started_at=4, status="skipped"))
    runs = store.runs("j")
    assert [(r.id, r.status) for r in runs] == [("jr_4", "skipped"), ("jr_3", "ok"), ("jr_1", "ok")]
    lines = store.runs_path.read_text().splitlines()
    assert lines[1] == '{"id": "jr_2", "jobId": "j", "sta'  # the torn line stays, alone
    assert len(lines) == 4


def test_a_corrupt_store_is_an_error_that_says_what_to_do(tmp_path: Path) -> None:
    store = JobStore(tmp_path)
    store.dir.mkdir(parents=True)
    store.jobs_path.write_text("{ nope")
    with pytest.raises(StoreError, match="fix or remove it") as err:
        store.jobs()
    assert str(tmp_path) not in str(err.value)
    with pytest.raises(StoreError):
        store.mutate(lambda jobs: None)
    assert store.jobs_path.read_text() == "{ nope"  # never overwritten


def test_jobs_json_is_plain_json(tmp_path: Path) -> None:
    """The store is readable without gg: one object with a jobs list (documented format)."""
    JobStore(tmp_path).mutate(lambda jobs: None)
    assert json.loads((tmp_path / "scheduler" / "jobs.json").read_text()) == {
        "version": 1,
        "jobs": [],
    }
