"""The scheduler's wire models (Job, RunRecord, params, results) and its method table rows."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ggd.protocol import Budget, MethodSpec
from ggd.protocol.base import Event, Params, Result, WireModel

Kind = Literal["cron", "once"]
RunStatus = Literal["running", "ok", "error", "timeout", "skipped", "interrupted"]
DEFAULT_TIMEOUT_SECONDS = 600.0
MAX_TIMEOUT_SECONDS = 7 * 86_400.0  # a week: a run longer than that is a mistake, not a job
MAX_IN_SECONDS = 100 * 366 * 86_400.0  # a century ahead; `at` covers anything stranger
SUMMARY_LIMIT = 300


class Job(WireModel):
    """A scheduled prompt: what runs, when, where, and with which permissions."""

    id: str
    name: str
    kind: Kind
    schedule: str = Field(description="5-field cron (or @hourly/@daily/...) or an RFC 3339 time")
    prompt: str
    timezone: str = Field(description="IANA time zone the schedule is read in")
    workspace: str = Field(description="id of the workspace the job runs in")
    enabled: bool = True
    allow_all: bool = False
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    model: str | None = None
    # Each firing's spending limits (the "job budget"); none: config's `budget.run` applies.
    budget: Budget | None = None
    created_at: int
    last_run: int | None = None
    next_run: int | None = None
    run_count: int = 0


class RunRecord(WireModel):
    """One firing of a job (runs.jsonl keeps every state; the last line of an id wins)."""

    id: str
    job_id: str
    started_at: int
    finished_at: int | None = None
    status: RunStatus
    summary: str = ""
    session_id: str | None = None


class JobListParams(Params):
    """Jobs of the connection's workspace, or every workspace's with `all`."""

    all: bool = False


class JobListResult(Result):
    """Jobs by name, and whether this daemon fires them."""

    jobs: list[Job]
    scheduler: str = Field(description="`running`, or why jobs do not fire in this daemon")
    last_status: dict[str, RunStatus] = Field(
        default_factory=dict, description="job id -> status of its newest run record"
    )


class JobAddParams(Params):
    """A new job: exactly one of cron, at or inSeconds."""

    name: str = Field(min_length=1, max_length=80)
    prompt: str = Field(min_length=1)
    cron: str | None = None
    at: str | None = Field(default=None, description="RFC 3339 time")
    in_seconds: float | None = Field(default=None, gt=0, le=MAX_IN_SECONDS)
    timezone: str | None = None
    allow_all: bool = False
    timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SECONDS)
    model: str | None = None
    budget: Budget | None = None
    enabled: bool = True


class JobUpdateParams(Params):
    """Change some fields of a job (by id or name)."""

    job: str = Field(min_length=1, description="job id or name")
    name: str | None = Field(default=None, min_length=1, max_length=80)
    prompt: str | None = Field(default=None, min_length=1)
    cron: str | None = None
    at: str | None = None
    timezone: str | None = None
    allow_all: bool | None = None
    timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_SECONDS)
    model: str | None = None
    budget: Budget | None = None


class JobRefParams(Params):
    """One job by id or name."""

    job: str = Field(min_length=1, description="job id or name")


class JobLogParams(Params):
    """Run records, newest first: one job's, or every job's of the workspace."""

    job: str | None = None
    limit: int = Field(default=50, ge=1, le=1000)


class JobResult(Result):
    """One job."""

    job: Job


class JobRunResult(Result):
    """A firing started now (or recorded skipped while the previous run goes on)."""

    job: Job
    run: RunRecord


class JobLogResult(Result):
    """Run records, newest first."""

    runs: list[RunRecord]


class JobEvent(Event):
    """gg/job.event: a job fired (a run started or was skipped) or its run finished."""

    type: Literal["fired", "finished"]
    job_id: str
    job_name: str
    run: RunRecord


_JOB = {
    "id": "j_3f2a9c01",
    "name": "nightly-tests",
    "kind": "cron",
    "schedule": "30 2 * * *",
    "prompt": "run the test suite and summarise failures",
    "timezone": "Europe/Berlin",
    "workspace": "w_3f2a",
    "enabled": True,
    "allowAll": False,
    "timeout": 600,
    "createdAt": 1764475200000,
    "nextRun": 1764552600000,
    "runCount": 0,
}
_RUN = {
    "id": "jr_5c1d2aa0",
    "jobId": "j_3f2a9c01",
    "startedAt": 1764552600000,
    "finishedAt": 1764552660000,
    "status": "ok",
    "summary": "All 412 tests passed.",
    "sessionId": "s_1a2b",
}

JOB_LIST = MethodSpec(
    "gg/job.list",
    "Scheduled jobs of the connection's workspace (all: every workspace).",
    JobListParams,
    JobListResult,
    example={
        "params": {},
        "result": {
            "jobs": [_JOB],
            "scheduler": "running",
            "lastStatus": {"j_3f2a9c01": "ok"},
        },
    },
)
JOB_ADD = MethodSpec(
    "gg/job.add",
    "Add a cron or one-shot job in the connection's workspace.",
    JobAddParams,
    JobResult,
    example={
        "params": {
            "name": "nightly-tests",
            "cron": "30 2 * * *",
            "timezone": "Europe/Berlin",
            "prompt": "run the test suite and summarise failures",
        },
        "result": {"job": _JOB},
    },
)
JOB_UPDATE = MethodSpec(
    "gg/job.update",
    "Change a job's schedule, prompt, time zone, permissions or timeout.",
    JobUpdateParams,
    JobResult,
    example={"params": {"job": "nightly-tests", "cron": "0 3 * * *"}, "result": {"job": _JOB}},
)
JOB_PAUSE = MethodSpec(
    "gg/job.pause",
    "Stop a job from firing until resumed.",
    JobRefParams,
    JobResult,
    example={"params": {"job": "nightly-tests"}, "result": {"job": {**_JOB, "enabled": False}}},
)
JOB_RESUME = MethodSpec(
    "gg/job.resume",
    "Let a paused job fire again (cron jobs reschedule from now).",
    JobRefParams,
    JobResult,
    example={"params": {"job": "nightly-tests"}, "result": {"job": _JOB}},
)
JOB_REMOVE = MethodSpec(
    "gg/job.remove",
    "Delete a job (its run log stays).",
    JobRefParams,
    JobResult,
    example={"params": {"job": "nightly-tests"}, "result": {"job": _JOB}},
)
JOB_RUN = MethodSpec(
    "gg/job.run",
    "Fire a job now, in a fresh session; returns the run record (sessionId set).",
    JobRefParams,
    JobRunResult,
    example={
        "params": {"job": "nightly-tests"},
        "result": {"job": _JOB, "run": {**_RUN, "status": "running", "finishedAt": None}},
    },
)
JOB_LOG = MethodSpec(
    "gg/job.log",
    "Run records of one job or of every job of the workspace, newest first.",
    JobLogParams,
    JobLogResult,
    example={"params": {"job": "nightly-tests", "limit": 10}, "result": {"runs": [_RUN]}},
)
JOB_EVENT = MethodSpec(
    "gg/job.event",
    "Server notification: a job fired or its run finished.",
    JobEvent,
    kind="notification",
    direction="server",
    example={
        "params": {
            "type": "finished",
            "jobId": "j_3f2a9c01",
            "jobName": "nightly-tests",
            "run": _RUN,
        }
    },
)

METHODS: tuple[MethodSpec, ...] = (
    JOB_LIST,
    JOB_ADD,
    JOB_UPDATE,
    JOB_PAUSE,
    JOB_RESUME,
    JOB_REMOVE,
    JOB_RUN,
    JOB_LOG,
    JOB_EVENT,
)

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "JOB_EVENT",
    "METHODS",
    "SUMMARY_LIMIT",
    "Job",
    "JobAddParams",
    "JobEvent",
    "JobListParams",
    "JobListResult",
    "JobLogParams",
    "JobLogResult",
    "JobRefParams",
    "JobResult",
    "JobRunResult",
    "JobUpdateParams",
    "RunRecord",
]
