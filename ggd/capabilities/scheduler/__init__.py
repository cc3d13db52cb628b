"""The scheduler capability: cron and one-shot jobs that run the agent unattended.

Jobs live in GG_HOME/scheduler (jobs.json, runs.jsonl). The loop is a supervised daemon channel
(`SchedulerChannel`), started only in the daemon that owns the channels (the one holding the
instance lock; never a sidecar). Each firing is one turn in a fresh `scheduler/<name>-<time>`
session with the unattended approver. Methods: gg/job.list|add|update|pause|resume|remove|run|log
and the gg/job.event notification. See docs/scheduler.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ggd.app import (
    Capability,
    Channel,
    ChannelContext,
    DeferredHandlers,
    DeferredRows,
    SetupContext,
    StateContext,
    ToolProvider,
)

from .config import SchedulerConfig
from .errors import ERRORS

if TYPE_CHECKING:
    from .loop import SchedulerChannel


# Test-only: a shorter longest sleep, so an end-to-end test sees a job another process added
# without waiting 30 s. It is read from the daemon's environment only; config.json cannot set it.
MAX_SLEEP_ENV = "GG_SCHEDULER_MAX_SLEEP"


def _max_sleep(env: Mapping[str, str]) -> float:
    from .loop import MAX_SLEEP_SECONDS

    try:
        value = float(env.get(MAX_SLEEP_ENV, ""))
    except ValueError:
        return MAX_SLEEP_SECONDS
    return min(MAX_SLEEP_SECONDS, max(0.05, value))


class JobsAdvert(ToolProvider):
    """No tools: advertises `jobs` so clients (the web UI's Jobs view) know gg/job.* is here."""

    name = "scheduler"
    capabilities = ("jobs",)


def _state(ctx: StateContext) -> object:
    # The store and the firing are made at their first use (a job call or the channel's start).
    from .state import make_state

    return make_state(ctx, max_sleep=_max_sleep(ctx.env))


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [JobsAdvert()]


def _channels(ctx: ChannelContext) -> Sequence[Channel] | str:
    from .loop import SchedulerChannel
    from .state import shared

    cfg = ctx.config
    if isinstance(cfg, SchedulerConfig) and not cfg.enabled:
        reason = "disabled in config.json (scheduler.enabled is false)"
        shared(ctx).off_reason = reason
        return reason
    sh = shared(ctx)
    sh.channel = SchedulerChannel(ctx.services, sh.store, sh.firing, max_sleep=sh.max_sleep)
    return [sh.channel]


CAPABILITY = Capability(
    name="scheduler",
    summary="Cron and one-shot jobs that run the agent unattended (gg job, the Jobs view).",
    config_key="scheduler",
    config_model=SchedulerConfig,
    state=_state,
    providers=_providers,
    channels=_channels,
    methods=DeferredRows(__name__, "job"),
    handlers=DeferredHandlers(__name__),
    errors=ERRORS,
)


def __getattr__(name: str) -> Any:
    if name == "SchedulerChannel":  # the loop is imported when asked for, not with the catalog
        from .loop import SchedulerChannel

        return SchedulerChannel
    raise AttributeError(name)


__all__ = ["CAPABILITY", "SchedulerChannel", "SchedulerConfig"]
