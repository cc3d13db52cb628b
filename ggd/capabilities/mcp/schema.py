"""Tool names and input schemas of MCP tools, made acceptable to OpenAI-style function calling.

Function names must match `^[a-zA-Z0-9_-]{1,64}$`. Parameters must be an object schema; `$ref`s
are not resolved by every provider, arrays need `items`, and root-level combinators are refused.
MCP servers send whatever JSON Schema their SDK generates, so the schema is rewritten here:
local refs inlined (cycles cut), root combinators merged, unknown or exotic keywords dropped.
"""

from __future__ import annotations

import copy
import re
from typing import Any

MAX_NAME = 64
_BAD = re.compile(r"[^A-Za-z0-9_-]")
_MAX_DEPTH = 12

# Keywords function-calling providers accept (others are dropped, recursively).
_KEEP = {
    "type",
    "description",
    "title",
    "properties",
    "required",
    "items",
    "enum",
    "default",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "additionalProperties",
    "anyOf",
    "nullable",
    "multipleOf",
}
_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """`mcp_<server>_<tool>`: sanitized, at most 64 characters, `_2`, `_3`... on collision."""
    base = _BAD.sub("_", f"mcp_{server}_{tool}")[:MAX_NAME]
    name, n = base, 1
    while name in taken:
        n += 1
        suffix = f"_{n}"
        name = base[: MAX_NAME - len(suffix)] + suffix
    taken.add(name)
    return name


def adapt_schema(schema: Any) -> dict[str, Any]:
    """An object schema without refs, root combinators or unsupported keywords."""
    if not isinstance(schema, dict):
        return _empty_object()
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            defs.update({f"#/{key}/{k}": v for k, v in schema[key].items()})
    root = _resolve(copy.deepcopy(schema), defs, (), 0, schema)
    root = _merge_root(root)
    out = _clean(root, 0)
    if out.get("type") != "object":
        return _empty_object(out.get("description"))
    out.setdefault("properties", {})
    if not isinstance(out["properties"], dict):
        out["properties"] = {}
    req = out.get("required")
    if isinstance(req, list):
        kept = [r for r in req if isinstance(r, str) and r in out["properties"]]
        if kept:
            out["required"] = list(dict.fromkeys(kept))
        else:
            out.pop("required", None)
    return out


def _empty_object(description: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": {}}
    if isinstance(description, str):
        out["description"] = description
    return out


def _pointer(root: Any, ref: str) -> Any:
    """Follow a local JSON pointer (`#/a/b`), or None."""
    node = root
    for part in ref.removeprefix("#").strip("/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _resolve(node: Any, defs: dict[str, Any], seen: tuple[str, ...], depth: int, root: Any) -> Any:
    """Inline local `$ref`s; a cycle or a dangling/remote ref becomes an unconstrained schema."""
    if depth > _MAX_DEPTH:
        return {}
    if isinstance(node, list):
        return [_resolve(v, defs, seen, depth + 1, root) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = (
            defs.get(ref) if ref in defs else (_pointer(root, ref) if ref.startswith("#") else None)
        )
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if target is None or ref in seen or ref == "#":
            base: dict[str, Any] = (
                {"description": siblings.get("description", "")}
                if siblings.get("description")
                else {}
            )
            return base
        inlined = _resolve(copy.deepcopy(target), defs, (*seen, ref), depth + 1, root)
        if isinstance(inlined, dict):
            return {**inlined, **_resolve(siblings, defs, seen, depth + 1, root)}
        return inlined
    return {k: _resolve(v, defs, seen, depth + 1, root) for k, v in node.items()}


def _merge_root(node: Any) -> Any:
    """Fold root-level allOf/anyOf/oneOf into one object schema (providers refuse them there)."""
    if not isinstance(node, dict):
        return node
    node = dict(node)
    for key in ("allOf", "anyOf", "oneOf"):
        branches = [b for b in node.pop(key, []) or [] if isinstance(b, dict)]
        if not branches:
            continue
        branches = [_merge_root(b) for b in branches]
        props = dict(node.get("properties") or {})
        for b in branches:
            props.update(b.get("properties") or {})
        node["properties"] = props
        reqs = [set(b.get("required") or []) for b in branches]
        if key == "allOf":
            merged = set(node.get("required") or []).union(*reqs)
        else:
            # Only what every alternative requires is required of the merged schema.
            merged = set(node.get("required") or []) | (set.intersection(*reqs) if reqs else set())
        if merged:
            node["required"] = sorted(merged)
        node.setdefault("type", "object")
    if "type" not in node and "properties" in node:
        node["type"] = "object"
    return node


def _clean(node: Any, depth: int) -> dict[str, Any]:
    """Keep supported keywords; fix the shapes providers reject."""
    if node is True or not isinstance(node, dict) or depth > _MAX_DEPTH:
        return {}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "const":
            out["enum"] = [value]
        elif key == "oneOf":
            out["anyOf"] = value
        elif key == "examples" and isinstance(value, list) and value and "description" in node:
            continue
        elif key in _KEEP:
            out[key] = value
    typ = out.get("type")
    if isinstance(typ, list):
        kept = [t for t in typ if t in _TYPES]
        out["type"] = kept if len(kept) > 1 else (kept[0] if kept else "string")
    elif typ is not None and typ not in _TYPES:
        out.pop("type")
    if isinstance(out.get("properties"), dict):
        out["properties"] = {str(k): _clean(v, depth + 1) for k, v in out["properties"].items()}
        if "type" not in out:
            out["type"] = "object"
    elif "properties" in out:
        out.pop("properties")
    if "required" in out and not isinstance(out["required"], list):
        out.pop("required")
    ap = out.get("additionalProperties")
    if isinstance(ap, dict):
        out["additionalProperties"] = _clean(ap, depth + 1)
    elif "additionalProperties" in out and not isinstance(ap, bool):
        out.pop("additionalProperties")
    items = out.get("items")
    if isinstance(items, list):
        # Tuple form: providers want one schema.
        out["items"] = _clean(items[0], depth + 1) if items else {}
    elif isinstance(items, dict):
        out["items"] = _clean(items, depth + 1)
    elif "items" in out:
        out["items"] = {}
    is_array = out.get("type") == "array" or (
        isinstance(out.get("type"), list) and "array" in out["type"]
    )
    if is_array and "items" not in out:
        out["items"] = {}
    if isinstance(out.get("anyOf"), list):
        branches = [_clean(b, depth + 1) for b in out["anyOf"] if isinstance(b, dict) or b is True]
        if branches:
            out["anyOf"] = branches
        else:
            out.pop("anyOf")
    elif "anyOf" in out:
        out.pop("anyOf")
    if "enum" in out and not (isinstance(out["enum"], list) and out["enum"]):
        out.pop("enum")
    return out


__all__ = ["MAX_NAME", "adapt_schema", "tool_name"]
