"""Request parameters through a real ggd: the fake server receives exactly the configured fields,
and the session records them with each request."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.fake_openai import FakeModel

from .daemon import Daemon, daemon_env
from .runs_helpers import finish, new_session, start

SCRIPT = [
    {"toolCalls": [{"name": "read", "arguments": {"path": "notes.txt"}}], "usage": True},
    {"text": "The notes say hello.", "usage": True},
]
EXPECTED = {
    "temperature": 0.0,  # modelParams.fake-model wins over the provider's 0.7
    "top_p": 0.9,
    "max_tokens": 512,
    "seed": 42,
    "tool_choice": "auto",
    "cache_prompt": True,  # extraBody of the provider
    "x_route": "eu",  # extraBody of the model, merged
}


async def test_configured_parameters_reach_the_server_and_the_session(
    gg_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("hello\n")
    with FakeModel(SCRIPT) as fm:
        gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
        config = {
            "model": "fake:fake-model",
            "providers": {
                "fake": {
                    "baseUrl": fm.base_url,
                    "apiKey": "test-key",
                    "temperature": 0.7,
                    "topP": 0.9,
                    "maxTokens": 512,
                    "seed": 42,
                    "toolChoice": "auto",
                    "extraBody": {"cache_prompt": True},
                    "modelParams": {
                        "fake-model": {"temperature": 0, "extraBody": {"x_route": "eu"}}
                    },
                }
            },
        }
        (gg_home / "config.json").write_text(json.dumps(config))
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
        try:
            c = await d.connect("unix")
            try:
                sid = await new_session(c)
                end = await finish(c, await start(c, sid, "what do the notes say?"), timeout=60)
            finally:
                await c.close()
        finally:
            d.stop()
        assert end["type"] == "run_completed", end
        assert len(fm.requests) == 2
        own = {"model", "messages", "tools", "stream", "stream_options"}
        for body in fm.requests:
            assert {k: v for k, v in body.items() if k not in own} == EXPECTED
    session = next((gg_home / "sessions").glob("s_*.jsonl"))
    entries = [json.loads(x) for x in session.read_text().splitlines()[1:]]
    usage = [e["data"] for e in entries if e["type"] == "usage"]
    assert len(usage) == 2
    assert all(u["request"] == EXPECTED for u in usage), usage
