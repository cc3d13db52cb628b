"""Memory, profile and skills through the real `gg` against the real ggd and the scripted model."""

from __future__ import annotations

import json

import pytest

from .conftest import CliEnv, last_user

pytestmark = pytest.mark.timeout(120)

FACT = "The staging database is called heron-7"
SKILL = """---
name: release
description: Cut a release (changelog, tag, publish).
---
# Release

1. Update CHANGELOG.md with RELEASE-STEP-MARKER.
2. Tag the commit.
"""


def system_prompt(request: dict[str, object]) -> str:
    """The system message the model was sent."""
    messages = request["messages"]
    assert isinstance(messages, list) and messages[0]["role"] == "system"
    return str(messages[0]["content"])


def test_memory_add_from_a_run_is_searchable_and_in_the_next_prompt(real_env: CliEnv) -> None:
    r = real_env.run("init", "--name", "Ada Lovelace", "--timezone", "Europe/London")
    assert r.returncode == 0, r.stderr
    assert "left empty: Call me, Language" in r.stdout
    (real_env.ws / "AGENTS.md").write_text("Use tabs.\n")
    skill = real_env.ws / ".agents" / "skills" / "release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    add = {"name": "memory_add", "arguments": {"content": FACT, "scope": "general"}}
    real_env.model.add_steps(
        [
            {"toolCalls": [add]},
            {"expect": {"lastTool": "remembered in MEMORY.md"}, "text": "Noted."},
            {"text": "heron-7"},
        ]
    )
    r = real_env.run("-p", "remember: staging db is heron-7")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Noted." and not real_env.model.mismatches

    r = real_env.run("memory", "search", "STAGING", "heron-7")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"MEMORY.md:3: - {FACT}"]
    assert real_env.run("memory", "search", "nothing-like-this").returncode == 1

    r = real_env.run("-p", "what is the staging db?")
    assert r.returncode == 0, r.stderr
    prompt = system_prompt(real_env.model.requests[-1])
    assert FACT in prompt and "- Name: Ada Lovelace" in prompt
    order = [
        prompt.index("# Who you are working with"),
        prompt.index("# Memory"),
        prompt.index("# AGENTS.md"),
        prompt.index("# Skills"),
    ]
    assert order == sorted(order), prompt
    assert "- release: Cut a release" in prompt


def test_memory_add_show_and_scopes_from_the_cli(real_env: CliEnv) -> None:
    r = real_env.run(
        "memory", "add", "Grace", "reviews", "the", "parser", "--scope", "person:Grace H."
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "remembered in people/grace-h.md"
    r = real_env.run("memory", "add", "--scope", "daily", "shipped 1.2")
    assert r.returncode == 0 and "remembered in 20" in r.stdout
    r = real_env.run("memory", "add", "--scope", "team:x", "nope")
    assert r.returncode == 1 and "is not one of general, daily" in r.stderr
    assert "Traceback" not in r.stderr
    shown = json.loads(real_env.run("memory", "show", "--json").stdout)
    assert "shipped 1.2" in shown["today"] and shown["profileExists"] is False
    r = real_env.run("memory", "search", "parser")
    assert r.stdout.startswith("people/grace-h.md:3: - Grace reviews the parser")


def test_init_refuses_to_overwrite_without_force(real_env: CliEnv) -> None:
    r = real_env.run("init", "--name", "Ada", "--call-me", "Ada", "--language", "English")
    assert r.returncode == 0, r.stderr
    user_md = real_env.home / "USER.md"
    assert (user_md.stat().st_mode & 0o777) == 0o600
    assert "- Call me: Ada" in user_md.read_text()
    r = real_env.run("init", "--name", "Someone Else")
    assert r.returncode == 1 and "already exists" in r.stderr
    assert "Someone Else" not in user_md.read_text()
    r = real_env.run("init", "--name", "Someone Else", "--force")
    assert r.returncode == 0 and "- Name: Someone Else" in user_md.read_text()


def test_init_asks_in_a_terminal(real_env: CliEnv) -> None:
    p = real_env.pty("init", "--language", "French")
    p.expect(r"Name[^:]*: ")
    p.send("Ada Lovelace\r")
    p.expect(r"Call me \[Ada\]: ")
    p.send("\r")
    p.expect(r"Timezone[^:]*: ")
    p.send("Europe/Paris\r")
    p.expect("wrote ")
    assert p.wait() == 0
    text = (real_env.home / "USER.md").read_text()
    assert (
        "- Name: Ada Lovelace\n- Call me: Ada\n- Timezone: Europe/Paris\n- Language: French" in text
    )


def test_skill_listed_and_forced_through_the_cli(real_env: CliEnv) -> None:
    skills = real_env.ws / ".agents" / "skills"
    (skills / "release").mkdir(parents=True)
    (skills / "release" / "SKILL.md").write_text(SKILL)
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text("just text, no frontmatter\n")
    r = real_env.run("skills", "list")
    assert r.returncode == 0, r.stderr
    assert "release  (workspace: .agents/skills/release)" in r.stdout
    assert "warning: .agents/skills/broken/SKILL.md skipped: no frontmatter" in r.stdout

    real_env.model.add_steps([{"text": "released"}])
    r = real_env.run("-p", "/skill:release version 1.4.0")
    assert r.returncode == 0, r.stderr
    user = last_user(real_env.model.requests[-1])
    assert "RELEASE-STEP-MARKER" in user and user.endswith("version 1.4.0")
    assert 'folder=".agents/skills/release"' in user
    r = real_env.run("-p", "/skill:nope do it")
    assert r.returncode == 1
    assert "unknown skill 'nope'; known skills: release" in r.stderr
    assert len(real_env.model.requests) == 1  # the unknown skill never reached the model
    sessions = json.loads(real_env.run("sessions", "list", "--json").stdout)
    assert len(sessions) == 1  # and left no empty session behind


def test_skill_forced_in_the_interactive_session(real_env: CliEnv) -> None:
    skill = real_env.ws / ".agents" / "skills" / "release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    real_env.model.add_steps([{"text": "on it"}])
    p = real_env.pty()
    p.expect("gg> ")
    p.send("/skill:release now\r")
    p.expect("on it")
    p.expect("gg> ")
    assert "RELEASE-STEP-MARKER" in last_user(real_env.model.requests[-1])
    p.send("\x04")
    assert p.wait() == 0


def test_init_refuses_a_misspelt_time_zone(real_env: CliEnv) -> None:
    r = real_env.run("init", "--name", "Ada", "--timezone", "Europe/Lodnon")
    assert r.returncode != 0, r.stdout
    assert "unknown time zone 'Europe/Lodnon'" in r.stderr and "Traceback" not in r.stderr
    assert not (real_env.home / "USER.md").exists()
    r = real_env.run("init", "--name", "Ada", "--timezone", "Europe/London")
    assert r.returncode == 0, r.stderr
    assert "Europe/London" in (real_env.home / "USER.md").read_text()
