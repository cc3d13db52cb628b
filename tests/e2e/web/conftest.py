"""Fixtures for the web UI tests: the built UI, Debian Chromium, and ggd with a scripted model."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

from ..daemon import TOKEN, Daemon, daemon_env

ROOT = Path(__file__).resolve().parents[3]
WEB_INDEX = ROOT / "ggd" / "web" / "index.html"
ARTIFACTS = ROOT / "tests" / ".artifacts" / "web"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
UI_TIMEOUT_MS = 15_000
# Console errors caused by the daemon, not the UI, tolerated until it is fixed (see docs/web-ui.md):
# Chromium rejects the IPv6 host source `ws://[::1]:*` in ggd's Content-Security-Policy.
KNOWN_DAEMON_NOISE: list[str] = []  # console errors caused by ggd itself; keep empty

pytestmark = pytest.mark.browser


def _build_ui() -> str | None:
    """Build the UI if ggd/web is missing; return why it cannot be, or None."""
    if WEB_INDEX.exists():
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "ggd/web/index.html is missing and npm is not installed to build it (cd ui && npm ci && npm run build)"
    for cmd in ([npm, "ci"], [npm, "run", "build"]):
        done = subprocess.run(cmd, cwd=ROOT / "ui", capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout)[-400:]
            return f"ggd/web/index.html is missing and `{' '.join(cmd[1:])}` in ui/ failed: {tail}"
    return None if WEB_INDEX.exists() else "the UI build wrote no ggd/web/index.html"


@pytest.fixture(scope="session")
def web_ui() -> Path:
    """The built web UI (built here when missing; skipped with the reason when it cannot be)."""
    reason = _build_ui()
    if reason:
        pytest.skip(reason)
    return WEB_INDEX


@pytest.fixture(scope="module")
def browser(web_ui: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Debian Chromium driven by Playwright, with its own HOME.

    Module scope, not session: while Playwright's sync API is alive it keeps an event loop
    running in this thread, which would break every asyncio test collected after these.
    """
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    home = tmp_path_factory.mktemp("chromium-home")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        )
        yield browser
        browser.close()


@dataclass
class WebDaemon:
    """A ggd serving the UI, with the scripted model it talks to."""

    daemon: Daemon
    model: FakeModel

    @property
    def url(self) -> str:
        """The page address with the token fragment, as ggd prints it."""
        return f"{self.daemon.http_url}#token={TOKEN}"


@pytest.fixture
def ggd_web(web_ui: Path, gg_home: Path, workspace: Path) -> Iterator[Callable[..., WebDaemon]]:
    """Start ggd --ws with a scripted fake model: `ggd_web(script)` (or `demo=True`)."""
    started: list[WebDaemon] = []

    def start(
        script: list[dict[str, Any]], *, demo: bool = False, env: dict[str, str] | None = None
    ) -> WebDaemon:
        model = FakeModel(script).start()
        # demo=True: no provider in the environment, so ggd serves its scripted demo model.
        extra = (
            {}
            if demo
            else {
                "OPENAI_BASE_URL": model.base_url,
                "OPENAI_API_KEY": "test",
                "GG_MODEL": "fake-model",
            }
        )
        daemon = Daemon(gg_home, workspace, daemon_env(gg_home, {**extra, **(env or {})}))
        try:
            daemon.start()
        except Exception:
            model.stop()
            raise
        web = WebDaemon(daemon, model)
        started.append(web)
        return web

    yield start
    for web in started:
        web.daemon.stop()
        web.model.stop()


@dataclass
class PageWatch:
    """A page plus every console error and uncaught exception it produced."""

    page: Any
    errors: list[str] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def unexpected(self) -> list[str]:
        """Errors no test declared as expected."""
        return [e for e in self.errors if not any(p.search(e) for p in self.allowed)]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Remember each phase's report on the item, so fixtures can tell a failed test."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def pages(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., PageWatch]]:
    """New pages in fresh contexts; at teardown no page may have logged a console error."""
    made: list[tuple[Any, PageWatch]] = []

    def new_page(
        allow: list[str] | None = None, viewport: tuple[int, int] = (1280, 800)
    ) -> PageWatch:
        width, height = viewport
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(UI_TIMEOUT_MS)
        page = context.new_page()
        patterns = [*KNOWN_DAEMON_NOISE, *(allow or [])]
        watch = PageWatch(page, allowed=[re.compile(a) for a in patterns])
        page.on(
            "console",
            lambda msg: watch.errors.append(msg.text) if msg.type == "error" else None,
        )
        page.on("pageerror", lambda exc: watch.errors.append(f"uncaught: {exc}"))
        made.append((context, watch))
        return watch

    yield new_page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        for i, (_, watch) in enumerate(made):
            screenshot(watch.page, f"FAILED-{request.node.name}-{i}")
    problems = [e for _, w in made for e in w.unexpected()]
    for context, _ in made:
        context.close()
    assert not problems, f"console errors in the web UI: {problems}"


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot of a main state under tests/.artifacts/web/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
