"""Skills against a real ggd: discovery across roots, warnings, the listing, read-only skill folders."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

from .daemon import Daemon, daemon_env
from .rpc_client import RpcError
from .runs_helpers import finish, new_session, start, until

pytestmark = pytest.mark.timeout(60)

Make = Callable[[list[dict[str, Any]]], tuple[Daemon, FakeModel]]


def skill(root: Path, folder: str, front: str, body: str = "Do the thing.") -> Path:
    """Write root/<folder>/SKILL.md with the given frontmatter lines."""
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\n{front}\n---\n{body}\n")
    return d


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    """HOME of the daemon under test (its ~/.agents/skills is the user root)."""
    return tmp_path / "user"


@pytest.fixture
def make(gg_home: Path, workspace: Path, user_home: Path) -> Iterator[Make]:
    """A ggd on the scripted model with HOME in tmp."""
    started: list[tuple[Daemon, FakeModel]] = []

    def _make(script: list[dict[str, Any]]) -> tuple[Daemon, FakeModel]:
        fm = FakeModel(script).start()
        extra = {"OPENAI_BASE_URL": fm.base_url, "OPENAI_API_KEY": "k", "GG_MODEL": "fake-model"}
        env = daemon_env(gg_home, extra | {"HOME": str(user_home)})
        d = Daemon(gg_home, workspace, env).start()
        started.append((d, fm))
        return d, fm

    yield _make
    for d, fm in started:
        d.stop()
        fm.stop()


@pytest.fixture
def skills(workspace: Path, user_home: Path) -> dict[str, Path]:
    """Skills in the workspace, its parent folder and the user's home; one broken, one hidden."""
    ws_root = workspace / ".agents" / "skills"
    parent_root = workspace.parent / ".agents" / "skills"
    user_root = user_home / ".agents" / "skills"
    out = {
        "release": skill(ws_root, "release", "name: release\ndescription: Project release."),
        "hidden": skill(
            ws_root,
            "hidden",
            "name: hidden\ndescription: Only by hand.\ndisable-model-invocation: true",
        ),
        "lint": skill(parent_root, "lint", 'name: lint\ndescription: "Lint: strict."'),
        "notes": skill(
            user_root, "notes", "name: notes\ndescription: >\n  Personal notes\n  helper."
        ),
        "user-release": skill(user_root, "release", "name: release\ndescription: My own release."),
    }
    (ws_root / "broken").mkdir()
    (ws_root / "broken" / "SKILL.md").write_text("---\nname: broken\n---\nno description\n")
    (out["notes"] / "ref.txt").write_text("REFERENCE-SIBLING-TEXT\n")
    return out


async def test_list_precedence_roots_and_warnings(
    make: Make, skills: dict[str, Path], tmp_path: Path
) -> None:
    d, _fm = make([])
    c = await d.connect("ws")
    try:
        listed = await c.request("gg/skill.list", {})
    finally:
        await c.close()
    by_name = {s["name"]: s for s in listed["skills"]}
    assert [s["name"] for s in listed["skills"]] == ["hidden", "release", "lint", "notes"]
    assert by_name["release"]["description"] == "Project release."  # the nearer root wins
    assert by_name["release"]["root"] == "workspace" and by_name["lint"]["root"] == "parent"
    assert by_name["notes"] == {
        "name": "notes",
        "description": "Personal notes helper.",
        "root": "user",
        "modelInvocable": True,
        "folder": "~/.agents/skills/notes",
    }
    assert by_name["lint"]["folder"] == "../.agents/skills/lint"
    assert by_name["hidden"]["modelInvocable"] is False
    assert listed["warnings"] == [
        ".agents/skills/broken/SKILL.md skipped: the frontmatter has no 'description'"
    ]
    assert str(tmp_path) not in json.dumps(listed)  # no absolute paths over the wire
    assert "skill .agents/skills/broken/SKILL.md skipped" in d.logs()


async def test_prompt_lists_skills_and_skill_folders_are_read_only_roots(
    make: Make, skills: dict[str, Path]
) -> None:
    read = {"name": "read", "arguments": {"path": "~/.agents/skills/notes/ref.txt"}}
    listing = {"name": "list", "arguments": {"path": "~/.agents/skills/notes"}}
    grep = {"name": "grep", "arguments": {"pattern": "SIBLING", "path": str(skills["notes"])}}
    write = {
        "name": "write",
        "arguments": {"path": "~/.agents/skills/notes/new.txt", "content": "x"},
    }
    outside = {"name": "read", "arguments": {"path": str(skills["notes"].parent.parent)}}
    d, fm = make(
        [
            {"toolCalls": [read, listing, grep]},
            {"expect": {"lastTool": "SIBLING"}, "toolCalls": [write]},
            {"toolCalls": [outside]},
            {"text": "done"},
        ]
    )
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "use the notes skill", interactive=True)
        ask = await until(c, rid, "approval_requested")
        # the write outside the workspace asks; even when allowed, the tool refuses it
        assert ask["approval"]["toolName"] == "write"
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        ask2 = await until(c, rid, "approval_requested", after=ask["sequence"])
        assert ask2["approval"]["toolName"] == "read"  # outside every root: not pre-approved
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask2["approval"]["id"], "allow": True}
        )
        done = await finish(c, rid)
    finally:
        await c.close()
    assert done["type"] == "run_completed", done
    system = str(fm.requests[0]["messages"][0]["content"])
    assert "- release: Project release. (read .agents/skills/release/SKILL.md)" in system
    assert "- notes: Personal notes helper. (read ~/.agents/skills/notes/SKILL.md)" in system
    assert "- lint: Lint: strict." in system and "hidden" not in system
    tools = [m for m in fm.requests[1]["messages"] if m["role"] == "tool"]
    assert "REFERENCE-SIBLING-TEXT" in tools[0]["content"]
    assert tools[1]["content"].split() == ["SKILL.md", "ref.txt"]
    assert "ref.txt:1:REFERENCE-SIBLING-TEXT" in tools[2]["content"]
    wrote = [m for m in fm.requests[2]["messages"] if m["role"] == "tool"][-1]
    assert "outside the workspace" in wrote["content"]
    assert not (skills["notes"] / "new.txt").exists()
    refused = [m for m in fm.requests[3]["messages"] if m["role"] == "tool"][-1]
    assert "outside the workspace" in refused["content"]


async def test_expand_inlines_the_current_body(make: Make, skills: dict[str, Path]) -> None:
    d, _fm = make([])
    c = await d.connect("stdio")
    try:
        (skills["hidden"] / "SKILL.md").write_text(
            "---\nname: hidden\ndescription: x\ndisable-model-invocation: true\n---\nEDITED BODY\n"
        )
        out = await c.request("gg/skill.expand", {"prompt": "/skill:hidden  fix it\nplease"})
        plain = await c.request("gg/skill.expand", {"prompt": "no skill here"})
        with pytest.raises(RpcError) as exc:
            await c.request("gg/skill.expand", {"prompt": "/skill:broken go"})
    finally:
        await c.close()
    assert out["skill"] == "hidden"
    assert out["prompt"].startswith('<skill name="hidden" folder=".agents/skills/hidden">')
    assert "EDITED BODY\n</skill>\n\nfix it\nplease" in out["prompt"]
    assert plain == {"prompt": "no skill here"}
    assert exc.value.symbol == "invalid_params"
    assert "unknown skill 'broken'; known skills: hidden, lint, notes, release" in exc.value.message
