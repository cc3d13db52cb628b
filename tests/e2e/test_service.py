"""`ggd install-service` / `uninstall-service` with a temp HOME and a fake systemctl on PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

GGD = [sys.executable, "-m", "ggd.daemon"]


def _env(tmp_path: Path, bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GG_", "XDG_"))}
    env |= {"HOME": str(tmp_path), "GG_HOME": str(tmp_path / "gghome"), "PATH": str(bin_dir)}
    return env


def _fake_systemctl(bin_dir: Path, log: Path, fail_on: str = "") -> None:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "systemctl"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> "{log}"\n'
        + (
            f'case "$*" in *{fail_on}*) echo "Failed to connect to bus" >&2; exit 1;; esac\n'
            if fail_on
            else ""
        )
        + "exit 0\n"
    )
    script.chmod(0o755)


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GGD, *args], env=env, capture_output=True, text=True, timeout=60)


def test_install_writes_the_unit_and_enables_it(tmp_path: Path) -> None:
    log = tmp_path / "systemctl.log"
    _fake_systemctl(tmp_path / "bin", log)
    env = _env(tmp_path, tmp_path / "bin")
    r = run(["install-service", "--ws", "127.0.0.1:8765"], env)
    assert r.returncode == 0, r.stderr
    unit = tmp_path / ".config" / "systemd" / "user" / "ggd.service"
    text = unit.read_text()
    assert f"wrote {unit}" in r.stdout and "Restart=on-failure" in r.stdout  # says what it wrote
    assert "Restart=on-failure" in text and "WantedBy=default.target" in text
    assert f"Environment=GG_HOME={tmp_path / 'gghome'}" in text
    exec_line = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    assert "--ws 127.0.0.1:8765" in exec_line and "--log-file" in exec_line
    assert log.read_text().splitlines() == [
        "--user daemon-reload",
        "--user enable --now ggd.service",
    ]
    r = run(["uninstall-service"], env)
    assert r.returncode == 0, r.stderr
    assert not unit.exists() and f"removed {unit}" in r.stdout
    assert log.read_text().splitlines()[2:] == [
        "--user disable --now ggd.service",
        "--user daemon-reload",
    ]
    r = run(["uninstall-service"], env)
    assert r.returncode == 0 and "no ggd.service is installed" in r.stdout


def test_refuses_clearly_without_systemd(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = _env(tmp_path, empty)
    for cmd in ("install-service", "uninstall-service"):
        r = run([cmd], env)
        assert r.returncode == 1
        assert "systemd is not available here" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / ".config" / "systemd").exists()


def test_a_failing_systemctl_is_reported_without_a_traceback(tmp_path: Path) -> None:
    log = tmp_path / "systemctl.log"
    _fake_systemctl(tmp_path / "bin", log, fail_on="daemon-reload")
    r = run(["install-service"], _env(tmp_path, tmp_path / "bin"))
    assert r.returncode == 1
    assert "daemon-reload` failed: Failed to connect to bus" in r.stderr
    assert "Traceback" not in r.stderr
