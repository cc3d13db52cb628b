"""An unknown provider or a model the endpoint does not list is an error before the run starts."""

from __future__ import annotations

import pytest

from .conftest import CliEnv

pytestmark = pytest.mark.timeout(90)


def test_unknown_provider_with_the_demo_is_an_error_not_a_demo_answer(cli_env: CliEnv) -> None:
    r = cli_env.run("--no-daemon", "--model", "nosuch:model", "-p", "hi")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stdout == ""  # the demo did not answer
    assert "unknown provider 'nosuch' in model 'nosuch:model' (configured: demo)" in r.stderr


@pytest.mark.parametrize("mode", [[], ["--no-daemon"]], ids=["daemon", "no-daemon"])
def test_a_model_the_endpoint_does_not_list(real_env: CliEnv, mode: list[str]) -> None:
    r = real_env.run(*mode, "--model", "openai:nosuch", "-p", "hi")
    assert r.returncode == 1, (r.stdout, r.stderr)
    base = real_env.model.base_url
    assert f"model 'nosuch' is not offered by openai ({base}/models lists: fake-model, other)" in (
        r.stderr
    )
    r = real_env.run(*mode, "--model", "nosuch:model", "-p", "hi")
    assert r.returncode == 1
    assert "unknown provider 'nosuch' (configured: openai, demo)" in r.stderr, r.stderr
    assert real_env.model.requests == []  # no run reached the model
    real_env.model.add_steps([{"text": "listed ok"}])
    r = real_env.run(*mode, "--model", "openai:other", "-p", "hi")
    assert (r.returncode, r.stdout) == (0, "listed ok\n"), r.stderr


def test_slash_model_typo_is_reported_and_does_not_stick(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": "default answered"}])
    p = real_env.pty()
    p.expect("gg> ")
    p.send("/model nosuch:model\r")
    p.expect("gg> ")
    p.send("hello\r")
    p.expect(r"unknown provider 'nosuch'")
    p.expect("back to the session's model")
    p.expect("gg> ")
    p.send("hello again\r")
    p.expect("default answered")
    p.expect("gg> ")
    assert [r["model"] for r in real_env.model.requests] == ["fake-model"]
    p.send("\x04")
    assert p.wait() == 0


def test_a_run_refused_for_its_model_leaves_no_session_behind(real_env: CliEnv) -> None:
    r = real_env.run("--model", "openai:nosuch", "-p", "hi")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "is not offered by openai" in r.stderr
    listed = real_env.run("--json", "sessions")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "[]"  # nothing was created for the refused run
    real_env.model.add_steps([{"text": "fresh start"}])
    r = real_env.run("-c", "-p", "hi")  # nothing to continue: a new session, default model
    assert (r.returncode, r.stdout) == (0, "fresh start\n"), r.stderr
    assert [q["model"] for q in real_env.model.requests] == ["fake-model"]
