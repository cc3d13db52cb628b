"""The personal layer against a real ggd: profile warnings, migration, pruning, methods, switch-off."""

from __future__ import annotations

import datetime as _dt
import json
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

from .daemon import Daemon, daemon_env
from .rpc_client import RpcClient, RpcError
from .runs_helpers import finish, new_session, start

pytestmark = pytest.mark.timeout(60)

Make = Callable[..., tuple[Daemon, FakeModel]]


@pytest.fixture
def make(gg_home: Path, workspace: Path, tmp_path: Path) -> Iterator[Make]:
    """A ggd on the scripted model with HOME in tmp; GG_HOME may be filled before it starts."""
    started: list[tuple[Daemon, FakeModel]] = []

    def _make(script: list[dict[str, Any]], config: dict[str, Any] | None = None) -> Any:
        gg_home.mkdir(parents=True, exist_ok=True)
        if config is not None:
            (gg_home / "config.json").write_text(json.dumps(config))
        fm = FakeModel(script).start()
        env = daemon_env(
            gg_home,
            {
                "OPENAI_BASE_URL": fm.base_url,
                "OPENAI_API_KEY": "test-key",
                "GG_MODEL": "fake-model",
                "HOME": str(tmp_path),
            },
        )
        d = Daemon(gg_home, workspace, env).start()
        started.append((d, fm))
        return d, fm

    yield _make
    for d, fm in started:
        d.stop()
        fm.stop()


async def _run(c: RpcClient, prompt: str = "hi") -> dict[str, Any]:
    sid = await new_session(c)
    return await finish(c, await start(c, sid, prompt))


def _system(fm: FakeModel, index: int = -1) -> str:
    return str(fm.requests[index]["messages"][0]["content"])


async def test_broken_profile_still_starts_and_warns_once(make: Make, gg_home: Path) -> None:
    gg_home.mkdir(parents=True)
    (gg_home / "USER.md").write_bytes(b"- Name: Ada\x00\xff\xfe")
    d, fm = make([{"text": "one"}, {"text": "two"}])
    c = await d.connect("unix")
    try:
        assert (await _run(c))["type"] == "run_completed"
        assert (await _run(c))["type"] == "run_completed"
        shown = await c.request("gg/memory.show", {})
    finally:
        await c.close()
    assert "Who you are" not in _system(fm) and "Ada" not in _system(fm)
    assert shown["profileProblem"] == "USER.md is a binary file, not text"
    logs = d.logs()
    assert logs.count("profile ignored: USER.md is a binary file") == 1, logs
    assert "Traceback" not in logs


async def test_profile_edits_apply_to_the_next_run(make: Make, gg_home: Path) -> None:
    gg_home.mkdir(parents=True)
    profile = gg_home / "USER.md"
    profile.write_text("- Name: Ada\n- Pronouns: she/her\n\n# Notes\nLikes short answers.\n")
    d, fm = make([{"text": "one"}, {"text": "two"}])
    c = await d.connect("unix")
    try:
        await _run(c)
        profile.write_text("- Name: Grace\n")
        await _run(c)
    finally:
        await c.close()
    first, second = _system(fm, 0), _system(fm, 1)
    assert "- Name: Ada\n- Pronouns: she/her" in first and "Likes short answers." in first
    assert "- Name: Grace" in second and "Ada" not in second


async def test_legacy_memory_is_migrated_once_without_losing_curated(
    make: Make, gg_home: Path
) -> None:
    (gg_home / "memory").mkdir(parents=True)
    (gg_home / "memory.md").write_text("- legacy fact: the cat is called Ping\n")
    (gg_home / "memory" / "MEMORY.md").write_text("# Memory\n\n- curated fact\n")
    d, fm = make([{"text": "ok"}])
    c = await d.connect("unix")
    try:
        await _run(c)
    finally:
        await c.close()
    merged = (gg_home / "memory" / "MEMORY.md").read_text()
    assert merged.index("- curated fact") < merged.index("- legacy fact")
    assert not (gg_home / "memory.md").exists()
    assert (gg_home / "memory.md.bak").read_text() == "- legacy fact: the cat is called Ping\n"
    assert stat.S_IMODE((gg_home / "memory").stat().st_mode) == 0o700
    assert stat.S_IMODE((gg_home / "memory" / "MEMORY.md").stat().st_mode) == 0o600
    assert "the cat is called Ping" in _system(fm)


async def test_old_daily_logs_are_pruned_at_start(make: Make, gg_home: Path) -> None:
    mem = gg_home / "memory"
    mem.mkdir(parents=True)
    today = _dt.date.today()
    old = mem / f"{(today - _dt.timedelta(days=40)).isoformat()}.md"
    recent = mem / f"{(today - _dt.timedelta(days=3)).isoformat()}.md"
    for f in (old, recent):
        f.write_text("- something\n")
    (mem / "2020-01-01-notes.md").write_text("not a daily log\n")
    d, _fm = make([], config={"memory": {"dailyLogRetentionDays": 30}})
    assert not old.exists() and recent.exists() and (mem / "2020-01-01-notes.md").exists()
    assert "pruned 1 daily log" in d.logs()


async def test_memory_methods(make: Make, gg_home: Path) -> None:
    d, _fm = make([])
    c = await d.connect("ws")
    try:
        added = await c.request("gg/memory.add", {"content": "Bo owns CI", "scope": "group:Infra"})
        assert added == {"path": "groups/infra.md", "scope": "group:Infra"}
        await c.request("gg/memory.add", {"content": "ci runs nightly"})
        hits = (await c.request("gg/memory.search", {"query": "ci Bo"}))["hits"]
        assert hits[0] == {"path": "groups/infra.md", "line": 3, "text": "- Bo owns CI"}
        assert hits[1]["path"] == "MEMORY.md"  # one word of two: ranked after
        with pytest.raises(RpcError) as exc:
            await c.request("gg/memory.add", {"content": "x", "scope": "person:../.."})
        assert exc.value.symbol == "invalid_params" and "at least one letter" in exc.value.message
        traversal = await c.request("gg/memory.add", {"content": "x", "scope": "person:../../x"})
        assert traversal["path"] == "people/x.md"
        init = await c.request("gg/memory.init", {"name": "Ada", "language": "English"})
        assert init == {"path": "USER.md", "empty": ["Call me", "Timezone"]}
        with pytest.raises(RpcError) as exc:
            await c.request("gg/memory.init", {"name": "Eve"})
        assert exc.value.symbol == "invalid_action" and "already exists" in exc.value.message
        shown = await c.request("gg/memory.show", {})
        assert shown["profileExists"] and "- Name: Ada" in shown["profile"]
        assert "ci runs nightly" in shown["memory"]
    finally:
        await c.close()
    assert not (gg_home.parent / "x.md").exists()


async def test_memory_switched_off_hides_tools_and_methods(make: Make, gg_home: Path) -> None:
    d, fm = make([{"text": "ok"}], config={"memory": {"enabled": False}})
    c = await d.connect("unix")
    try:
        info = await c.request("gg/system.info", {})
        await _run(c)
        with pytest.raises(RpcError) as exc:
            await c.request("gg/memory.add", {"content": "x"})
        shown = await c.request("gg/memory.show", {})
    finally:
        await c.close()
    assert "memory" not in info["capabilities"] and "skills" in info["capabilities"]
    assert exc.value.symbol == "capability_unavailable"
    assert "memory.enabled" in exc.value.message
    tools = [t["function"]["name"] for t in fm.requests[0]["tools"]]
    assert "memory_add" not in tools and "memory_search" not in tools and "read" in tools
    assert "# Memory" not in _system(fm)
    assert shown["enabled"] is False
    assert not (gg_home / "memory").exists()  # switched off: the store is never touched


async def test_bad_memory_config_names_the_key(gg_home: Path, workspace: Path) -> None:
    gg_home.mkdir(parents=True)
    (gg_home / "config.json").write_text(json.dumps({"memory": {"enabeld": True}}))
    with pytest.raises(RuntimeError) as exc:
        Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    assert "memory.enabeld" in str(exc.value)
