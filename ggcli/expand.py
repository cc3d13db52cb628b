"""The /skill:<name> prompt expansion the one-shot and interactive runs use (gg/skill.expand)."""

from __future__ import annotations

from typing import Any

FORCE_PREFIX = "/skill:"


def expand_prompt(client: Any, prompt: str) -> str:
    """The prompt to send: a leading /skill:<name> expanded by the daemon, anything else as is."""
    if not prompt.lstrip().startswith(FORCE_PREFIX):
        return prompt
    result = client.request("gg/skill.expand", {"prompt": prompt}) or {}
    return str(result.get("prompt") or prompt)
