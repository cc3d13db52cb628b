"""Memory scopes (general, daily, person:<name>, group:<name>) and safe file names for them."""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePosixPath

CURATED_FILE = "MEMORY.md"
PEOPLE_DIR = "people"
GROUPS_DIR = "groups"
SCOPE_HELP = "general, daily, person:<name> or group:<name>"
_SLUG_MAX = 64


class MemoryInputError(ValueError):
    """A memory request with a bad scope or content; the message says how to fix it."""


def slugify(name: str) -> str:
    """A file-name-safe slug: ASCII letters, digits and dashes only (no dots, no slashes)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug[:_SLUG_MAX].strip("-")


def daily_name(day: _dt.date) -> str:
    """The daily log file name of a day (YYYY-MM-DD.md)."""
    return f"{day.isoformat()}.md"


@dataclass(frozen=True)
class Scope:
    """Where one memory goes: a kind and, for people and groups, the display name."""

    kind: str  # general | daily | person | group
    name: str = ""

    def relpath(self, today: _dt.date) -> PurePosixPath:
        """The file of this scope, relative to the memory root."""
        if self.kind == "general":
            return PurePosixPath(CURATED_FILE)
        if self.kind == "daily":
            return PurePosixPath(daily_name(today))
        folder = PEOPLE_DIR if self.kind == "person" else GROUPS_DIR
        return PurePosixPath(folder, slugify(self.name) + ".md")

    def title(self, today: _dt.date) -> str:
        """The heading a new file of this scope starts with."""
        if self.kind == "general":
            return "Memory"
        if self.kind == "daily":
            return today.isoformat()
        return self.name

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}" if self.name else self.kind


def parse_scope(raw: str | None) -> Scope:
    """Parse a scope string; MemoryInputError when it is not one of the four forms."""
    text = (raw or "general").strip()
    kind, sep, name = text.partition(":")
    kind = kind.strip().lower()
    if not sep and kind in ("general", "daily"):
        return Scope(kind)
    if sep and kind in ("person", "group"):
        name = " ".join(name.split())
        if not slugify(name):
            raise MemoryInputError(f"scope {text!r}: the name needs at least one letter or digit")
        return Scope(kind, name)
    raise MemoryInputError(f"scope {text!r} is not one of {SCOPE_HELP}")


__all__ = [
    "CURATED_FILE",
    "GROUPS_DIR",
    "PEOPLE_DIR",
    "SCOPE_HELP",
    "MemoryInputError",
    "Scope",
    "daily_name",
    "parse_scope",
    "slugify",
]
