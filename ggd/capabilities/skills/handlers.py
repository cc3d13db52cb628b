"""Request handlers of gg/skill.*."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ggd.app import HandlerContext
from ggd.protocol import errors as E
from ggd.protocol.base import Empty

from .discovery import SkillError, SkillSet, discover, log_warnings
from .frontmatter import FrontmatterError
from .prompt import UnknownSkillError, expand
from .protocol import SkillExpandParams, SkillExpandResult, SkillInfo, SkillListResult


async def _skills(ctx: HandlerContext) -> SkillSet:
    skills = await asyncio.to_thread(discover, ctx.workspace.root, Path.home())
    log_warnings(skills)
    return skills


async def skill_list(ctx: HandlerContext, params: Empty) -> SkillListResult:
    """Every skill of the workspace, model-invocable or not."""
    skills = await _skills(ctx)
    return SkillListResult(
        skills=[
            SkillInfo(
                name=s.name,
                description=s.description,
                root=s.root,
                model_invocable=s.model_invocable,
                folder=s.shown,
            )
            for s in skills.skills
        ],
        warnings=skills.warnings,
    )


async def skill_expand(ctx: HandlerContext, params: SkillExpandParams) -> SkillExpandResult:
    """The prompt with the forced skill inlined."""
    skills = await _skills(ctx)
    try:
        prompt, skill = await asyncio.to_thread(expand, params.prompt, skills)
    except UnknownSkillError as exc:
        raise E.InvalidParamsError(f"invalid params: prompt: {exc.args[0]}") from None
    except (SkillError, FrontmatterError, OSError) as exc:
        # The file changed between discovery and reading it.
        raise E.InvalidParamsError(
            f"invalid params: prompt: the skill cannot be read: {exc}"
        ) from None
    return SkillExpandResult(prompt=prompt, skill=skill.name if skill else None)


HANDLERS: dict[str, Any] = {"gg/skill.list": skill_list, "gg/skill.expand": skill_expand}

__all__ = ["HANDLERS", "skill_expand", "skill_list"]
