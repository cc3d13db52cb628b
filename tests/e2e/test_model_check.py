"""gg/model.check: gg/run.start's model check alone, against a real ggd and an endpoint that
lists its models (GET /v1/models on the fake OpenAI server)."""

from __future__ import annotations

import pytest

from .rpc_client import RpcError


async def test_model_check_answers_without_a_run(fake_daemon) -> None:
    d, fm = fake_daemon([])
    c = await d.connect("ws")
    try:
        assert await c.request("gg/model.check", {"model": "openai:fake-model"}) == {"ok": True}
        assert await c.request("gg/model.check", {"model": "fake-model"}) == {"ok": True}
        typo = await c.request("gg/model.check", {"model": "openai:typo"})
        assert typo["ok"] is False
        assert "model 'typo' is not offered by openai" in typo["problem"]
        assert "fake-model" in typo["problem"]
        other = await c.request("gg/model.check", {"model": "nosuch:thing"})
        assert other["ok"] is False and "unknown provider 'nosuch'" in other["problem"]
        with pytest.raises(RpcError) as bad:
            await c.request("gg/model.check", {"model": ""})
        assert bad.value.code == -32602
        assert fm.requests == []  # a check asks the model nothing
        sessions = await c.request("gg/session.list", {})
        assert sessions["sessions"] == []  # and creates nothing
    finally:
        await c.close()
