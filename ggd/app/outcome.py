"""How a run's task ends: the one mapping from a loop outcome or an exception to terminal events."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from ggd.agent import AgentError, TurnOutcome
from ggd.protocol import UsageInfo
from ggd.protocol import errors as E
from ggd.protocol import events as W

from .run import Run

log = logging.getLogger("ggd.app")


async def drive(run: Run, work: Awaitable[TurnOutcome], time_limit: float) -> None:
    """Await the loop under the run's time limit and record exactly one terminal event."""
    try:
        async with asyncio.timeout(time_limit):
            outcome = await work
        run.usage = UsageInfo(**outcome.spend.wire())
        run.result = outcome.content
        run.emit(W.RunCompletedEvent, content=outcome.content, usage=run.usage)
    except asyncio.CancelledError:
        run.cancel_approvals("cancel")
        run.emit(W.RunCanceledEvent)
    except TimeoutError:
        run.cancel_approvals("timeout")
        # Name the limit and how to raise it.
        run.error = (
            f"run timeout reached: the run took longer than {time_limit:g} s "
            "(runTimeoutSeconds); raise it with `ggd --run-timeout SECONDS` or "
            '"runTimeoutSeconds" in GG_HOME/config.json'
        )
        run.emit(W.RunFailedEvent, error=run.error, error_code="run_timeout", retryable=True)
    except AgentError as exc:
        run.cancel_approvals("cancel")
        run.error = exc.message if hasattr(exc, "message") else str(exc)
        # run.usage: the totals of the last usage event (what a budget stop had spent).
        run.emit(
            W.RunFailedEvent,
            error=run.error,
            error_code=exc.code,
            retryable=exc.retryable,
            usage=run.usage,
        )
    except E.GgError as exc:
        run.cancel_approvals("cancel")
        run.error = exc.message
        run.emit(
            W.RunFailedEvent, error=exc.message, error_code=exc.symbol, retryable=exc.is_retryable
        )
    except Exception:
        log.exception("run crashed", extra={"run": run.id, "session": run.session_id})
        run.cancel_approvals("cancel")
        run.error = "internal error; see the daemon log"
        run.emit(W.RunFailedEvent, error=run.error, error_code="internal_error", retryable=False)


__all__ = ["drive"]
