"""The personal layer's providers: the profile (who the user is) and memory (tools and notes).

They are two providers so that `memory.enabled: false` hides the memory tools and notes while
the profile still reaches the model. Both read their files at every turn (in a worker thread), so
an edit to USER.md or MEMORY.md applies to the next run without a restart.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from ggd.app import (
    Contribution,
    PromptSection,
    ScopeContext,
    SessionContext,
    ToolProvider,
)

from .config import MemoryConfig
from .profile import PROFILE_FILE, ProfileError, read_profile, render_profile
from .prompt import memory_text
from .store import MemoryBusyError, MemoryStore
from .tools import MemoryAddTool, MemorySearchTool

log = logging.getLogger("ggd.personal")

PROFILE_ORDER = 10
MEMORY_ORDER = 20


class ProfileProvider(ToolProvider):
    """GG_HOME/USER.md as a "who you are" prompt section; a broken file is warned about once."""

    name = "profile"
    capabilities = ("profile",)

    def __init__(self, home: Path) -> None:
        self.path = home / PROFILE_FILE
        self._warned: str | None = None

    async def start(self) -> None:
        """Check USER.md once at start so a broken file is reported before the first run."""
        await asyncio.to_thread(self.section)

    async def build(self, session: SessionContext) -> Contribution:
        """The profile section, re-read for this turn."""
        return Contribution(prompt=await asyncio.to_thread(self.section))

    def section(self) -> PromptSection | None:
        """The prompt section of the current USER.md (None when absent, empty or broken)."""
        try:
            profile = read_profile(self.path)
        except ProfileError as exc:
            self._warn(str(exc))
            return None
        self._warned = None
        text = render_profile(profile) if profile is not None else ""
        return PromptSection("Who you are working with", text, PROFILE_ORDER) if text else None

    def _warn(self, problem: str) -> None:
        # Once per distinct problem: it is re-read every turn, and the log is not a ticker.
        if problem != self._warned:
            self._warned = problem
            log.warning("profile ignored: %s; fix it, or rewrite it with gg init --force", problem)


class MemoryProvider(ToolProvider):
    """memory_add, memory_search and the memory prompt section, when `memory.enabled`."""

    name = "memory"
    capabilities = ("memory",)

    def __init__(self, home: Path, config: MemoryConfig) -> None:
        self.config = config
        self.store = MemoryStore(home, config.dailyLogRetentionDays)

    async def start(self) -> None:
        """Create the store, migrate GG_HOME/memory.md and prune old daily logs."""
        if not self.config.enabled:
            return
        try:
            notes = await asyncio.to_thread(self.store.prepare)
        except (OSError, MemoryBusyError) as exc:
            # The tools still work if the folder can be made later; say so rather than degrade.
            log.warning("memory store not prepared: %s", exc)
            return
        for note in notes:
            log.info("memory: %s", note)

    def available(self, scope: ScopeContext) -> str | None:
        """Off when config.json says `memory.enabled: false`."""
        return None if self.config.enabled else "memory is off (memory.enabled in config.json)"

    async def build(self, session: SessionContext) -> Contribution:
        """The two tools and the memory section, re-read for this turn."""
        text = await asyncio.to_thread(self._text)
        return Contribution(
            tools=[MemoryAddTool(self.store), MemorySearchTool(self.store)],
            prompt=PromptSection("Memory", text, MEMORY_ORDER),
        )

    def _text(self) -> str:
        return memory_text(
            self.store.curated(),
            self.store.today_log(),
            self.store.today(),
            self.config.memoryBudgetChars,
            self.config.dailyBudgetChars,
        )


__all__ = ["MEMORY_ORDER", "PROFILE_ORDER", "MemoryProvider", "ProfileProvider"]
