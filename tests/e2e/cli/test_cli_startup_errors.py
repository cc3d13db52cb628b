"""Start-up mistakes a newcomer makes are one or two lines naming the problem and the fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)
GGD = str(Path(sys.executable).parent / "ggd")


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text and 'File "' not in text, text


@pytest.mark.parametrize("mode", [[], ["--no-daemon"]])
def test_broken_config_shows_the_daemons_message(cli_env: CliEnv, mode: list[str]) -> None:
    cli_env.home.mkdir()
    (cli_env.home / "config.json").write_text(json.dumps({"modle": "x"}))
    r = cli_env.run(*mode, "-p", "hi")
    assert r.returncode == 1
    _no_traceback(r.stderr)
    assert "closed the connection" not in r.stderr
    assert "unknown key 'modle' (known: model, providers" in r.stderr, r.stderr
    assert "Extra inputs" not in r.stderr
    assert "fix: edit" in r.stderr


def test_config_that_is_not_json(cli_env: CliEnv) -> None:
    cli_env.home.mkdir()
    (cli_env.home / "config.json").write_text('{"model": ')
    r = cli_env.run("--no-daemon", "-p", "hi")
    assert r.returncode == 1
    assert "config.json is not valid JSON (line 1" in r.stderr, r.stderr
    _no_traceback(r.stderr)


def test_gg_home_that_is_a_file(cli_env: CliEnv) -> None:
    home = cli_env.root / "a-file"
    home.write_text("")
    env = {**cli_env.env, "GG_HOME": str(home)}
    r = subprocess.run(
        [GGD, "--private"], env=env, capture_output=True, text=True, timeout=30, cwd=cli_env.ws
    )
    assert r.returncode == 2
    assert r.stderr.startswith(f"ggd: GG_HOME {home} is not a directory"), r.stderr
    assert "fix: point GG_HOME at a folder you own" in r.stderr
    _no_traceback(r.stderr)


def test_gg_home_not_writable(cli_env: CliEnv) -> None:
    if os.geteuid() == 0:
        home = Path("/sys/gg-home-test")  # root may write anywhere but here
    else:
        locked = cli_env.root / "locked"
        locked.mkdir(mode=0o500)
        home = locked / "home"
    env = {**cli_env.env, "GG_HOME": str(home)}
    r = subprocess.run(
        [GGD, "--private"], env=env, capture_output=True, text=True, timeout=30, cwd=cli_env.ws
    )
    assert r.returncode == 2
    assert f"GG_HOME {home} is not writable" in r.stderr, r.stderr
    _no_traceback(r.stderr)


def test_port_in_use(cli_env: CliEnv) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run(
            [GGD, "--ws", f"127.0.0.1:{port}"],
            env=cli_env.env,
            capture_output=True,
            text=True,
            timeout=30,
            cwd=cli_env.ws,
        )
    assert r.returncode == 2
    assert f"port {port} on 127.0.0.1 is already in use" in r.stderr, r.stderr
    assert f"--ws 127.0.0.1:{port + 1}" in r.stderr
    _no_traceback(r.stderr)
    assert not (cli_env.home / "run" / "ggd.json").exists()


def test_unreachable_endpoint_names_its_url(cli_env: CliEnv) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    cli_env.env |= {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k", "GG_MODEL": "m"}
    r = cli_env.run("--no-daemon", "-p", "hi", timeout=80)
    assert r.returncode == 1
    assert f"cannot reach the model server at {url}/chat/completions" in r.stderr, r.stderr
    _no_traceback(r.stderr)
