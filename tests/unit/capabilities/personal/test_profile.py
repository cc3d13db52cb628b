"""USER.md parsing, rendering and the problems that make it ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggd.capabilities.personal.profile import (
    ProfileError,
    parse_profile,
    profile_template,
    read_profile,
    render_profile,
    write_profile,
)


def test_fields_before_the_first_heading_notes_after() -> None:
    p = parse_profile(
        "- Name: Ada Lovelace\n* Call me: Ada\n- Shell: fish\n\n# Notes\n- Key: not a field\nShort answers.\n"
    )
    assert p.fields == {"Name": "Ada Lovelace", "Call me": "Ada", "Shell": "fish"}
    assert p.notes == "- Key: not a field\nShort answers."
    assert p.get("call ME") == "Ada" and p.get("Timezone") == ""


def test_render_skips_empty_values_and_is_empty_for_the_bare_template() -> None:
    assert render_profile(parse_profile(profile_template({}))) == ""
    text = render_profile(parse_profile(profile_template({"Name": "Ada", "Timezone": "UTC"})))
    assert text.splitlines()[1:] == ["- Name: Ada", "- Timezone: UTC"]


def test_long_notes_are_cut() -> None:
    text = render_profile(parse_profile("- Name: A\n# Notes\n" + "x" * 5000))
    assert text.endswith("[... notes truncated]") and len(text) < 2200


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"- Name: A\x00", "USER.md is a binary file, not text"),
        (b"- Name: \xff\xfe", "USER.md is not valid UTF-8 (byte 8)"),
        (b"x" * (70 * 1024), "USER.md is larger than 64 KiB"),
    ],
)
def test_broken_files_raise_a_named_problem(tmp_path: Path, data: bytes, problem: str) -> None:
    path = tmp_path / "USER.md"
    path.write_bytes(data)
    with pytest.raises(ProfileError) as exc:
        read_profile(path)
    assert str(exc.value) == problem


def test_missing_is_none_and_a_folder_is_a_problem(tmp_path: Path) -> None:
    assert read_profile(tmp_path / "USER.md") is None
    (tmp_path / "USER.md").mkdir()
    with pytest.raises(ProfileError, match="is a folder"):
        read_profile(tmp_path / "USER.md")


def test_write_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    path = tmp_path / "USER.md"
    assert write_profile(path, {"Name": "Ada"}, force=False)
    assert not write_profile(path, {"Name": "Eve"}, force=False)
    assert "Ada" in path.read_text() and (path.stat().st_mode & 0o777) == 0o600
    assert write_profile(path, {"Name": "Eve"}, force=True) and "Eve" in path.read_text()
