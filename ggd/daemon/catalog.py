"""The catalog: every capability this daemon ships, one line each, plus out-of-tree ones.

Adding a capability is its own package under ggd/capabilities/ and one line here.
`GG_CAPABILITIES_EXTRA=module:attr[,module:attr]` loads more (a capability developed outside
the tree, or a test's); it is read from the daemon's own environment, so it has the user's trust.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from ggd.app import Capability
from ggd.app.builtins import CAPABILITY as CORE
from ggd.capabilities import (
    artifacts,
    browser,
    computer,
    google,
    kb,
    mcp,
    media,
    personal,
    scheduler,
    skills,
    telegram,
)


def builtin() -> tuple[Capability, ...]:
    """The capabilities that ship with ggd, core first."""
    return (
        CORE,
        personal.CAPABILITY,
        skills.CAPABILITY,
        mcp.CAPABILITY,
        scheduler.CAPABILITY,
        computer.CAPABILITY,
        browser.CAPABILITY,
        media.CAPABILITY,
        artifacts.CAPABILITY,
        kb.CAPABILITY,
        google.CAPABILITY,
        telegram.CAPABILITY,
    )


def extra(env: Mapping[str, str]) -> tuple[Capability, ...]:
    """Capabilities named by GG_CAPABILITIES_EXTRA; a bad entry is a start-up error."""
    spec = env.get("GG_CAPABILITIES_EXTRA", "").strip()
    out: list[Capability] = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        module, _, attr = item.partition(":")
        try:
            value = getattr(importlib.import_module(module), attr or "CAPABILITY")
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"GG_CAPABILITIES_EXTRA: cannot load {item!r} ({exc})") from None
        if not isinstance(value, Capability):
            raise ValueError(f"GG_CAPABILITIES_EXTRA: {item!r} is not a Capability")
        out.append(value)
    return tuple(out)


def all_capabilities(env: Mapping[str, str]) -> tuple[Capability, ...]:
    """Builtin capabilities, then the extra ones."""
    return (*builtin(), *extra(env))


__all__ = ["all_capabilities", "builtin", "extra"]
