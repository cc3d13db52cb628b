"""gg: the thin command-line client of the ggd daemon (stdlib only, no ggd import)."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
