"""Tool names and input schemas adapted for OpenAI-style function calling."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ggd.capabilities.mcp.schema import adapt_schema, tool_name

REAL = json.loads((Path(__file__).parents[3] / "data" / "mcp_schemas.json").read_text())
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_DROPPED = {"$ref", "$defs", "definitions", "$schema", "$id", "const", "oneOf", "allOf", "if"}


def _nodes(node: Any) -> list[dict[str, Any]]:
    """Every subschema (property names are not mistaken for keywords)."""
    if not isinstance(node, dict):
        return []
    out = [node]
    for v in (node.get("properties") or {}).values():
        out.extend(_nodes(v))
    for key in ("items", "additionalProperties"):
        out.extend(_nodes(node.get(key)))
    for b in node.get("anyOf") or []:
        out.extend(_nodes(b))
    return out


def assert_function_callable(schema: dict[str, Any]) -> None:
    """What providers require: an object root, no refs or root combinators, arrays with items."""
    assert schema["type"] == "object" and isinstance(schema["properties"], dict)
    assert not {"anyOf", "oneOf", "allOf"} & set(schema)
    for node in _nodes(schema):
        assert not _DROPPED & set(node), node
        if node.get("type") == "array":
            assert isinstance(node["items"], dict)
    for req in schema.get("required", []):
        assert req in schema["properties"]
    json.dumps(schema)


@pytest.mark.parametrize(("server", "tool"), [(s, t) for s, tools in REAL.items() for t in tools])
def test_the_real_servers_schemas_are_adapted(server: str, tool: str) -> None:
    original = REAL[server][tool]
    out = adapt_schema(original)
    assert_function_callable(out)
    assert "$schema" not in out
    assert set(out["properties"]) == set(original.get("properties", {}))


def test_refs_are_inlined_and_cycles_cut() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "number"}}},
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
        },
        "properties": {
            "at": {"$ref": "#/$defs/Point", "description": "where"},
            "list": {"$ref": "#/$defs/Node"},
            "remote": {"$ref": "https://example.com/schema.json"},
        },
        "required": ["at", "missing"],
    }
    out = adapt_schema(schema)
    assert out["properties"]["at"] == {
        "type": "object",
        "properties": {"x": {"type": "number"}},
        "description": "where",
    }
    # The recursion is cut at the cycle: `next` accepts anything rather than recursing forever.
    assert out["properties"]["list"]["properties"]["next"] == {}
    assert out["properties"]["remote"] == {}
    assert out["required"] == ["at"]
    assert "$defs" not in out and "$ref" not in json.dumps(out)


def test_root_combinators_are_merged() -> None:
    schema = {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "c"]},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["c"]},
        ],
        "properties": {"c": {"const": 1}},
    }
    out = adapt_schema(schema)
    assert out["type"] == "object" and set(out["properties"]) == {"a", "b", "c"}
    assert out["required"] == ["c"]
    assert out["properties"]["c"] == {"enum": [1]}
    all_of = adapt_schema(
        {"allOf": [{"properties": {"x": {}}, "required": ["x"]}, {"properties": {"y": {}}}]}
    )
    assert all_of["required"] == ["x"] and set(all_of["properties"]) == {"x", "y"}


@pytest.mark.parametrize(
    "nasty",
    [
        None,
        "string",
        {"type": "string"},
        {},
        {"properties": []},
        {"type": "object", "properties": {"x": True, "y": False, "z": {"type": "array"}}},
        {"type": "object", "properties": {"t": {"items": [{"type": "string"}], "type": "array"}}},
        {"type": "object", "properties": {"n": {"type": ["string", "null", "bogus"]}}},
        {"type": "object", "properties": {"o": {"oneOf": [{"type": "string"}, True]}}},
        {"type": "object", "properties": {"e": {"enum": []}, "w": {"type": "weird"}}},
        {"type": "object", "if": {}, "then": {}, "patternProperties": {".*": {}}, "required": "x"},
        {
            "$ref": "#/definitions/Root",
            "definitions": {"Root": {"properties": {"k": {"type": "integer"}}}},
        },
    ],
)
def test_nasty_schemas_become_function_callable(nasty: Any) -> None:
    out = adapt_schema(nasty)
    assert_function_callable(out)
    text = json.dumps(out)
    assert "$ref" not in text and "oneOf" not in text and "patternProperties" not in text


def test_a_root_ref_is_followed() -> None:
    out = adapt_schema(
        {
            "$ref": "#/definitions/Root",
            "definitions": {"Root": {"properties": {"k": {"type": "integer"}}}},
        }
    )
    assert out["properties"] == {"k": {"type": "integer"}}


def test_tool_names_are_sanitized_bounded_and_unique() -> None:
    taken: set[str] = set()
    assert tool_name("time", "get_current_time", taken) == "mcp_time_get_current_time"
    assert tool_name("every thing", "get.env/x", taken) == "mcp_every_thing_get_env_x"
    assert tool_name("every_thing", "get_env_x", taken) == "mcp_every_thing_get_env_x_2"
    long = [tool_name("s", "t" * 100, taken) for _ in range(3)]
    assert all(len(n) <= 64 and _NAME.match(n) for n in long)
    assert len(set(long)) == 3 and long[1].endswith("_2") and long[2].endswith("_3")
    assert _NAME.match(tool_name("ü", "ß", taken))
