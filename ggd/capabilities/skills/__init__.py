"""Skills: task instructions in `.agents/skills/<name>/SKILL.md` folders, listed to the model.

- frontmatter.py  the strict `---` frontmatter parser
- discovery.py    roots (workspace, parents, ~), loading, precedence, warnings
- prompt.py       the listing section and /skill:<name> expansion
- provider.py     the SkillsProvider (prompt section + read-only roots for read/list/grep)
- protocol.py / handlers.py  gg/skill.list and gg/skill.expand

Forcing a skill is a client-side step through the daemon: a client whose prompt starts with
`/skill:<name>` calls gg/skill.expand and sends the result to gg/run.start, so the run core never
learns about skills.
"""

from __future__ import annotations

from collections.abc import Sequence

from ggd.app import Capability, DeferredHandlers, DeferredRows, SetupContext, ToolProvider

from .provider import SkillsProvider


def _providers(setup: SetupContext) -> Sequence[ToolProvider]:
    return [SkillsProvider()]


CAPABILITY = Capability(
    name="skills",
    summary="Skills from .agents/skills folders: listed to the model, forced with /skill:<name>.",
    providers=_providers,
    methods=DeferredRows(__name__, "skill"),
    handlers=DeferredHandlers(__name__),
)

__all__ = ["CAPABILITY", "SkillsProvider"]
