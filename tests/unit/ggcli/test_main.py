"""Argument parsing, the stdlib-only promise, and discovery-file handling."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ggcli import discovery
from ggcli.main import build_parser, build_sub_parser, main

GG = str(Path(sys.executable).parent / "gg")


def test_version_imports_nothing_but_the_stdlib(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from ggcli.main import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('ggd', 'pygls', 'lsprotocol', 'httpx', 'pydantic', 'websockets', 'mcp', 'attrs', 'cattrs')]\n"
        "print(bad)\n"
    )
    env = {**os.environ, "GG_HOME": str(tmp_path / "home")}
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert r.stdout.splitlines()[-1] == "[]"
    assert r.stdout.startswith("gg 0.1.0")


def test_a_one_shot_turn_imports_no_dataclasses_inspect_or_shutil() -> None:
    # `gg -p` pays for every module it imports before its first request; dataclasses brings
    # inspect, ast, dis and tokenize (~10 ms of a ~70 ms path) for six record types, and
    # argparse's default help width imports shutil (with bz2, lzma and zlib).
    code = (
        "import sys\n"
        "import ggcli.main, ggcli.discovery, ggcli.session, ggcli.turn, ggcli.render\n"
        "from ggcli import commands\n"
        "ggcli.main.build_parser().parse_args(['-p', 'hi'])\n"
        "print(sorted(m for m in ('dataclasses', 'inspect', 'ast', 'shutil') if m in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.splitlines()[-1] == "[]"


def test_every_cli_module_is_stdlib_only() -> None:
    import ggcli

    pkg = Path(ggcli.__file__).parent
    for path in pkg.glob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                top = stripped.split()[1].split(".")[0]
                assert top not in (
                    "ggd",
                    "pygls",
                    "lsprotocol",
                    "httpx",
                    "pydantic",
                    "websockets",
                    "mcp",
                ), f"{path.name}: {stripped}"


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_never_touch_the_daemon(tmp_path: Path, flag: str) -> None:
    env = {**os.environ, "GG_HOME": str(tmp_path / "home"), "GG_GGD": "/nonexistent/ggd"}
    r = subprocess.run([GG, flag], capture_output=True, text=True, env=env, timeout=10)
    assert r.returncode == 0
    assert ("gg 0.1.0" if flag == "--version" else "gg daemon start") in r.stdout
    assert not (tmp_path / "home").exists()


def test_parser_options() -> None:
    a = build_parser().parse_args(["-p", "hi", "--json", "--yolo", "--no-daemon", "--model", "x:y"])
    assert (a.prompt, a.json, a.yolo, a.no_daemon, a.model) == ("hi", True, True, True, "x:y")
    a = build_parser().parse_args(["fix", "the", "bug", "-c", "--approval", "on-request"])
    assert (a.words, a.continue_last, a.approval) == (["fix", "the", "bug"], True, "on-request")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["-c", "-r", "id"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--approval", "sometimes"])
    s = build_sub_parser().parse_args(["daemon", "logs", "-n", "5", "-f"])
    assert (s.command, s.action, s.lines, s.follow) == ("daemon", "logs", 5, True)
    s = build_sub_parser().parse_args(["rpc", "--no-daemon"])
    assert (s.command, s.no_daemon) == ("rpc", True)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-p", "a", "b"]) == 2
    assert "either with -p or as words" in capsys.readouterr().err
    assert main(["-p", "   "]) == 2


def test_discovery_missing_malformed_stale_and_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "run").mkdir(parents=True)
    monkeypatch.setenv("GG_HOME", str(home))
    assert discovery.gg_home() == home
    assert discovery.read_discovery(home) is None
    path = home / "run" / "ggd.json"
    path.write_text("{not json")
    assert discovery.read_discovery(home) is None
    path.write_text(json.dumps({"socket": "/x"}))
    assert discovery.read_discovery(home) is None  # no pid
    dead = subprocess.Popen(["true"])
    dead.wait()
    sock_path = tmp_path / "s.sock"
    path.write_text(json.dumps({"pid": dead.pid, "socket": str(sock_path), "version": "1"}))
    assert discovery.read_discovery(home) is not None
    assert discovery.live_daemon(home) is None  # the pid is gone
    path.write_text(json.dumps({"pid": os.getpid(), "socket": str(sock_path)}))
    assert discovery.live_daemon(home) is None  # alive pid, socket refuses
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(sock_path))
    srv.listen()
    try:
        disc = discovery.live_daemon(home)
        assert disc is not None and disc.pid == os.getpid() and disc.socket == str(sock_path)
    finally:
        srv.close()


def test_find_ggd_prefers_override_then_beside_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GG_GGD", "/opt/custom/ggd")
    assert discovery.find_ggd() == "/opt/custom/ggd"
    monkeypatch.delenv("GG_GGD")
    assert discovery.find_ggd() == str(Path(sys.executable).parent / "ggd")
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(discovery.DaemonError, match="ggd was not found"):
        discovery.find_ggd()


def test_a_daemon_that_fails_to_start_is_reported(tmp_path: Path) -> None:
    bad = tmp_path / "ggd"
    bad.write_text("#!/bin/sh\necho 'ggd: bad config' >&2\nexit 3\n")
    bad.chmod(0o755)
    env = {**os.environ, "GG_HOME": str(tmp_path / "home"), "GG_GGD": str(bad)}
    r = subprocess.run([GG, "-p", "hi"], capture_output=True, text=True, env=env, timeout=30)
    assert r.returncode == 1
    assert "ggd failed to start: bad config" in r.stderr
    r = subprocess.run(
        [GG, "daemon", "status"], capture_output=True, text=True, env=env, timeout=30
    )
    assert r.returncode == 1 and "not running" in r.stdout
