"""The composition root: config, GG_HOME, single instance, discovery file, listeners, lifecycle."""

from __future__ import annotations

__all__ = ["main"]

from .main import main
