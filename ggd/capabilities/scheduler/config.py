"""config.json `scheduler` section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .schedule import zone


class SchedulerConfig(BaseModel):
    """`scheduler`: whether this daemon fires jobs, and the default time zone of new jobs."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    enabled: bool = True
    timezone: str | None = Field(default=None, description="IANA zone for new jobs (default local)")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None:
            zone(value)  # ScheduleError is a ValueError: config loading reports the field
        return value


__all__ = ["SchedulerConfig"]
