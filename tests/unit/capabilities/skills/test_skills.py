"""The SKILL.md parser, discovery precedence and /skill: expansion on real folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggd.capabilities.skills.discovery import discover, skill_roots
from ggd.capabilities.skills.frontmatter import FrontmatterError, split_frontmatter
from ggd.capabilities.skills.prompt import UnknownSkillError, expand, forced_name, listing


def test_frontmatter_subset() -> None:
    fields, body = split_frontmatter(
        "\ufeff---\n"
        "name: pdf   # trailing comment\n"
        "description: 'It''s for PDFs: all of them'\n"
        "long: |\n  line one\n  line two\n"
        "metadata:\n  author: me\n"
        "# a comment\n"
        "---\n\n# Body\n"
    )
    assert fields["name"] == "pdf"
    assert fields["description"] == "It's for PDFs: all of them"
    assert fields["long"] == "line one\nline two"
    assert body == "# Body"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# no frontmatter\n", "no frontmatter"),
        ("---\nname: x\n", "not closed"),
        ("---\njust words\n---\n", "line 2: expected 'key: value'"),
        ("---\nname: a\nname: b\n---\n", "line 3: 'name' appears twice"),
        ("---\ndescription: 'open\n---\n", "unterminated"),
    ],
)
def test_frontmatter_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(FrontmatterError, match=message):
        split_frontmatter(text)


def _skill(root: Path, folder: str, front: str, body: str = "Body.") -> None:
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / "SKILL.md").write_text(f"---\n{front}\n---\n{body}\n")


def test_roots_are_nearest_first_and_user_last(tmp_path: Path) -> None:
    ws = tmp_path / "a" / "b"
    ws.mkdir(parents=True)
    home = tmp_path / "home"
    roots = skill_roots(ws, home)
    assert [r.kind for r in roots[:3]] == ["workspace", "parent", "parent"]
    assert roots[0].path == ws.resolve() / ".agents" / "skills"
    assert roots[-1].kind == "user" and roots[-1].path == (home / ".agents" / "skills").resolve()
    assert len({r.path for r in roots}) == len(roots)


def test_discovery_precedence_and_warnings(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    home = tmp_path / "home"
    near, far = ws / ".agents" / "skills", home / ".agents" / "skills"
    _skill(near, "one", "name: one\ndescription: near one")
    _skill(far, "one", "name: one\ndescription: far one")
    _skill(far, "two", "name: two\ndescription: two\ndisable-model-invocation: true")
    _skill(near, "Bad", "name: Bad Name\ndescription: x")
    _skill(near, "flag", "name: flag\ndescription: x\ndisable-model-invocation: maybe")
    (near / "enc").mkdir()
    (near / "enc" / "SKILL.md").write_bytes(b"---\nname: enc\ndescription: \xff\n---\n")
    (near / "assets").mkdir()  # no SKILL.md: not a skill, no warning
    found = discover(ws, home)
    assert [(s.name, s.description, s.root) for s in found.skills] == [
        ("one", "near one", "workspace"),
        ("two", "two", "user"),
    ]
    assert found.warnings == [
        ".agents/skills/Bad/SKILL.md skipped: name 'Bad Name' must be lowercase letters, "
        "digits and single dashes",
        ".agents/skills/enc/SKILL.md skipped: not valid UTF-8 (byte 27)",
        ".agents/skills/flag/SKILL.md skipped: disable-model-invocation must be true or false, "
        "not 'maybe'",
    ]
    text = listing(found)
    assert "- one: near one (read .agents/skills/one/SKILL.md)" in text and "two" not in text


def test_forcing_a_skill(tmp_path: Path) -> None:
    _skill(tmp_path / "ws" / ".agents" / "skills", "one", "name: one\ndescription: d", "STEP 1")
    found = discover(tmp_path / "ws", tmp_path / "home")
    assert forced_name("/skill:one") == ("one", "")
    assert forced_name("  /skill:one\n  do it ") == ("one", "do it")
    assert forced_name("please /skill:one") is None
    prompt, skill = expand("/skill:ONE do it", found)
    assert skill is not None and skill.name == "one"
    assert prompt.startswith('<skill name="one" folder=".agents/skills/one">')
    assert prompt.endswith("STEP 1\n</skill>\n\ndo it")
    assert expand("plain", found) == ("plain", None)
    with pytest.raises(UnknownSkillError, match="unknown skill 'two'; known skills: one"):
        expand("/skill:two x", found)
    with pytest.raises(UnknownSkillError, match="unknown skill ''"):
        expand("/skill: x", found)
