"""The `memory` section of config.json."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

CONFIG_KEY = "memory"


class MemoryConfig(BaseModel):
    """`config.json` -> `memory`: whether the memory tools exist and how much goes to the model."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    enabled: bool = True
    dailyLogRetentionDays: int = Field(default=90, ge=1, le=36_500)
    # Characters of MEMORY.md and of today's log tail put into the system prompt at each turn.
    memoryBudgetChars: int = Field(default=4000, ge=0, le=200_000)
    dailyBudgetChars: int = Field(default=2000, ge=0, le=200_000)


__all__ = ["CONFIG_KEY", "MemoryConfig"]
