"""The skills provider: a listing section at every turn and the skill folders as read-only roots."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from ggd.app import Contribution, PromptSection, SessionContext, ToolProvider

from .discovery import SkillSet, discover
from .prompt import listing

log = logging.getLogger("ggd.skills")

SKILLS_ORDER = 60


class SkillsProvider(ToolProvider):
    """Lists the skills of the session's workspace; contributes no tools (read does the reading)."""

    name = "skills"
    capabilities = ("skills",)

    def __init__(self) -> None:
        self._warned: set[str] = set()

    async def build(self, session: SessionContext) -> Contribution:
        """Discover the skills now (they change as the user edits them) and list them."""
        skills = await asyncio.to_thread(discover, session.workspace.root, Path.home())
        self.warn(skills)
        text = listing(skills)
        return Contribution(
            prompt=PromptSection("Skills", text, SKILLS_ORDER) if text else None,
            read_roots=[s.folder for s in skills.skills],
        )

    def warn(self, skills: SkillSet) -> None:
        """Log each malformed-skill warning once per daemon (builds happen every turn)."""
        for warning in skills.warnings:
            if warning not in self._warned:
                self._warned.add(warning)
                log.warning("skill %s", warning)


__all__ = ["SKILLS_ORDER", "SkillsProvider"]
