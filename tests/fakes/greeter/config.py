"""config.json["greeter"]."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GreeterConfig(BaseModel):
    """What the greeting says."""

    model_config = ConfigDict(extra="forbid")

    greeting: str = "Hello"
