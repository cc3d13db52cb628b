"""Thin adapters from gg/* methods to the application core, one module per protocol area."""

from __future__ import annotations

from . import run, session, system

__all__ = ["run", "session", "system"]
