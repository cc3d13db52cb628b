"""The session naming rule and the names of forks and clones."""

from __future__ import annotations

from ggd.app.naming import copy_name, session_name


def test_explicit_name_wins_else_the_first_prompt_cut_to_60() -> None:
    assert session_name("release notes", "write the notes") == "release notes"
    assert session_name("  ", "write the notes") == "write the notes"
    assert session_name(None, "line one\n  line two") == "line one line two"
    long = session_name("", "x" * 200)
    assert len(long) == 60 and long.endswith("…")
    words = session_name(
        "", "please fix the flaky test in the scheduler loop, then run the whole suite"
    )
    assert words == "please fix the flaky test in the scheduler loop, then run…"  # whole words
    assert session_name(None, None) == ""


def test_copy_names_are_distinct_and_count_on_from_the_base() -> None:
    assert copy_name("calc fix", "fork", ["calc fix"]) == "calc fix (fork)"
    taken = ["calc fix", "calc fix (fork)"]
    assert copy_name("calc fix", "fork", taken) == "calc fix (fork 2)"
    assert copy_name("calc fix (fork 2)", "fork", [*taken, "calc fix (fork 2)"]) == (
        "calc fix (fork 3)"
    )
    assert copy_name("calc fix (fork)", "clone", taken) == "calc fix (clone)"
    assert copy_name("", "clone", []) == "Untitled (clone)"
