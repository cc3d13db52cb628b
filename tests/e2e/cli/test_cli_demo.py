"""The offline demo in gg's sample project: every tool it shows really ran, and it says so truly."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)
REPO = Path(__file__).resolve().parents[3]


def test_demo_in_the_sample_project_edits_runs_the_tests_and_reports_truly(
    cli_env: CliEnv,
) -> None:
    shutil.copytree(REPO / "examples" / "demo-project", cli_env.ws, dirs_exist_ok=True)
    r = cli_env.run("--yolo", "--json", "-p", "show me what you can do")
    assert r.returncode == 0, r.stderr
    assert "return sum(values) / len(values)" in (cli_env.ws / "stats.py").read_text()
    test = subprocess.run(
        ["python3", "test_stats.py"], cwd=cli_env.ws, capture_output=True, text=True, timeout=30
    )
    assert test.stdout.strip() == "ok"
    assert '"toolName":"edit"' in r.stdout and '"toolName":"bash"' in r.stdout
    assert "The tests printed 'ok' (exit code 0)." in r.stdout
    assert "ran `python3 test_stats.py`" in r.stdout


def test_make_run_seeds_only_its_own_empty_default_workspace(tmp_path: Path) -> None:
    r = subprocess.run(
        ["make", "-n", "-C", str(REPO), "run", f"HOME={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "examples/demo-project" in r.stdout
    r = subprocess.run(
        ["make", "-n", "-C", str(REPO), "run", f"WORKSPACE={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "examples/demo-project" not in r.stdout  # a folder the user chose is never seeded
