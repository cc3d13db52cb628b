"""/skill:<name> in the web composer, in Chromium against a real ggd and the scripted model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import PageWatch, WebDaemon
from .test_web_ui import open_ui, send, user_texts, wait_phase

pytestmark = pytest.mark.browser

SKILL = "---\nname: release\ndescription: Cut a release.\n---\nRELEASE-BODY-MARKER: tag it.\n"


def test_composer_forces_a_skill(
    ggd_web: Callable[..., WebDaemon], pages: Callable[..., PageWatch], workspace: Path
) -> None:
    folder = workspace / ".agents" / "skills" / "release"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    web = ggd_web([{"text": "Released."}])
    page = open_ui(pages(allow=["unknown skill"]), web)
    send(page, "/skill:nope now")
    alert = page.get_by_test_id("error")
    alert.wait_for()
    assert "unknown skill 'nope'; known skills: release" in alert.inner_text()
    assert web.model.requests == []
    send(page, "/skill:release 1.4.0")
    wait_phase(page, "completed")
    sent = user_texts(web, 0)[-1]
    assert "RELEASE-BODY-MARKER" in sent and sent.endswith("1.4.0")
    assert 'folder=".agents/skills/release"' in sent
