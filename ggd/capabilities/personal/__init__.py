"""The personal layer: who the user is (GG_HOME/USER.md) and what gg remembers (GG_HOME/memory/).

The worked example of a capability (docs/extending.md points here). One module per concern:

- config.py   the `memory` section of config.json
- profile.py  USER.md: parse, render for the prompt, write the template
- scope.py    memory scopes and safe file names
- store.py    the memory folder: atomic locked appends, legacy migration, daily-log pruning
- search.py   keyword search across the memory files
- prompt.py   the budgeted memory section of the system prompt
- tools.py    memory_add and memory_search for the model
- provider.py the profile and memory ToolProviders
- protocol.py / handlers.py  gg/memory.show|search|add|init

What it sends to the model: the profile and MEMORY.md plus today's log tail, every turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from ggd.app import Capability, DeferredHandlers, DeferredRows, SetupContext, ToolProvider

from .config import CONFIG_KEY, MemoryConfig
from .provider import MemoryProvider, ProfileProvider


def _providers(setup: SetupContext) -> Sequence[ToolProvider]:
    return [ProfileProvider(setup.home), MemoryProvider(setup.home, setup.section(MemoryConfig))]


CAPABILITY = Capability(
    name="personal",
    summary="The user's profile (USER.md) and memory (MEMORY.md, daily logs, people, groups).",
    config_key=CONFIG_KEY,
    config_model=MemoryConfig,
    providers=_providers,
    methods=DeferredRows(__name__, "memory"),
    handlers=DeferredHandlers(__name__),
)

__all__ = ["CAPABILITY", "MemoryConfig", "MemoryProvider", "ProfileProvider"]
