"""The skills provider: a listing section at every turn and the skill folders as read-only roots."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ggd.app import Contribution, PromptSection, SessionContext, ToolProvider

from .discovery import discover, log_warnings
from .prompt import listing

SKILLS_ORDER = 60


class SkillsProvider(ToolProvider):
    """Lists the skills of the session's workspace; contributes no tools (read does the reading)."""

    name = "skills"
    capabilities = ("skills",)

    async def build(self, session: SessionContext) -> Contribution:
        """Discover the skills now (they change as the user edits them) and list them."""
        skills = await asyncio.to_thread(discover, session.workspace.root, Path.home())
        log_warnings(skills)
        text = listing(skills)
        return Contribution(
            prompt=PromptSection("Skills", text, SKILLS_ORDER) if text else None,
            read_roots=[s.folder for s in skills.skills],
        )


__all__ = ["SKILLS_ORDER", "SkillsProvider"]
