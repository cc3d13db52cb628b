"""The job store: GG_HOME/scheduler/jobs.json (whole-file atomic rename) and runs.jsonl (append-only).

Every read-modify-write holds an exclusive portalocker lock on `scheduler/lock`, so the CLI's
daemon methods, a sidecar and the scheduler channel can edit at once without losing a change.
Pure reads never write. The store is synchronous (callers on the event loop use a thread) and
takes a clock, so tests drive time.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from ggd.app import write_private
from ggd.app.files import owner_lock

from .protocol import Job, RunRecord

Clock = Callable[[], datetime]
T = TypeVar("T")
LOCK_TIMEOUT_SECONDS = 10.0


def utc_now() -> datetime:
    """The real clock."""
    return datetime.now(UTC)


class StoreError(Exception):
    """The store cannot be read or written; the message says what to do (no paths)."""


class StoreBusyError(StoreError):
    """The store lock was not free within the bound (another process holds it)."""


class DuplicateNameError(StoreError):
    """Another job already has this name (names are unique, case-insensitively)."""


class UnknownJobError(StoreError):
    """No job has this id or name."""


def new_job_id() -> str:
    """A fresh job id."""
    return "j_" + secrets.token_hex(4)


def new_run_id() -> str:
    """A fresh run record id."""
    return "jr_" + secrets.token_hex(4)


class JobStore:
    """jobs.json and runs.jsonl under GG_HOME/scheduler (0700 dir, 0600 files)."""

    def __init__(self, home: Path, clock: Clock = utc_now) -> None:
        self.dir = home / "scheduler"
        self.jobs_path = self.dir / "jobs.json"
        self.runs_path = self.dir / "runs.jsonl"
        self.lock_path = self.dir / "lock"
        self.clock = clock

    def now_ms(self) -> int:
        """The store clock in epoch milliseconds."""
        return int(self.clock().timestamp() * 1000)

    # -- locking ---------------------------------------------------------------------------------

    def _ensure_dir(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.dir, 0o700)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's exclusive lock (blocking, bounded)."""
        self._ensure_dir()
        with owner_lock(
            self.lock_path,
            timeout=LOCK_TIMEOUT_SECONDS,
            busy=lambda: StoreBusyError("the job store is locked by another process; try again"),
        ):
            yield

    # -- jobs ------------------------------------------------------------------------------------

    def jobs(self) -> list[Job]:
        """Every job, by name (a pure read: nothing is written)."""
        try:
            raw = self.jobs_path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"the job store cannot be read ({exc.strerror})") from None
        try:
            data = json.loads(raw)
            rows = data["jobs"]
            jobs = [Job.model_validate(r) for r in rows]
        except (ValueError, KeyError, TypeError, ValidationError):
            raise StoreError(
                "scheduler/jobs.json under GG_HOME is not a valid job store; fix or remove it"
            ) from None
        return sorted(jobs, key=lambda j: j.name.lower())

    def _write(self, jobs: list[Job]) -> None:
        rows = [j.model_dump(by_alias=True, mode="json") for j in jobs]
        payload = json.dumps({"version": 1, "jobs": rows}, indent=1).encode()
        write_private(self.jobs_path, payload)

    def mutate(self, fn: Callable[[list[Job]], T]) -> T:
        """Read, change (fn edits the list in place) and write back, under the lock.

        Nothing is written when fn changed nothing (or the store does not exist and stays empty).
        """
        with self.locked():
            jobs = self.jobs()
            before = list(jobs)
            out = fn(jobs)
            if jobs != before or not self.jobs_path.exists():
                self._write(jobs)
            return out

    def get(self, ref: str, workspace: str | None = None) -> Job:
        """A job by id or (case-insensitive) name, optionally only within a workspace."""
        return find(self.jobs(), ref, workspace)

    def add(self, job: Job) -> Job:
        """Store a new job; its name must be unused (case-insensitively)."""

        def change(jobs: list[Job]) -> Job:
            check_name(jobs, job.name, None)
            jobs.append(job)
            return job

        return self.mutate(change)

    def update(self, ref: str, fn: Callable[[Job], Job], workspace: str | None = None) -> Job:
        """Replace one job by fn(job) under the lock."""

        def change(jobs: list[Job]) -> Job:
            old = find(jobs, ref, workspace)
            new = fn(old)
            if new.name.lower() != old.name.lower():
                check_name(jobs, new.name, old.id)
            jobs[jobs.index(old)] = new
            return new

        return self.mutate(change)

    def remove(self, ref: str, workspace: str | None = None) -> Job:
        """Delete a job (its run records stay in runs.jsonl)."""

        def change(jobs: list[Job]) -> Job:
            old = find(jobs, ref, workspace)
            jobs.remove(old)
            return old

        return self.mutate(change)

    # -- runs ------------------------------------------------------------------------------------

    def append_run(self, record: RunRecord) -> RunRecord:
        """Append one state of a run record (the last line of an id wins on read)."""
        line = (json.dumps(record.model_dump(by_alias=True, mode="json")) + "\n").encode()
        with self.locked():
            fd = os.open(self.runs_path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                # A crash mid-append leaves a last line without its newline; writing straight
                # after it would glue this record onto the torn one and both would be
                # unreadable. Start a line of our own instead (the torn one stays, skipped).
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        return record

    def runs(self, job_id: str | None = None, limit: int | None = None) -> list[RunRecord]:
        """Run records (latest state of each), newest first; unreadable lines are skipped."""
        try:
            text = self.runs_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"the run log cannot be read ({exc.strerror})") from None
        latest: dict[str, RunRecord] = {}
        for line in text.splitlines():
            try:
                rec = RunRecord.model_validate_json(line)
            except ValidationError:
                continue  # a torn last line after a crash: the rest of the log is still good
            if job_id is None or rec.job_id == job_id:
                latest.pop(rec.id, None)
                latest[rec.id] = rec
        out = sorted(latest.values(), key=lambda r: r.started_at, reverse=True)
        return out[:limit] if limit is not None else out


def find(jobs: list[Job], ref: str, workspace: str | None = None) -> Job:
    """A job by id, else by case-insensitive name; UnknownJobError when none matches."""
    pool = [j for j in jobs if workspace is None or j.workspace == workspace]
    for j in pool:
        if j.id == ref:
            return j
    for j in pool:
        if j.name.lower() == ref.lower():
            return j
    raise UnknownJobError(f"no job {ref!r} here (see `gg job list`)")


def check_name(jobs: list[Job], name: str, own_id: str | None) -> None:
    """Refuse a name another job already uses (case-insensitively)."""
    for j in jobs:
        if j.id != own_id and j.name.lower() == name.lower():
            raise DuplicateNameError(f"name: a job named {j.name!r} already exists")


__all__ = [
    "Clock",
    "DuplicateNameError",
    "JobStore",
    "StoreBusyError",
    "StoreError",
    "UnknownJobError",
    "check_name",
    "find",
    "new_job_id",
    "new_run_id",
    "utc_now",
]
