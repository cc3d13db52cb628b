"""The Knowledge tab: there before any index, indexes a folder with progress, and a hit becomes a prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import screenshot
from .test_web_ui import Pages, Start, open_ui


def test_index_a_folder_search_it_and_ask_about_a_hit(
    ggd_web: Start, pages: Pages, workspace: Path, gg_home: Path
) -> None:
    docs = workspace / "docs"
    docs.mkdir()
    (docs / "deploy.md").write_text(
        "# Deploying\n\nTo roll back a release, run **make rollback** and see the "
        "[runbook](runbook.md) for the checklist.\n"
    )
    (docs / "intro.md").write_text("# Intro\n\nThis project greets people.\n")
    gg_home.mkdir(parents=True, exist_ok=True)
    # BM25 only: the test is about the UI, not the embedding model's speed.
    (gg_home / "config.json").write_text(json.dumps({"kb": {"localModel": "off"}}))
    web = ggd_web([])
    page: Any = open_ui(pages(), web)
    page.get_by_role("tab", name="Knowledge").click()
    page.get_by_text("No knowledge base yet").wait_for()
    page.get_by_label("Folder to index").fill("docs")
    page.get_by_role("button", name="Index").click()
    page.get_by_text("Indexed 2 files into docs").wait_for()
    page.get_by_label("Search the knowledge base").fill("roll back a release")
    page.get_by_role("button", name="Search").click()
    hit = page.locator(".kb-hit").first
    hit.wait_for()
    snippet = hit.locator(".kb-hit-snippet").inner_text()
    assert "make rollback" in snippet and "**" not in snippet and "](" not in snippet
    screenshot(page, "kb-search")
    hit.get_by_role("button", name="Ask about deploy.md lines 1-3").click()
    assert page.get_by_role("tab", name="Chat").get_attribute("aria-selected") == "true"
    page.wait_for_function(
        "() => document.querySelector('textarea')?.value.startsWith("
        "'In the knowledge base \"docs\", deploy.md lines 1-3')"
    )
