"""The memory store: scopes, slugs, appends, migration and pruning on real files."""

from __future__ import annotations

import datetime as _dt
import stat
import threading
from pathlib import Path

import pytest

from ggd.capabilities.personal.prompt import memory_text
from ggd.capabilities.personal.scope import MemoryInputError, parse_scope, slugify
from ggd.capabilities.personal.search import search
from ggd.capabilities.personal.store import MemoryStore

NOW = _dt.datetime(2026, 12, 1, 9, 30).astimezone()


def store(home: Path, days: int = 90) -> MemoryStore:
    return MemoryStore(home, days, clock=lambda: NOW)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Grace Hopper", "grace-hopper"),
        ("../../etc/passwd", "etc-passwd"),
        ("Zoë", "zoe"),
        (".x.", "x"),
    ],
)
def test_slugs_cannot_leave_their_folder(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_scopes_parse_or_say_what_is_allowed() -> None:
    assert str(parse_scope(None)) == "general" and str(parse_scope(" Daily ")) == "daily"
    assert str(parse_scope("person: Grace   Hopper")) == "person:Grace Hopper"
    for bad in ("team:x", "person:", "person:///", "general:x"):
        with pytest.raises(MemoryInputError):
            parse_scope(bad)


def test_add_creates_owner_only_files_with_a_heading(tmp_path: Path) -> None:
    s = store(tmp_path)
    assert s.add("likes tea", parse_scope("general")).path == "MEMORY.md"
    s.add("line one\n\nline two", parse_scope("general"))
    assert s.add("met Grace", parse_scope("daily")).path == "2026-12-01.md"
    assert s.add("reviews code", parse_scope("person:Grace")).path == "people/grace.md"
    assert s.curated() == "# Memory\n\n- likes tea\n- line one\n  \n  line two\n"
    assert s.today_log() == "# 2026-12-01\n\n- 09:30 met Grace\n"
    assert (tmp_path / "memory" / "people" / "grace.md").read_text().startswith("# Grace\n")
    assert stat.S_IMODE((tmp_path / "memory").stat().st_mode) == 0o700
    for f in (tmp_path / "memory").rglob("*.md"):
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    with pytest.raises(MemoryInputError, match="empty"):
        s.add("  \n ", parse_scope("general"))


def test_concurrent_adds_lose_nothing(tmp_path: Path) -> None:
    s = store(tmp_path)
    threads = [
        threading.Thread(target=s.add, args=(f"fact {i}", parse_scope("general")))
        for i in range(20)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(s.curated().splitlines()[2:]) == sorted(f"- fact {i}" for i in range(20))


def test_migration_appends_keeps_a_backup_and_runs_once(tmp_path: Path) -> None:
    (tmp_path / "memory.md").write_text("- old fact\n")
    (tmp_path / "memory.md.bak").write_text("an older backup\n")
    s = store(tmp_path)
    s.ensure()
    (tmp_path / "memory" / "MEMORY.md").write_text("# Memory\n\n- curated\n")
    assert s.prepare() == ["migrated memory.md into memory/MEMORY.md (kept memory.md.bak.2)"]
    assert s.curated() == "# Memory\n\n- curated\n\n## Migrated from memory.md\n\n- old fact\n"
    assert (tmp_path / "memory.md.bak").read_text() == "an older backup\n"
    assert s.prepare() == [] and s.curated().count("old fact") == 1


def test_migration_into_an_empty_store_and_after_a_crash(tmp_path: Path) -> None:
    (tmp_path / "memory.md").write_text("- old fact\n")
    s = store(tmp_path)
    s.migrate_legacy()
    assert s.curated() == "- old fact\n"
    # A crash after writing MEMORY.md but before the rename: the next start does not duplicate.
    (tmp_path / "memory.md").write_text("- old fact\n")
    s.migrate_legacy()
    assert s.curated() == "- old fact\n" and not (tmp_path / "memory.md").exists()


def test_prune_removes_only_expired_daily_logs(tmp_path: Path) -> None:
    s = store(tmp_path, days=10)
    s.ensure()
    root = tmp_path / "memory"
    for name in ("2026-11-20.md", "2026-11-21.md", "2026-11-30.md", "2026-02-31.md", "notes.md"):
        (root / name).write_text("x\n")
    assert s.prune() == ["2026-11-20.md"]
    assert sorted(p.name for p in root.glob("*.md")) == [
        "2026-02-31.md",
        "2026-11-21.md",
        "2026-11-30.md",
        "notes.md",
    ]
    (root / "2026-11-01.md").write_text("x\n")
    s.add("today", parse_scope("daily"))  # a daily add prunes too
    assert not (root / "2026-11-01.md").exists()


def test_search_ranks_by_words_and_caps_hits(tmp_path: Path) -> None:
    s = store(tmp_path)
    s.add("Deploys go through Heron", parse_scope("general"))
    s.add("heron-7 is staging", parse_scope("group:Infra"))
    s.add("staging deploys need heron approval", parse_scope("daily"))
    for i in range(15):
        s.add(f"staging note {i}", parse_scope("general"))
    hits = search(s, "HERON staging", limit=10)
    assert [str(h) for h in hits[:2]] == [
        "groups/infra.md:3: - heron-7 is staging",
        "2026-12-01.md:3: - 09:30 staging deploys need heron approval",
    ]
    assert len(hits) == 10 and all(h.score >= 1 for h in hits)
    with pytest.raises(MemoryInputError):
        search(s, "   ")


def test_prompt_budgets_keep_head_of_memory_and_tail_of_today() -> None:
    curated = "# Memory\n\n" + "".join(f"- fact {i}\n" for i in range(100))
    today = "# 2026-12-01\n\n" + "".join(f"- 09:{i:02d} event {i}\n" for i in range(60))
    text = memory_text(curated, today, NOW.date(), budget=100, daily=60)
    assert "- fact 0\n" in text and "- fact 99" not in text
    assert "more characters in MEMORY.md; memory_search finds them" in text
    assert "event 59" in text and "event 0\n" not in text
    assert "[... earlier entries of today left out]" in text
    assert memory_text("", "", NOW.date(), 100, 100).endswith("Nothing remembered yet.")
