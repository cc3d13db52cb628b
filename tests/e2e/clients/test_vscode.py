"""VS Code extension: unit tests (tsc + node:test), and the extension in code-server with Chromium."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
VSCODE = REPO / "clients" / "vscode"


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed")
    return npm


@pytest.fixture(scope="module")
def extension_deps() -> Path:
    """clients/vscode with node_modules installed from its lock file."""
    if not (VSCODE / "node_modules" / "vscode-languageclient").exists():
        proc = subprocess.run(
            [_npm(), "ci", "--no-audit", "--no-fund"],
            cwd=VSCODE,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
    return VSCODE


def test_extension_typechecks_and_unit_tests_pass(extension_deps: Path) -> None:
    proc = subprocess.run(
        [_npm(), "test"], cwd=extension_deps, capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout


# ---------------------------------------------------------------------------------------------
# The extension for real: code-server (VS Code in the browser) + Debian chromium via Playwright.

CODE_SERVER_DIR = Path(
    os.environ.get("GG_CODE_SERVER_DIR", Path.home() / ".cache" / "gg-code-server")
)
CODE_SERVER = CODE_SERVER_DIR / "cs" / "node_modules" / ".bin" / "code-server"
NODE24_BIN = CODE_SERVER_DIR / "node24" / "node_modules" / "node" / "bin"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WRITE = {
    "toolCalls": [
        {"name": "write", "arguments": {"path": "notes.txt", "content": "from vscode\n"}}
    ],
    "chunkSize": 9,
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _install_extension(src: Path, extensions_dir: Path, web: Path | None) -> Path:
    """Copy the built extension (runtime files only, plus a web UI build) into an extensions folder."""
    dest = extensions_dir / "gg.gg-vscode-0.1.0"
    dest.mkdir(parents=True)
    shutil.copy2(src / "package.json", dest / "package.json")
    shutil.copytree(src / "out" / "src", dest / "out" / "src")
    shutil.copytree(src / "media", dest / "media", ignore=shutil.ignore_patterns("web"))
    if web is not None:
        shutil.copytree(web, dest / "media" / "web")
    skip = {"typescript", "@types"}
    for item in (src / "node_modules").iterdir():
        if item.name not in skip and item.is_dir():
            shutil.copytree(item, dest / "node_modules" / item.name, symlinks=True)
    return dest


@pytest.fixture
def stop_user_daemon(gg_home: Path) -> Iterator[None]:
    """Stop the daemon `gg bridge` auto-started in this GG_HOME (it would idle-exit much later).

    code_server depends on this fixture so code-server is gone first: while it runs, its language
    client restarts `gg bridge` after the daemon stops, and the bridge would start a new daemon.
    """
    yield
    discovery = gg_home / "run" / "ggd.json"
    if discovery.exists():
        pid = int(json.loads(discovery.read_text())["pid"])
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # polling for the daemon's exit
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)  # never leak a daemon into the next test


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def code_server(
    tmp_path: Path, extension_deps: Path, gg_home: Path, workspace: Path, stop_user_daemon: None
) -> Iterator[Any]:
    """Start code-server with the extension installed; yields start(env) -> base URL."""
    if not CODE_SERVER.exists():
        pytest.skip(
            f"code-server is not installed: run clients/vscode/scripts/install-code-server.sh (about 2 min); looked in {CODE_SERVER_DIR}"
        )
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    build = subprocess.run(
        [_npm(), "run", "build"], cwd=extension_deps, capture_output=True, text=True, timeout=180
    )
    assert build.returncode == 0, build.stdout + build.stderr
    procs: list[subprocess.Popen[bytes]] = []

    def start(
        extra_env: dict[str, str],
        settings: dict[str, Any],
        web: Path | None = None,
        folder: Path | None = None,
    ) -> str:
        home = tmp_path / "home"
        user_data = tmp_path / "user-data"
        (user_data / "User").mkdir(parents=True)
        base_settings = {
            "workbench.startupEditor": "none",
            "security.workspace.trust.enabled": False,
            "telemetry.telemetryLevel": "off",
            "extensions.autoCheckUpdates": False,
            "extensions.autoUpdate": False,
            "workbench.tips.enabled": False,
            "chat.disableAIFeatures": True,
        }
        (user_data / "User" / "settings.json").write_text(json.dumps({**base_settings, **settings}))
        _install_extension(extension_deps, tmp_path / "extensions", web)
        port = _free_port()
        env = {
            **os.environ,
            **extra_env,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "PATH": f"{NODE24_BIN}{os.pathsep}{os.environ['PATH']}",
        }
        log = (tmp_path / "code-server.log").open("wb")
        proc = subprocess.Popen(
            [
                str(CODE_SERVER),
                "--auth",
                "none",
                "--bind-addr",
                f"127.0.0.1:{port}",
                "--disable-telemetry",
                "--disable-update-check",
                "--disable-workspace-trust",
                "--user-data-dir",
                str(user_data),
                "--extensions-dir",
                str(tmp_path / "extensions"),
                str(folder or workspace),
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=folder or workspace,
            start_new_session=True,
        )
        procs.append(proc)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"code-server exited: {(tmp_path / 'code-server.log').read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return base
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail("code-server did not start within 60 s")
            time.sleep(0.1)  # readiness polling interval

    yield start
    for proc in procs:
        # code-server runs its own children (extension host, ggd): end the whole group it leads.
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)  # polling a file-system predicate


def _run_command(page: Any, title: str) -> None:
    """Run a command from the palette; retried while contributions load or focus moves under it."""
    deadline = time.monotonic() + 30
    while True:
        try:
            page.locator(".quick-input-widget").first.wait_for(state="hidden", timeout=3000)
            page.keyboard.press("F1")
            box = page.locator(".quick-input-widget input")
            box.wait_for(state="visible", timeout=3000)
            box.fill(f">{title}", timeout=3000)
            row = page.locator(".quick-input-list .monaco-list-row", has_text=title).first
            row.wait_for(timeout=2000)
            page.keyboard.press("Enter")
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            page.keyboard.press("Escape")


@pytest.mark.browser
@pytest.mark.parametrize("mode", ["stdio", "bridge"])
def test_extension_in_code_server(
    code_server, gg_home, workspace, ggd_bin, gg_bin, tmp_path, mode
) -> None:
    """Real VS Code: New Session, Open Sessions, then gg: Ask whose write is allowed from a notification."""
    from playwright.sync_api import sync_playwright

    from tests.fakes.fake_openai import FakeModel

    with FakeModel([WRITE, {"text": "Wrote the notes from VS Code."}]) as fm:
        env = {
            "OPENAI_BASE_URL": fm.base_url,
            "OPENAI_API_KEY": "test",
            "GG_MODEL": "fake-model",
            "GG_HOME": str(gg_home),
        }
        settings = {"gg.server": mode, "gg.ggdPath": str(ggd_bin), "gg.ggPath": str(gg_bin)}
        base = code_server(env, settings)
        shots = REPO / "tests" / ".artifacts" / "vscode"
        shots.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as p:
            # Chromium writes under ~/.config: keep it in the test's temp dir.
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=CHROMIUM_ARGS,
                env={**os.environ, "HOME": str(tmp_path / "chromium-home")},
            )
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(f"{base}/?folder={workspace}")
                page.locator(".monaco-workbench").wait_for(timeout=60000)
                # Connect and create a session, then find it again through the session picker.
                _run_command(page, "gg: New Session")
                idle = page.locator(".statusbar-item", has_text="gg: idle")
                failed = page.locator(".notification-toast:has(.codicon-error)")
                idle.or_(failed).first.wait_for(timeout=30000)
                assert not failed.count(), failed.first.inner_text()
                _run_command(page, "gg: Open Sessions")
                pick = page.locator(".quick-input-list .monaco-list-row", has_text="0 messages")
                pick.first.wait_for(timeout=15000)
                assert pick.count() == 1
                page.keyboard.press("Enter")
                _run_command(page, "gg: Ask")
                prompt = page.locator(".quick-input-widget input")
                prompt.wait_for(state="visible", timeout=15000)
                page.locator(".quick-input-widget", has_text="Ask gg").wait_for(timeout=15000)
                prompt.fill("write the notes file")
                page.keyboard.press("Enter")
                toast = page.locator(".notification-toast", has_text="gg wants to run write")
                toast.or_(failed).first.wait_for(timeout=30000)
                assert not failed.count(), failed.first.inner_text()
                page.screenshot(path=str(shots / f"approval-notification-{mode}.png"))
                toast.get_by_role("button", name="Allow", exact=True).click()
                _wait_for(lambda: (workspace / "notes.txt").exists(), 30, "the approved write")
                assert (workspace / "notes.txt").read_text() == "from vscode\n"
                page.locator(".statusbar-item", has_text="gg: idle").wait_for(timeout=30000)
                page.screenshot(path=str(shots / f"after-run-{mode}.png"))
                assert len(fm.requests) == 2
                assert fm.mismatches == []
            except Exception:
                page.screenshot(path=str(shots / f"failure-{mode}.png"))
                raise
            finally:
                browser.close()


def _widen_side_bar(page: Any) -> None:
    """Drag the side bar's sash to the right so the web UI gets room (cosmetic: screenshots)."""
    for sash in page.locator(".monaco-sash.vertical").all():
        box = sash.bounding_box()
        if box and 200 < box["x"] < 500 and box["height"] > 300:
            y = box["y"] + box["height"] / 2
            page.mouse.move(box["x"] + box["width"] / 2, y)
            page.mouse.down()
            page.mouse.move(1100, y, steps=8)
            page.mouse.up()
            return


@pytest.mark.browser
def test_chat_view_runs_the_web_ui_with_approvals(code_server, gg_home, ggd_bin, tmp_path) -> None:
    """The chat view is the real web UI over the bridge: a turn from its composer, approved in its card."""
    from playwright.sync_api import sync_playwright

    from tests.fakes.fake_openai import FakeModel

    web = REPO / "ggd" / "web"
    if not (web / "index.html").exists():
        pytest.skip("no web UI build in ggd/web: run `npm ci && npm run build` in ui/")
    workspace = tmp_path / "ws-webview"
    workspace.mkdir()
    with FakeModel([WRITE, {"text": "Written from the chat view."}]) as fm:
        env = {
            "OPENAI_BASE_URL": fm.base_url,
            "OPENAI_API_KEY": "test",
            "GG_MODEL": "fake-model",
            "GG_HOME": str(gg_home),
        }
        settings = {"gg.server": "stdio", "gg.ggdPath": str(ggd_bin)}
        base = code_server(env, settings, web, workspace)
        shots = REPO / "tests" / ".artifacts" / "vscode"
        shots.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=CHROMIUM_ARGS,
                env={**os.environ, "HOME": str(tmp_path / "chromium-home")},
            )
            page = browser.new_page(viewport={"width": 1600, "height": 900})
            try:
                page.goto(f"{base}/?folder={workspace}")
                page.locator(".monaco-workbench").wait_for(timeout=60000)
                _run_command(page, "gg: New Session")
                page.locator(".statusbar-item", has_text="gg: idle").wait_for(timeout=30000)
                _widen_side_bar(page)
                # VS Code nests the page: an outer webview iframe, then the active content frame.
                ui = page.frame_locator("iframe.webview").frame_locator("#active-frame")
                ui.locator("[data-testid=session-row]").first.click(timeout=30000)
                ui.get_by_label("Prompt").fill("write the notes file")
                ui.get_by_label("Prompt").press("Enter")
                card = ui.locator("[data-testid=approval-card]")
                card.wait_for(timeout=30000)
                page.screenshot(path=str(shots / "chat-view-approval.png"))
                card.locator("button.primary").click()
                _wait_for(lambda: (workspace / "notes.txt").exists(), 30, "the approved write")
                ui.locator(
                    "[data-testid=msg-assistant]", has_text="Written from the chat view."
                ).wait_for(timeout=30000)
                page.screenshot(path=str(shots / "chat-view-done.png"))
                # The view showed the approval, so no notification was raised for it.
                assert page.locator(".notification-toast", has_text="gg wants to run").count() == 0
                assert (workspace / "notes.txt").read_text() == "from vscode\n"
            except Exception:
                page.screenshot(path=str(shots / "failure-webview.png"))
                raise
            finally:
                browser.close()
