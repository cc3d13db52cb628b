"""What the openai-responses and gemini kinds put on the wire, and how config selects them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ggd.providers import ChatRequest, build_registry
from ggd.providers.gemini import GeminiProvider
from ggd.providers.gemini_convert import to_contents, to_schema, to_tools
from ggd.providers.openai_responses import ResponsesProvider, to_input
from ggd.tools.builtin import builtin_tools
from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_responses import FakeResponses
from tests.unit.providers.helpers import collect, failure

# The keys Gemini's function-declaration Schema accepts (OpenAPI 3.0 subset).
GEMINI_SCHEMA_KEYS = {
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
    "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
    "pattern", "anyOf", "items", "minimum", "maximum",
}  # fmt: skip


def _keys(schema: dict[str, Any], seen: set[str]) -> set[str]:
    seen |= set(schema)
    for sub in (schema.get("properties") or {}).values():
        _keys(sub, seen)
    for sub in schema.get("anyOf") or []:
        _keys(sub, seen)
    if isinstance(schema.get("items"), dict):
        _keys(schema["items"], seen)
    return seen


async def test_responses_body_fields(options: Any) -> None:
    with FakeResponses([{"text": "ok"}]) as fr:
        p = ResponsesProvider(fr.base_url, "sk-x", name="r", options=options)
        req = ChatRequest(
            "gpt-5",
            [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
            [t.spec() for t in builtin_tools()],
            max_tokens=500,
            session_id="sess-42",
            reasoning_effort="high",
        )
        await collect(p, req)
        await p.aclose()
        body, headers, raw = fr.requests[0], fr.request_headers[0], fr.raw_requests[0]
    assert headers["authorization"] == "Bearer sk-x"
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert body["prompt_cache_key"] == "sess-42" and body["instructions"] == "be brief"
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["max_output_tokens"] == 500 and body["stream"] is True
    assert all(t["type"] == "function" and t["strict"] is False for t in body["tools"])
    assert {t["name"] for t in body["tools"]} == {t.name for t in builtin_tools()}
    assert list(body)[-1] == "input", "the growing part of the body must come last"
    assert raw == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def test_responses_input_from_a_tool_loop() -> None:
    replay = {
        "kind": "openai-responses",
        "items": [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "E"}],
    }
    other = {"kind": "anthropic", "blocks": [{"type": "thinking"}]}
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "looking", "gg_replay": replay, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path":"a"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "assistant", "content": "done", "gg_replay": other},
    ]  # fmt: skip
    instructions, items = to_input(msgs)
    assert instructions == ""
    assert [i.get("type", i.get("role")) for i in items] == [
        "user", "reasoning", "assistant", "function_call", "function_call_output", "assistant",
    ]  # fmt: skip
    assert items[3] == {
        "type": "function_call",
        "call_id": "c1",
        "name": "read",
        "arguments": '{"path":"a"}',
    }
    assert items[4] == {"type": "function_call_output", "call_id": "c1", "output": "A"}


async def test_gemini_request_shape(options: Any) -> None:
    with FakeGemini([{"text": "ok"}]) as fg:
        p = GeminiProvider(fg.base_url, "g-key", name="g", options=options)
        req = ChatRequest(
            "gemini-2.5-flash",
            [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
            [t.spec() for t in builtin_tools()],
            max_tokens=100,
            reasoning_effort="low",
        )
        await collect(p, req)
        await p.aclose()
        body, headers = fg.requests[0], fg.request_headers[0]
    assert headers["x-goog-api-key"] == "g-key" and "authorization" not in headers
    assert body["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    assert body["generationConfig"] == {
        "maxOutputTokens": 100,
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 1024},
    }
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert list(body)[-1] == "contents"


def test_gemini_declarations_of_gg_real_tools_use_only_accepted_keys() -> None:
    specs = [t.spec() for t in builtin_tools()]
    decls = to_tools(specs)[0]["functionDeclarations"]
    assert [d["name"] for d in decls] == [t.name for t in builtin_tools()]
    for d in decls:
        if "parameters" in d:
            assert _keys(d["parameters"], set()) <= GEMINI_SCHEMA_KEYS, d["name"]
            assert d["parameters"]["type"] == "OBJECT"


def test_gemini_schema_conversion_of_json_schema_features() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "$defs": {"Mode": {"type": "string", "enum": ["a", "b"]}},
        "properties": {
            "mode": {"$ref": "#/$defs/Mode"},
            "n": {"type": ["integer", "null"], "format": "int64"},
            "kind": {"const": "fixed"},
            "pick": {"oneOf": [{"type": "string"}, {"type": "number"}]},
            "maybe": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
            "free": {"type": "object", "additionalProperties": True},
            "list": {"type": "array", "items": {"type": "string", "format": "uri"}},
        },
        "required": ["mode", "ghost"],
        "additionalProperties": False,
    }
    out = to_schema(schema)
    p = out["properties"]
    assert p["mode"] == {"type": "STRING", "enum": ["a", "b"]}
    assert p["n"] == {"type": "INTEGER", "nullable": True, "format": "int64"}
    assert p["kind"] == {"type": "STRING", "enum": ["fixed"]}
    assert p["pick"] == {"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}]}
    assert p["maybe"] == {"type": "BOOLEAN", "nullable": True}
    assert p["free"] == {"type": "OBJECT"}
    assert p["list"] == {"type": "ARRAY", "items": {"type": "STRING"}}
    assert out["required"] == ["mode"] and "additionalProperties" not in out


def test_gemini_contents_from_a_tool_loop() -> None:
    parts = [
        {"text": "t", "thought": True, "thoughtSignature": "S"},
        {"functionCall": {"name": "read", "args": {"path": "a"}}},
    ]
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "gg_replay": {"kind": "gemini", "parts": parts},
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path":"a"}'}},
                        {"id": "c2", "type": "function", "function": {"name": "list", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "content": "B"},
        {"role": "user", "content": "and now?"},
        {"role": "assistant", "content": "x", "tool_calls": [
            {"id": "c3", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
    ]  # fmt: skip
    _, contents = to_contents(msgs)
    assert [c["role"] for c in contents] == ["user", "model", "user", "model"]
    assert contents[1]["parts"] == parts  # the model's own parts, signatures included
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "read", "response": {"result": "A"}}},
        {"functionResponse": {"name": "list", "response": {"result": "B"}}},
        {"text": "and now?"},
    ]
    # A call from another kind's history gets Google's documented placeholder signature.
    assert contents[3]["parts"][1]["thoughtSignature"] == "skip_thought_signature_validator"


async def test_gemini_drops_thinking_config_once_refused(options: Any) -> None:
    body = {"error": {"code": 400, "message": "Thinking is not supported by this model."}}
    with FakeGemini([{"status": 400, "errorBody": body}, {"text": "plain"}]) as fg:
        p = GeminiProvider(fg.base_url, "k", name="g", options=options)
        events = await collect(
            p, ChatRequest("gemini-2.0-flash", [{"role": "user", "content": "hi"}])
        )
        await p.aclose()
        assert "thinkingConfig" in fg.requests[0]["generationConfig"]
        assert "thinkingConfig" not in fg.requests[1]["generationConfig"]
    assert events[-1].text == "plain"  # type: ignore[union-attr]


def test_registry_builds_each_kind() -> None:
    config = {
        "model": "g:gemini-2.5-pro",
        "providers": {
            "r": {"kind": "openai-responses", "apiKey": "sk"},
            "g": {"kind": "gemini", "apiKeyEnv": "MY_KEY"},
        },
    }
    reg = build_registry(config, {"MY_KEY": "gk"})
    r, g = reg.providers["r"], reg.providers["g"]
    assert isinstance(r, ResponsesProvider) and r.base_url == "https://api.openai.com/v1"
    assert isinstance(g, GeminiProvider) and g.base_url.endswith("/v1beta")
    assert g.auth_headers() == {"x-goog-api-key": "gk"}


@pytest.mark.parametrize(
    ("env", "key"),
    [({"GEMINI_API_KEY": "a", "GOOGLE_API_KEY": "b"}, "a"), ({"GOOGLE_API_KEY": "b"}, "b")],
)
def test_gemini_well_known_name(env: dict[str, str], key: str) -> None:
    reg = build_registry({"model": "gemini:gemini-2.5-flash"}, env)
    provider, model = reg.get()
    assert isinstance(provider, GeminiProvider) and model == "gemini-2.5-flash"
    assert provider.auth_headers() == {"x-goog-api-key": key}


def test_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        build_registry({"providers": {"x": {"kind": "gemeni"}}}, {})


def test_chat_completions_body_grows_only_at_its_end() -> None:
    from ggd.providers import OpenAICompatProvider

    p = OpenAICompatProvider("http://127.0.0.1:9/v1", "k")
    tools = [t.spec() for t in builtin_tools()]
    body = p.build_body(ChatRequest("m", [{"role": "user", "content": "hi"}], tools))
    assert list(body)[-1] == "messages" and list(body).index("tools") < len(body) - 1


async def test_responses_drop_reasoning_fields_a_model_refuses(options: Any) -> None:
    enc = {"error": {"message": "Encrypted content is not supported with this model."}}
    eff = {"error": {"message": "Unsupported parameter: 'reasoning.effort' is not supported."}}
    steps = [{"status": 400, "errorBody": enc}, {"status": 400, "errorBody": eff}, {"text": "ok"}]
    with FakeResponses([*steps, {"text": "again"}]) as fr:
        p = ResponsesProvider(fr.base_url, "k", name="r", options=options)
        req = ChatRequest("gpt-4.1", [{"role": "user", "content": "hi"}], reasoning_effort="low")
        assert (await collect(p, req))[-1].text == "ok"  # type: ignore[union-attr]
        await collect(p, req)  # remembered: no more 400s
        await p.aclose()
        sent = fr.requests
    assert "include" in sent[0] and "reasoning" in sent[0]
    assert "include" not in sent[1] and "reasoning" in sent[1]
    assert "include" not in sent[2] and "reasoning" not in sent[2]
    assert len(sent) == 4 and "reasoning" not in sent[3]


def test_the_docs_examples_build() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "providers.md").read_text()
    for kind, cls in (("openai-responses", ResponsesProvider), ("gemini", GeminiProvider)):
        section = text.split(f'kind "{kind}"', 1)[1]
        example = json.loads(section.split("```json", 1)[1].split("```", 1)[0])
        env = {"OPENAI_API_KEY": "sk", "GEMINI_API_KEY": "gk"}
        provider, model = build_registry(example, env).get()
        assert isinstance(provider, cls) and model == example["model"].split(":", 1)[1]


async def test_gemini_invalid_key_is_an_auth_error(options: Any) -> None:
    body = {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [{"reason": "API_KEY_INVALID", "domain": "googleapis.com"}],
        }
    }
    with FakeGemini([{"status": 400, "errorBody": body}]) as fg:
        p = GeminiProvider(fg.base_url, "wrong", name="g", options=options)
        err, _ = await failure(p, ChatRequest("m", [{"role": "user", "content": "hi"}]))
        await p.aclose()
    assert err.code == "auth" and "GEMINI_API_KEY" in err.message and "wrong" not in err.message


def test_the_openai_name_can_take_the_responses_kind() -> None:
    reg = build_registry(
        {"model": "openai:gpt-5", "providers": {"openai": {"kind": "openai-responses"}}},
        {"OPENAI_API_KEY": "sk"},
    )
    provider, _ = reg.get()
    assert isinstance(provider, ResponsesProvider)
    assert provider.base_url == "https://api.openai.com/v1"
    assert provider.auth_headers() == {"Authorization": "Bearer sk"}


async def test_a_refusal_is_remembered_per_model(options: Any) -> None:
    enc = {"error": {"message": "Encrypted content is not supported with this model."}}
    with FakeResponses([{"status": 400, "errorBody": enc}, {"text": "a"}, {"text": "b"}]) as fr:
        p = ResponsesProvider(fr.base_url, "k", name="r", options=options)
        await collect(p, ChatRequest("gpt-4.1", [{"role": "user", "content": "hi"}]))
        await collect(p, ChatRequest("gpt-5", [{"role": "user", "content": "hi"}]))
        await p.aclose()
        sent = fr.requests
    assert "include" not in sent[1]
    # The reasoning model keeps its encrypted reasoning, and shows summaries without an effort.
    assert sent[2]["include"] == ["reasoning.encrypted_content"]
    assert sent[2]["reasoning"] == {"summary": "auto"}


def test_gemini_answers_a_call_with_its_own_id() -> None:
    parts = [{"functionCall": {"id": "g-7", "name": "read", "args": {}}, "thoughtSignature": "S"}]
    call = {"id": "g-7", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    msgs = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "gg_replay": {"kind": "gemini", "parts": parts}, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "g-7", "content": "A"},
    ]  # fmt: skip
    _, contents = to_contents(msgs)
    assert contents[2]["parts"] == [
        {"functionResponse": {"id": "g-7", "name": "read", "response": {"result": "A"}}}
    ]


def test_a_later_system_message_stays_in_place() -> None:
    msgs = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "go"},
        {"role": "system", "content": "note"},
    ]
    instructions, items = to_input(msgs)
    assert instructions == "rules" and items[-1] == {"role": "system", "content": "note"}
    system, contents = to_contents(msgs)
    assert system == "rules" and contents == [
        {"role": "user", "parts": [{"text": "go"}, {"text": "note"}]}
    ]
