"""The small argument validator."""

from __future__ import annotations

from ggd.agent.validation import validate_arguments

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "limit": {"type": "integer"},
        "literal": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["a", "b"]},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def test_valid_arguments_pass() -> None:
    assert (
        validate_arguments(SCHEMA, {"path": "x", "limit": 3, "literal": True, "mode": "a"}) is None
    )


def test_each_violation_is_reported() -> None:
    assert "path" in (validate_arguments(SCHEMA, {}) or "")
    assert "limit" in (validate_arguments(SCHEMA, {"path": "x", "limit": "3"}) or "")
    assert "limit" in (validate_arguments(SCHEMA, {"path": "x", "limit": True}) or "")
    assert "mode" in (validate_arguments(SCHEMA, {"path": "x", "mode": "c"}) or "")
    assert "other" in (validate_arguments(SCHEMA, {"path": "x", "other": 1}) or "")
    assert validate_arguments(SCHEMA, ["x"]) == "arguments must be a JSON object"
