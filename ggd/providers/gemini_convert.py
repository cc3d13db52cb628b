"""OpenAI chat messages and tool specs -> Gemini `contents`, `systemInstruction` and declarations.

Gemini takes an OpenAPI 3.0 subset of JSON Schema for function parameters: `to_schema` keeps
what it accepts (types in its upper-case names, `nullable` for a type list with "null",
`anyOf` for `oneOf`, `$ref` inlined, `const` as a one-value enum, string enums only) and drops
the rest (`additionalProperties`, `$schema`, unknown formats), so any MCP server's tools load.
"""

from __future__ import annotations

import json
import mimetypes
from typing import Any

__all__ = ["KIND", "SKIP_SIGNATURE", "to_contents", "to_schema", "to_tools"]

KIND = "gemini"
# Google's documented placeholder for a function call that did not come from Gemini (another
# kind's history): Gemini 3 refuses a call of the current turn without a thought signature.
SKIP_SIGNATURE = "skip_thought_signature_validator"

_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
_FORMATS = {"STRING": {"enum", "date-time"}, "INTEGER": {"int32", "int64"}}
_FORMATS["NUMBER"] = {"float", "double"}
_COPY = ("description", "title", "minItems", "maxItems", "minLength", "maxLength", "pattern")
_COPY_NUM = ("minimum", "maximum", "minProperties", "maxProperties")
_MAX_DEPTH = 12


def to_schema(schema: Any, defs: dict[str, Any] | None = None, depth: int = 0) -> dict[str, Any]:
    """A JSON Schema as the schema subset Gemini's function declarations accept."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return {"type": "STRING"}
    if defs is None:
        defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1])
        merged = {**(target if isinstance(target, dict) else {}), **schema}
        merged.pop("$ref")
        return to_schema(merged, defs, depth + 1)
    for key in ("allOf",):
        subs = schema.get(key)
        if isinstance(subs, list) and subs:
            merged = {k: v for k, v in schema.items() if k != key}
            for sub in subs:
                if isinstance(sub, dict):
                    merged = {**sub, **merged}
            return to_schema(merged, defs, depth + 1)
    out: dict[str, Any] = {}
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list) and variants:
        real = [v for v in variants if not (isinstance(v, dict) and v.get("type") == "null")]
        if len(real) < len(variants):
            out["nullable"] = True
        if len(real) == 1:
            rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
            one = real[0] if isinstance(real[0], dict) else {}
            return {**to_schema({**rest, **one}, defs, depth + 1), **out}
        out["anyOf"] = [to_schema(v, defs, depth + 1) for v in real]
    kind = schema.get("type")
    if isinstance(kind, list):
        names = [t for t in kind if t != "null"]
        if len(names) < len(kind):
            out["nullable"] = True
        kind = names[0] if names else "string"
    if "const" in schema and kind is None:
        kind = "string"
    if kind is None and "properties" in schema:
        kind = "object"
    if isinstance(kind, str) and kind in _TYPES:
        out["type"] = _TYPES[kind]
    elif "anyOf" not in out:
        out["type"] = "STRING"
    for key in _COPY:
        if isinstance(schema.get(key), str | int) and not isinstance(schema.get(key), bool):
            out[key] = schema[key]
    for key in _COPY_NUM:
        if isinstance(schema.get(key), int | float) and not isinstance(schema.get(key), bool):
            out[key] = schema[key]
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS.get(out.get("type", ""), set()):
        out["format"] = fmt
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    if isinstance(values, list) and values and out.get("type") == "STRING":
        out["enum"] = [str(v) for v in values if v is not None]
    if out.get("type") == "ARRAY":
        out["items"] = to_schema(schema.get("items", {"type": "string"}), defs, depth + 1)
    props = schema.get("properties")
    if out.get("type") == "OBJECT" and isinstance(props, dict) and props:
        out["properties"] = {str(k): to_schema(v, defs, depth + 1) for k, v in props.items()}
        required = [r for r in schema.get("required") or [] if r in props]
        if required:
            out["required"] = required
    return out


def to_tools(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function-tool specs as one Gemini `functionDeclarations` tool."""
    decls = []
    for spec in specs:
        fn = spec.get("function") if spec.get("type") == "function" else spec
        if not isinstance(fn, dict) or not fn.get("name"):
            continue
        decl: dict[str, Any] = {"name": str(fn["name"])}
        if fn.get("description"):
            decl["description"] = str(fn["description"])
        params = fn.get("parameters")
        if isinstance(params, dict) and params.get("properties"):
            decl["parameters"] = to_schema(params)
        decls.append(decl)
    return [{"functionDeclarations": decls}] if decls else []


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _image(url: str) -> dict[str, Any]:
    if url.startswith("data:") and "," in url:
        head, data = url[5:].split(",", 1)
        return {"inlineData": {"mimeType": head.split(";", 1)[0] or "image/png", "data": data}}
    mime = mimetypes.guess_type(url)[0] or "image/png"
    return {"fileData": {"mimeType": mime, "fileUri": url}}


def _user_parts(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return [{"text": "" if content is None else str(content)}]
    out: list[dict[str, Any]] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image_url":
            image = part.get("image_url")
            out.append(_image(str(image.get("url") if isinstance(image, dict) else image)))
        elif part.get("type") == "text":
            out.append({"text": str(part.get("text", ""))})
    return out or [{"text": ""}]


def _model_parts(m: dict[str, Any]) -> list[dict[str, Any]]:
    replay = m.get("gg_replay")
    if isinstance(replay, dict) and replay.get("kind") == KIND and replay.get("parts"):
        return [p for p in replay["parts"] if isinstance(p, dict)]
    parts: list[dict[str, Any]] = []
    text = _text_of(m.get("content"))
    if text:
        parts.append({"text": text})
    for i, call in enumerate(m.get("tool_calls") or []):
        fn = call.get("function") or {}
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except ValueError:
            args = {}
        part: dict[str, Any] = {"functionCall": {"name": str(fn.get("name", "")), "args": args}}
        if i == 0:
            part["thoughtSignature"] = SKIP_SIGNATURE
        parts.append(part)
    return parts or [{"text": ""}]


def to_contents(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Chat messages -> (system instruction text, Gemini contents).

    Tool results answer by function name (gg's call ids are its own), all results of one
    answer in one user turn; turns of the same role in a row are merged, as Gemini wants.
    """
    system: list[str] = []
    names: dict[str, str] = {}
    ids: set[str] = set()
    contents: list[dict[str, Any]] = []

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": list(parts)})

    for m in messages:
        role = m.get("role")
        if role in ("system", "developer") and not contents:
            system.append(_text_of(m.get("content")))
        elif role in ("system", "developer"):
            # Gemini has no system turn: a later one is user text, where it was said.
            add("user", [{"text": _text_of(m.get("content"))}])
        elif role == "assistant":
            for call in m.get("tool_calls") or []:
                names[str(call.get("id", ""))] = str((call.get("function") or {}).get("name", ""))
            parts = _model_parts(m)
            # Calls that came with Gemini's own id are answered with it (else by name alone).
            ids.update(
                str(p["functionCall"]["id"]) for p in parts if "id" in p.get("functionCall", {})
            )
            add("model", parts)
        elif role == "tool":
            call_id = str(m.get("tool_call_id", ""))
            response: dict[str, Any] = {"name": names.get(call_id, "")}
            if call_id in ids:
                response = {"id": call_id, **response}
            response["response"] = {"result": _text_of(m.get("content"))}
            add("user", [{"functionResponse": response}])
            images = [p for p in m.get("content") or [] if isinstance(p, dict)]
            if any(p.get("type") == "image_url" for p in images):
                add("user", [x for x in _user_parts(images) if "text" not in x])
        else:
            add("user", _user_parts(m.get("content")))
    return "\n\n".join(s for s in system if s), contents
