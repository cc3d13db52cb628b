"""Each native fake's stream parsed by that API's official Python SDK, so a fake cannot drift.

The SDKs are test dependencies only (the runtime path is gg's own httpx client).
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_responses import FakeResponses

openai = pytest.importorskip("openai")
genai = pytest.importorskip("google.genai")

STEP: dict[str, Any] = {
    "thinking": "check both files",
    "text": "Reading them.",
    "toolCalls": [
        {"name": "read", "arguments": {"path": "a.py"}},
        {"name": "grep", "arguments": {"pattern": "TODO", "literal": True}},
    ],
    "chunkSize": 3,
}


def test_openai_sdk_reads_the_responses_stream() -> None:
    with FakeResponses([STEP]) as fr:
        client = openai.OpenAI(base_url=fr.base_url, api_key="sk-test", max_retries=0)
        with client.responses.stream(
            model="fake-model",
            input="fix it",
            store=False,
            include=["reasoning.encrypted_content"],
        ) as stream:
            kinds = [event.type for event in stream]
            final = stream.get_final_response()
        client.close()
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in kinds
    assert "response.reasoning_summary_text.delta" in kinds
    reasoning, message, *calls = final.output
    assert reasoning.type == "reasoning" and reasoning.encrypted_content in fr.issued
    assert reasoning.summary[0].text == "check both files"
    assert message.type == "message" and final.output_text == "Reading them."
    assert [(c.type, c.name) for c in calls] == [
        ("function_call", "read"),
        ("function_call", "grep"),
    ]
    assert calls[0].arguments == '{"path": "a.py"}' and calls[0].call_id
    assert final.usage is not None and final.usage.input_tokens > 0
    assert final.usage.output_tokens_details.reasoning_tokens == len("check both files") // 4


def test_google_genai_sdk_reads_the_gemini_stream() -> None:
    from google.genai import types

    with FakeGemini(
        [STEP, {"text": "again", "usage": {"prompt": 2000, "completion": 3, "cached": 1920}}]
    ) as fg:
        root = fg.base_url.removesuffix("/v1beta")
        client = genai.Client(
            api_key="g-test", http_options=types.HttpOptions(base_url=root, api_version="v1beta")
        )
        config = types.GenerateContentConfig(
            thinking_config=types.ThinkingConfig(include_thoughts=True)
        )
        chunks = list(
            client.models.generate_content_stream(
                model="fake-model", contents="fix it", config=config
            )
        )
        second = list(client.models.generate_content_stream(model="fake-model", contents="again"))
        assert fg.request_headers[0]["x-goog-api-key"] == "g-test"
    parts = [p for c in chunks for p in c.candidates[0].content.parts]
    thoughts = "".join(p.text for p in parts if p.thought)
    assert thoughts == "check both files"
    assert "".join(p.text or "" for p in parts if not p.thought) == "Reading them."
    calls = [p for p in parts if p.function_call]
    assert [(p.function_call.name, p.function_call.args) for p in calls] == [
        ("read", {"path": "a.py"}),
        ("grep", {"pattern": "TODO", "literal": True}),
    ]
    # The SDK decodes the signature (bytes); it is the one the fake issued.
    assert base64.b64encode(calls[0].thought_signature).decode() in fg.issued
    last = chunks[-1]
    assert last.candidates[0].finish_reason == types.FinishReason.STOP
    assert last.usage_metadata.thoughts_token_count == len("check both files") // 4
    assert second[-1].usage_metadata.cached_content_token_count == 1920
