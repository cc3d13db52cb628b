"""Wire models and method rows of skills: gg/skill.list and gg/skill.expand."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ggd.protocol import MethodSpec
from ggd.protocol.base import Empty, Params, Result, WireModel


class SkillInfo(WireModel):
    """One skill; `folder` is relative to the workspace or ~/..., never absolute."""

    name: str
    description: str
    root: Literal["workspace", "parent", "user"]
    model_invocable: bool
    folder: str


class SkillListResult(Result):
    """The skills of the connection's workspace by precedence, and skipped files' warnings."""

    skills: list[SkillInfo]
    warnings: list[str]


class SkillExpandParams(Params):
    """A prompt that may start with /skill:<name>."""

    prompt: str = Field(min_length=1, max_length=1_000_000)


class SkillExpandResult(Result):
    """The prompt to send to gg/run.start, and the skill it forced (absent when none)."""

    prompt: str
    skill: str | None = None


SKILL_LIST = MethodSpec(
    "gg/skill.list",
    "Skills of the connection's workspace (nearest root first) and warnings for skipped ones.",
    Empty,
    SkillListResult,
    example={
        "params": {},
        "result": {
            "skills": [
                {
                    "name": "release",
                    "description": "Cut a release: changelog, tag, publish.",
                    "root": "workspace",
                    "modelInvocable": True,
                    "folder": ".agents/skills/release",
                }
            ],
            "warnings": [".agents/skills/bad/SKILL.md skipped: the frontmatter has no 'name'"],
        },
    },
)
SKILL_EXPAND = MethodSpec(
    "gg/skill.expand",
    "Expand a leading /skill:<name> into the skill's instructions; clients send the result to "
    "gg/run.start. An unknown name is invalid params listing the known skills.",
    SkillExpandParams,
    SkillExpandResult,
    example={
        "params": {"prompt": "/skill:release 1.4.0"},
        "result": {
            "prompt": '<skill name="release" folder=".agents/skills/release">\n...\n</skill>\n\n'
            "1.4.0",
            "skill": "release",
        },
    },
)

METHODS = (SKILL_LIST, SKILL_EXPAND)

__all__ = ["METHODS", "SkillExpandParams", "SkillExpandResult", "SkillInfo", "SkillListResult"]
