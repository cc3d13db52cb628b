"""Wire models and method rows of the personal layer: gg/memory.show|search|add|init."""

from __future__ import annotations

from pydantic import Field, field_validator

from ggd.protocol import MethodSpec
from ggd.protocol.base import Empty, Params, Result, WireModel


class MemoryShowResult(Result):
    """The profile, MEMORY.md and today's log as text (what the next run's prompt is built from)."""

    enabled: bool
    profile_exists: bool
    profile: str = ""
    profile_problem: str | None = None
    memory: str = ""
    today: str = ""
    today_date: str


class MemorySearchParams(Params):
    """A keyword query over every memory file."""

    query: str = Field(min_length=1, max_length=1000)
    limit: int | None = Field(default=None, ge=1, le=50)


class MemoryHit(WireModel):
    """One matching line; path is relative to the memory root."""

    path: str
    line: int
    text: str


class MemorySearchResult(Result):
    """Hits, best first."""

    hits: list[MemoryHit]


class MemoryAddParams(Params):
    """One memory and where it goes."""

    content: str = Field(min_length=1, max_length=4000)
    scope: str | None = Field(
        default=None, description="general, daily, person:<name>, group:<name>"
    )


class MemoryAddResult(Result):
    """Where the memory went, relative to the memory root."""

    path: str
    scope: str


class MemoryInitParams(Params):
    """The USER.md fields to write; absent ones are left empty in the template."""

    name: str | None = Field(default=None, max_length=200)
    call_me: str | None = Field(default=None, max_length=200)
    timezone: str | None = Field(default=None, max_length=100)
    language: str | None = Field(default=None, max_length=100)
    force: bool = False

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        """A misspelt zone would put wrong times in every prompt: refuse it here."""
        if not value or not value.strip():
            return None
        import zoneinfo  # only when a profile is written

        name = value.strip()
        try:
            zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown time zone {name!r}: use an IANA name such as Europe/London, "
                "America/New_York or UTC"
            ) from None
        return name


class MemoryInitResult(Result):
    """What was written (relative to GG_HOME) and which known fields were left empty."""

    path: str
    empty: list[str]


MEMORY_SHOW = MethodSpec(
    "gg/memory.show",
    "The profile (USER.md), curated memory (MEMORY.md) and today's daily log, as text.",
    Empty,
    MemoryShowResult,
    example={
        "params": {},
        "result": {
            "enabled": True,
            "profileExists": True,
            "profile": "- Name: Ada Lovelace\n- Call me: Ada\n",
            "memory": "# Memory\n\n- Prefers pytest over unittest\n",
            "today": "# 2026-12-01\n\n- 09:30 Reviewed the parser\n",
            "todayDate": "2026-12-01",
        },
    },
)
MEMORY_SEARCH = MethodSpec(
    "gg/memory.search",
    "Case-insensitive keyword search across every memory file; at most `limit` (10) hits.",
    MemorySearchParams,
    MemorySearchResult,
    example={
        "params": {"query": "pytest"},
        "result": {"hits": [{"path": "MEMORY.md", "line": 3, "text": "- Prefers pytest"}]},
    },
)
MEMORY_ADD = MethodSpec(
    "gg/memory.add",
    "Append one memory to a scope: general (MEMORY.md), daily, person:<name>, group:<name>.",
    MemoryAddParams,
    MemoryAddResult,
    example={
        "params": {"content": "Ada prefers tabs", "scope": "person:Ada"},
        "result": {"path": "people/ada.md", "scope": "person:Ada"},
    },
)
MEMORY_INIT = MethodSpec(
    "gg/memory.init",
    "Write the USER.md profile template with the given fields; refused when it exists unless force.",
    MemoryInitParams,
    MemoryInitResult,
    example={
        "params": {"name": "Ada Lovelace", "callMe": "Ada", "timezone": "Europe/London"},
        "result": {"path": "USER.md", "empty": ["Language"]},
    },
)

METHODS = (MEMORY_SHOW, MEMORY_SEARCH, MEMORY_ADD, MEMORY_INIT)

__all__ = [
    "METHODS",
    "MemoryAddParams",
    "MemoryAddResult",
    "MemoryHit",
    "MemoryInitParams",
    "MemoryInitResult",
    "MemorySearchParams",
    "MemorySearchResult",
    "MemoryShowResult",
]
