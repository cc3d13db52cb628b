"""A scripted Anthropic Messages API server on 127.0.0.1, with the API's prompt cache emulated.

    with FakeAnthropic([{"text": "hi"}, {"toolCalls": [{"name": "read", ...}]}]) as fa:
        provider = AnthropicProvider(fa.base_url, "k", name="fake")   # base_url ends in /v1
        ...
        fa.wait_for_requests(2, timeout=5); fa.cache_uses[1].cache_read_input_tokens

Or, for a daemon subprocess: `python -m tests.fakes.fake_anthropic --script FILE [--port 0]`
prints the base URL on its first stdout line and serves until SIGTERM/SIGINT.

`POST /v1/messages` answers one script step per request (anthropic_script.py: the step format
of ggd/providers/scripted.py in the Messages API's terms), after the checks the real API makes:
a key (`x-api-key`, or `Authorization: Bearer` as the SDK sends it), an `anthropic-version`
header, and a body the API would take (validate()), else 401 / 400 in the API's error shape,
which use no step. `GET /v1/models` lists the models in the API's shape; `GET /_fake/requests`
is FakeModel's snapshot plus `rejections` (the 400s above) and `cacheUses` (how each answered
request's input divided up).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ggd.providers.scripted import Reply
from tests.fakes.anthropic_cache import CacheUse, PromptCache
from tests.fakes.anthropic_script import api_error, plan, validate
from tests.fakes.fake_openai import FakeModel, main

__all__ = ["FakeAnthropic"]


class FakeAnthropic(FakeModel):
    """FakeModel's lifecycle and bookkeeping, serving the Messages API."""

    def __init__(
        self,
        script: list[dict[str, Any]] | dict[str, Any] | str | Path,
        *,
        min_cache_tokens: int = 1024,
        adaptive_only: frozenset[str] = frozenset(),
        **kw: Any,
    ) -> None:
        super().__init__(script, **kw)
        if self.models == ["fake-model"]:
            self.models = ["claude-fake"]
        self.cache = PromptCache(min_tokens=min_cache_tokens)
        self.cache_uses: list[CacheUse] = []  # per answered request, in order
        self.rejections: list[str] = []  # 400s the real API would have answered too
        # Models that, like the newest ones, take thinking only as {"type": "adaptive"}.
        self.adaptive_only = adaptive_only

    def accepts(self, path: str) -> bool:
        """The Messages endpoint."""
        return path == "/v1/messages"

    def model_listing(self) -> dict[str, Any]:
        """GET /v1/models as the API pages it."""
        data = [
            {"type": "model", "id": m, "display_name": m, "created_at": "2026-01-01T00:00:00Z"}
            for m in self.models
        ]
        first, last = (data[0]["id"], data[-1]["id"]) if data else (None, None)
        return {"data": data, "has_more": False, "first_id": first, "last_id": last}

    def _next(
        self, body: dict[str, Any], headers: dict[str, str], raw: bytes = b"", path: str = ""
    ) -> Reply:
        bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not headers.get("x-api-key") and not bearer:  # the SDK sends its key as a Bearer
            return api_error(401, "x-api-key header is required")
        if not headers.get("anthropic-version"):
            return api_error(400, "anthropic-version: header is required")
        problem = validate(body, adaptive_only=body.get("model") in self.adaptive_only)
        if problem is None:
            return super()._next(body, headers, raw, path)
        with self._cond:
            self.rejections.append(problem)
            self.requests.append(body)
            self.raw_requests.append(raw)
            self.request_headers.append(headers)
            self._cond.notify_all()
        return api_error(400, problem)

    def plan(self, step: dict[str, Any], body: dict[str, Any], seq: int, path: str) -> Reply:
        """The step's answer, its input accounted by the emulated cache."""
        use = self.cache.account(body)
        with self._cond:
            self.cache_uses.append(use)
        return plan(step, body, seq=seq, cache=use)

    def _snapshot(self) -> dict[str, Any]:
        snap = super()._snapshot()
        with self._cond:
            snap["rejections"] = list(self.rejections)
            snap["cacheUses"] = [vars(u) for u in self.cache_uses]
        return snap


if __name__ == "__main__":
    sys.exit(main(fake_class=FakeAnthropic))
