"""What the model sees of skills: the listing section, and a forced skill inlined into a prompt."""

from __future__ import annotations

import re

from .discovery import SKILL_FILE, Skill, SkillSet

FORCE_PREFIX = "/skill:"
_FORCED = re.compile(r"/skill:(\S*)(?:\s+(.*))?\Z", re.DOTALL)
LISTING_HINT = (
    "Skills are instructions for particular tasks. When a task matches one below, read its "
    "SKILL.md first and follow it; its paths are relative to its folder, which you can read "
    "but not write."
)


class UnknownSkillError(LookupError):
    """A forced skill that does not exist; the message lists the known ones."""


def listing(skills: SkillSet) -> str:
    """The prompt section body listing the model-invocable skills ('' when there are none)."""
    rows = [
        f"- {s.name}: {s.description} (read {s.shown}/{SKILL_FILE})"
        for s in skills.skills
        if s.model_invocable
    ]
    return LISTING_HINT + "\n\n" + "\n".join(rows) if rows else ""


def forced_name(prompt: str) -> tuple[str, str] | None:
    """(skill name, rest of the prompt) when the prompt starts with /skill:<name>, else None."""
    m = _FORCED.match(prompt.strip())
    return (m.group(1), (m.group(2) or "").strip()) if m else None


def expand(prompt: str, skills: SkillSet) -> tuple[str, Skill | None]:
    """The prompt with a forced skill's SKILL.md body inlined (unchanged when none is forced).

    Reads the skill file: call it from a worker thread inside the daemon.
    """
    forced = forced_name(prompt)
    if forced is None:
        return prompt, None
    name, task = forced
    skill = skills.get(name) if name else None
    if skill is None:
        known = ", ".join(skills.names) or "none found (add .agents/skills/<name>/SKILL.md)"
        raise UnknownSkillError(f"unknown skill {name!r}; known skills: {known}")
    block = (
        f'<skill name="{skill.name}" folder="{skill.shown}">\n'
        f"The user asked you to use this skill. Files it mentions are relative to {skill.shown}/.\n\n"
        f"{skill.body()}\n</skill>"
    )
    return (f"{block}\n\n{task}" if task else block), skill


__all__ = ["FORCE_PREFIX", "UnknownSkillError", "expand", "forced_name", "listing"]
