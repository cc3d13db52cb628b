"""What gg sends, checked against each API's official SDK types (the documented contract).

google-genai's request models forbid unknown fields; the openai SDK's request types are
TypedDicts, so besides validating, every key sent must be one the type declares.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest

from ggd.providers import ChatRequest
from ggd.providers.gemini import GeminiProvider
from ggd.providers.openai_responses import ResponsesProvider
from ggd.tools.builtin import builtin_tools

pytest.importorskip("openai")
pytest.importorskip("google.genai")

SPECS = [t.spec() for t in builtin_tools()]
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def loop_messages(replay: dict[str, Any]) -> list[dict[str, Any]]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path":"a"}'},
    }
    return [
        {"role": "system", "content": "You are gg."},
        {"role": "user", "content": [{"type": "text", "text": "what is this?"}, IMAGE]},
        {"role": "assistant", "content": "Reading.", "gg_replay": replay, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "user", "content": "go on"},
    ]


def request(replay: dict[str, Any]) -> ChatRequest:
    return ChatRequest(
        "m", loop_messages(replay), SPECS, max_tokens=99, session_id="s", reasoning_effort="low"
    )


def declared(td: Any) -> set[str]:
    return set(typing.get_type_hints(td))


def test_responses_body_matches_the_openai_sdk_types() -> None:
    from openai.types.responses import (
        EasyInputMessageParam,
        FunctionToolParam,
        ResponseFunctionToolCallParam,
        ResponseInputImageParam,
        ResponseInputTextParam,
        ResponseReasoningItemParam,
    )
    from openai.types.responses.response_create_params import ResponseCreateParamsStreaming
    from openai.types.responses.response_input_item_param import FunctionCallOutput
    from pydantic import TypeAdapter

    item = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "E"}
    body = ResponsesProvider("http://127.0.0.1:9/v1", "k").build_body(
        request({"kind": "openai-responses", "items": [item]})
    )
    assert set(body) <= declared(ResponseCreateParamsStreaming)

    def check(td: Any, value: dict[str, Any]) -> None:
        TypeAdapter(td).validate_python(value)
        assert set(value) <= declared(td), (td.__name__, set(value) - declared(td))

    for tool in body["tools"]:
        check(FunctionToolParam, tool)
    shapes = {
        "reasoning": ResponseReasoningItemParam,
        "function_call": ResponseFunctionToolCallParam,
        "function_call_output": FunctionCallOutput,
    }
    kinds = []
    for value in body["input"]:
        td = shapes.get(value.get("type", ""), EasyInputMessageParam)
        kinds.append(td.__name__)
        check(td, value)
        for part in value.get("content") if isinstance(value.get("content"), list) else []:
            check(
                ResponseInputImageParam
                if part["type"] == "input_image"
                else ResponseInputTextParam,
                part,
            )
    assert kinds == [
        "EasyInputMessageParam",
        "ResponseReasoningItemParam",
        "EasyInputMessageParam",
        "ResponseFunctionToolCallParam",
        "FunctionCallOutput",
        "EasyInputMessageParam",
    ]


def test_gemini_body_matches_the_google_genai_models() -> None:
    from google.genai import types

    parts = [
        {"text": "Reading.", "thoughtSignature": "U0lH"},
        {"functionCall": {"name": "read", "args": {"path": "a"}}},
    ]
    provider = GeminiProvider("http://127.0.0.1:9/v1beta", "k")
    provider.params = provider.params.__class__(tool_choice="required", temperature=0.2)
    body = provider.build_body(request({"kind": "gemini", "parts": parts}))
    assert list(body) == [
        "systemInstruction",
        "tools",
        "toolConfig",
        "generationConfig",
        "contents",
    ]
    types.Content.model_validate(body["systemInstruction"])
    for tool in body["tools"]:
        types.Tool.model_validate(tool)
    types.ToolConfig.model_validate(body["toolConfig"])
    types.GenerationConfig.model_validate(body["generationConfig"])
    contents = [types.Content.model_validate(c) for c in body["contents"]]
    assert [c.role for c in contents] == ["user", "model", "user"]
    assert contents[0].parts[1].inline_data.mime_type == "image/png"
    assert contents[2].parts[0].function_response.name == "read"
