"""config.json `scheduler` section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SchedulerConfig(BaseModel):
    """`scheduler`: whether this daemon fires jobs, and the default time zone of new jobs."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    timezone: str | None = Field(default=None, description="IANA zone for new jobs (default local)")


__all__ = ["SchedulerConfig"]
