"""Options before a subcommand, and subcommand names that are never silently a prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import CliEnv, Lines, ggd_pids, req

pytestmark = pytest.mark.timeout(90)


def test_no_daemon_before_rpc_is_the_relay_not_a_prompt(real_env: CliEnv) -> None:
    rpc = Lines(real_env.popen("--no-daemon", "rpc"))
    try:
        rpc.send(req(1, "gg/session.create", {"name": "alpha"}))
        assert rpc.reply(1)["result"]["name"] == "alpha"
        assert rpc.close() == 0
    finally:
        rpc.proc.kill()
        rpc.proc.wait()
    assert real_env.model.requests == []  # "rpc" never went to the model
    assert real_env.discovery() is None  # --no-daemon was honoured: no shared daemon started


def test_workspace_before_sessions_and_sessions_alone_lists(real_env: CliEnv) -> None:
    other = real_env.root / "other"
    other.mkdir()
    r = real_env.run("--no-daemon", "--workspace", str(other), "sessions")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "no sessions in this workspace"
    r = real_env.run("--json", "sessions", "--no-daemon")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == []
    assert real_env.model.requests == []


@pytest.mark.parametrize(
    "argv",
    [["rpc", "is", "broken"], ["--model", "x:y", "daemon", "status"], ["sessions", "lst"]],
)
def test_a_subcommand_word_is_never_sent_as_a_prompt(real_env: CliEnv, argv: list[str]) -> None:
    r = real_env.run(*argv)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "error:" in r.stderr
    assert real_env.model.requests == []
    assert not ggd_pids(real_env.home)


def test_a_prompt_starting_with_a_command_word_goes_through_with_p(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "about rpc"}])
    r = real_env.run("--no-daemon", "-p", "rpc")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "about rpc\n"


@pytest.mark.parametrize(
    "argv", [["sesions"], ["sesions", "list"], ["--yolo", "sessons"], ["jobs"]]
)
def test_a_near_miss_of_a_command_asks_instead_of_running(
    real_env: CliEnv, argv: list[str]
) -> None:
    r = real_env.run(*argv)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "did you mean `gg " in r.stderr
    assert "use -p for a prompt" in r.stderr
    assert real_env.model.requests == []
    assert not ggd_pids(real_env.home)  # nothing was started for a typo


def test_a_prompt_that_only_resembles_a_command_still_runs_with_p(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "ok"}])
    r = real_env.run("--no-daemon", "-p", "sesions")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["-p", "list the files"],
        ["sessions"],
        ["rpc"],
        ["job", "list"],
        ["memory", "show"],
    ],
)
def test_a_mistyped_workspace_is_an_error_naming_it(real_env: CliEnv, argv: list[str]) -> None:
    typo = str(real_env.root / "projj")
    r = (
        real_env.run(*argv, "--workspace", typo, "--yolo")
        if argv[0] == "-p"
        else real_env.run(*argv, "--workspace", typo)
    )
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"no such folder: {typo}" in r.stderr
    assert "Traceback" not in r.stderr
    assert real_env.model.requests == []
    assert not ggd_pids(real_env.home)


def test_help_names_every_command_and_rpc_has_an_example(cli_env: CliEnv) -> None:
    from ggcli.main import _subcommands

    r = cli_env.run("--help")
    assert r.returncode == 0, r.stderr
    missing = [w for w in sorted(_subcommands()) if w not in r.stdout]
    assert missing == [], f"gg --help omits {missing}"
    docs = (Path(__file__).resolve().parents[3] / "docs" / "cli.md").read_text()
    assert [w for w in sorted(_subcommands()) if f"gg {w}" not in docs] == []
    rpc = cli_env.run("rpc", "--help")
    assert rpc.returncode == 0 and "example:" in rpc.stdout and "gg/session.list" in rpc.stdout
