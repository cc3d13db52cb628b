"""Capability packages: one folder per capability (personal layer, skills, ...), each exporting one
`CAPABILITY` value. They import the core (app interfaces, agent types, tools base), never each
other; the daemon's catalog lists them."""

from __future__ import annotations

__all__: list[str] = []
