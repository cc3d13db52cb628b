"""A small JSON Schema check of tool arguments (required keys, top-level types)."""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _matches(value: Any, expected: str | list[str] | None) -> bool:
    if expected is None:
        return True
    names = [expected] if isinstance(expected, str) else expected
    for name in names:
        kinds = _TYPES.get(name)
        if kinds is None:
            return True
        # bool is an int in Python but not in JSON Schema.
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, kinds):
            return True
    return False


def validate_arguments(schema: dict[str, Any], args: Any) -> str | None:
    """Return a message for the model when args break the schema, else None."""
    if not isinstance(args, dict):
        return "arguments must be a JSON object"
    props: dict[str, Any] = schema.get("properties") or {}
    missing = [k for k in schema.get("required") or [] if k not in args]
    if missing:
        return "missing required argument(s): " + ", ".join(missing)
    for key, value in args.items():
        spec = props.get(key)
        if spec is None:
            if schema.get("additionalProperties") is False:
                return f"unknown argument: {key}"
            continue
        if not _matches(value, spec.get("type")):
            return f"argument {key} must be of type {spec.get('type')}"
        enum = spec.get("enum")
        if enum is not None and value not in enum:
            return f"argument {key} must be one of {enum}"
    return None
