"""Channels and their supervisor: long-lived daemon tasks whose failure is a state, not a crash.

A channel that raises is recorded `failed` with its error and time and left stopped; the daemon
and every other channel keep serving. States are reported on `/health` and in `gg/system.info`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

from .capabilities import sanitize_reason
from .extension import Channel

log = logging.getLogger("ggd.channels")

STOP_TIMEOUT_SECONDS = 5.0


@dataclass
class ChannelState:
    """One channel's state: running, failed, stopped or disabled."""

    name: str
    state: str
    since: float
    error: str | None = None

    def wire(self) -> dict[str, object]:
        """The JSON shape of /health and system.info (since in epoch milliseconds)."""
        out: dict[str, object] = {"name": self.name, "state": self.state}
        out["since"] = int(self.since * 1000)
        if self.error:
            out["error"] = self.error
        return out


class Supervisor:
    """Starts channels, watches them, and stops them within a bound at shutdown."""

    def __init__(self) -> None:
        self._states: dict[str, ChannelState] = {}
        self._channels: dict[str, Channel] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def disabled(self, name: str, reason: str) -> None:
        """Record a channel that is not started here, and why."""
        self._states[name] = ChannelState(name, "disabled", time.time(), reason)

    def start(self, channel: Channel) -> None:
        """Run a channel under supervision."""
        name = channel.name
        if name in self._tasks and not self._tasks[name].done():
            raise ValueError(f"channel {name!r} is already running")
        self._channels[name] = channel
        self._states[name] = ChannelState(name, "running", time.time())
        self._tasks[name] = asyncio.create_task(self._watch(channel), name=f"channel {name}")

    async def _watch(self, channel: Channel) -> None:
        name = channel.name
        try:
            await channel.run()
        except asyncio.CancelledError:
            self._states[name] = ChannelState(name, "stopped", time.time())
            raise
        except Exception as exc:
            log.error("channel failed", extra={"channel": name}, exc_info=True)
            reason = sanitize_reason(f"{type(exc).__name__}: {exc}")
            self._states[name] = ChannelState(name, "failed", time.time(), reason)
            return
        self._states[name] = ChannelState(name, "stopped", time.time())

    def states(self) -> list[ChannelState]:
        """Every channel's state, by name."""
        return [self._states[n] for n in sorted(self._states)]

    async def stop(self) -> None:
        """Ask every running channel to stop; cancel those that do not within the bound."""
        running = {n: t for n, t in self._tasks.items() if not t.done()}
        for name in running:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._channels[name].stop(), STOP_TIMEOUT_SECONDS)
        if running:
            _done, pending = await asyncio.wait(running.values(), timeout=STOP_TIMEOUT_SECONDS)
            for t in pending:
                t.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)


__all__ = ["ChannelState", "Supervisor"]
