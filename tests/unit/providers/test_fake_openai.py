"""The scripted fake server itself: the contract other teams' tests rely on."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from ggd.providers.scripted import ScriptError, load_script
from tests.fakes.fake_openai import FakeModel

ROOT = Path(__file__).resolve().parents[3]


def chat(fm: FakeModel, stream: bool = True, **extra: Any) -> httpx.Response:
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "hello there"}],
        "stream": stream,
        **extra,
    }
    return httpx.post(f"{fm.base_url}/chat/completions", json=body, timeout=5)


def sse_payloads(text: str) -> list[str]:
    return [line[6:] for line in text.splitlines() if line.startswith("data: ")]


def test_stream_shape_fragments_usage_and_done(fake: Any) -> None:
    fm = fake(
        [
            {
                "text": "hello",
                "chunkSize": 2,
                "usage": True,
                "toolCalls": [{"name": "read", "arguments": {"path": "a"}}],
            }
        ]
    )
    r = chat(fm, stream_options={"include_usage": True})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    payloads = sse_payloads(r.text)
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    texts = [c["choices"][0]["delta"].get("content") for c in chunks if c["choices"]]
    assert [t for t in texts if t] == ["he", "ll", "o"]
    frags = [
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in chunks
        if c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    ]
    assert frags[0]["id"] and frags[0]["function"]["name"] == "read"
    arg_parts = [f["function"]["arguments"] for f in frags[1:]]
    assert len(arg_parts) >= 2 and all("id" not in f for f in frags[1:])
    assert json.loads("".join(arg_parts)) == {"path": "a"}
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "tool_calls"


def test_usage_only_when_the_client_asks(fake: Any) -> None:
    fm = fake([{"text": "x", "usage": {"prompt": 1, "completion": 1}}])
    assert "usage" not in chat(fm).text


def test_non_streaming_json(fake: Any) -> None:
    fm = fake([{"text": "plain", "usage": {"prompt": 2, "completion": 1}}])
    data = chat(fm, stream=False).json()
    assert data["choices"][0]["message"]["content"] == "plain"
    assert data["usage"] == {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}


def test_exhausted_script_answers_500_with_a_clear_body(fake: Any) -> None:
    fm = fake([{"text": "only one"}])
    assert chat(fm).status_code == 200
    r = chat(fm)
    assert r.status_code == 500 and "script exhausted" in r.text


def test_expect_mismatch_is_500_and_recorded(fake: Any) -> None:
    fm = fake(
        [
            {"expect": {"lastUser": "goodbye"}, "text": "x"},
            {"expect": {"lastUser": "hello"}, "text": "y"},
        ]
    )
    r = chat(fm)
    assert r.status_code == 500 and "lastUser" in r.text
    assert len(fm.mismatches) == 1 and "goodbye" in fm.mismatches[0]
    assert chat(fm).status_code == 200 and len(fm.mismatches) == 1


def test_models_and_request_log_endpoints(fake: Any) -> None:
    fm = fake([{"text": "a"}], models=["m-one", "m-two"])
    chat(fm)
    models = httpx.get(f"{fm.base_url}/models", timeout=5).json()
    assert [m["id"] for m in models["data"]] == ["m-one", "m-two"]
    log = httpx.get(fm.base_url.replace("/v1", "/_fake/requests"), timeout=5).json()
    assert log["requests"][0]["messages"][0]["content"] == "hello there" and log["remaining"] == 0
    assert fm.wait_for_requests(1, timeout=1)[0]["model"] == "m"
    with pytest.raises(TimeoutError):
        fm.wait_for_requests(2, timeout=0.05)


def test_status_step_sends_headers_and_body(fake: Any) -> None:
    fm = fake(
        [
            {
                "status": 429,
                "headers": {"Retry-After": "7"},
                "errorBody": {"error": {"message": "slow down"}},
            }
        ]
    )
    r = chat(fm)
    assert r.status_code == 429 and r.headers["retry-after"] == "7" and "slow down" in r.text


def test_torn_stream_breaks_the_http_body(fake: Any) -> None:
    fm = fake([{"text": "abcdef", "chunkSize": 1, "torn": True}])
    with pytest.raises(httpx.RemoteProtocolError):
        chat(fm)


def test_stop_is_not_blocked_by_a_hanging_stream() -> None:
    fm = FakeModel([{"text": "never ends", "hang": True}]).start()
    got = threading.Event()
    errors: list[BaseException] = []

    def client() -> None:
        try:
            with httpx.stream(
                "POST",
                f"{fm.base_url}/chat/completions",
                json={"stream": True, "messages": []},
                timeout=10,
            ) as r:
                for _ in r.iter_bytes():
                    got.set()
        except httpx.HTTPError as exc:
            errors.append(exc)

    t = threading.Thread(target=client, daemon=True)
    t.start()
    assert got.wait(5)
    start = time.monotonic()
    fm.stop()
    assert time.monotonic() - start < 2
    t.join(5)
    assert not t.is_alive() and errors  # the unfinished stream surfaced as an error


def test_repeat_big_scripts_and_zero_latency(fake: Any) -> None:
    fm = fake([{"text": "t", "delayMs": 1000, "chunkSize": 1, "repeat": 200}], zero_latency=True)
    start = time.monotonic()
    for _ in range(5):
        assert chat(fm).status_code == 200
    assert time.monotonic() - start < 4.0  # delays ignored (5 x 1 s otherwise)
    assert fm.remaining == 195


def test_a_paced_stream_delivers_every_frame_in_order(fake: Any) -> None:
    text = "paced at a fixed rate"
    fm = fake([{"text": text, "chunkSize": 1, "delayMs": 0.2, "paced": True}])
    payloads = sse_payloads(chat(fm).text)
    assert payloads[-1] == "[DONE]"
    deltas = [json.loads(p)["choices"] for p in payloads[:-1]]
    content = "".join(c[0]["delta"].get("content") or "" for c in deltas if c)
    assert content == text


def test_scripts_load_from_files_and_reject_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"steps": [{"text": "a", "repeat": 2}, {"text": "b"}]}))
    assert [s["text"] for s in load_script(str(path))] == ["a", "a", "b"]
    with pytest.raises(ScriptError, match="toolcalls"):
        load_script([{"toolcalls": []}])


def test_example_scripts_are_valid() -> None:
    scripts = sorted((ROOT / "tests" / "data" / "scripts").glob("*.json"))
    assert scripts
    for path in scripts:
        assert load_script(path), path.name


def test_runs_as_a_subprocess_and_prints_its_base_url(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "from a subprocess"}]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_openai", "--script", str(script), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        body = {"model": "m", "messages": [], "stream": False}
        r = httpx.post(f"{base_url}/chat/completions", json=body, timeout=5)
        assert r.json()["choices"][0]["message"]["content"] == "from a subprocess"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0 and '"requests": 1' in err
