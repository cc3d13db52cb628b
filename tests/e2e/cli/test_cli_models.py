"""An unknown provider or a model the endpoint does not list is an error before the run starts."""

from __future__ import annotations

import json

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
    p.expect(r"unknown provider 'nosuch'")  # said at once (gg/model.check), not at the next send
    p.expect("model unchanged: openai:fake-model")
    p.expect("gg> ")
    p.send("hello\r")
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


def test_the_cli_prints_why_the_loop_guard_stopped_a_run(real_env: CliEnv) -> None:
    call = {"toolCalls": [{"name": "list", "arguments": {"path": "no/such/folder"}}]}
    real_env.model.add_steps([call] * 10)
    r = real_env.run("--no-daemon", "-p", "list no/such/folder")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "gg: error: loop detected: list(" in r.stderr, r.stderr
    assert "loopGuard" in r.stderr  # says which setting changes it
    assert len(real_env.model.requests) == 4


def test_gg_models_shows_a_local_model_with_its_state(cli_env: CliEnv) -> None:
    cli_env.home.mkdir(mode=0o700, exist_ok=True)
    config = {
        "model": "local:tiny",
        "providers": {
            "local": {"kind": "llamacpp", "modelPath": "~/gone.gguf", "models": ["tiny"]}
        },
    }
    (cli_env.home / "config.json").write_text(json.dumps(config))
    r = cli_env.run("models")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "local (llamacpp): not running",
        "* local:tiny  (stopped)",
        "demo (demo): reachable",
        "  demo:gg-demo",
    ], r.stdout
    r = cli_env.run("-p", "hi")
    assert r.returncode == 1
    assert "providers.local.modelPath: the model file 'gone.gguf' does not exist" in r.stderr
    r = cli_env.run("models", "--json")
    rows = json.loads(r.stdout)
    failure = "providers.local.modelPath: the model file 'gone.gguf' does not exist"
    assert rows[0] == {
        "model": "local:tiny",
        "default": True,
        "state": f"failed: {failure}",
        "provider": "local",
        "kind": "llamacpp",
        "reachable": False,
        "problem": failure,
    }
    assert rows[1] == {
        "model": "demo:gg-demo",
        "default": False,
        "state": None,
        "provider": "demo",
        "kind": "demo",
        "reachable": True,
        "problem": None,
    }


def test_gg_models_lists_each_provider_with_its_kind_and_whether_it_answers(
    real_env: CliEnv,
) -> None:
    """A Chat Completions fake, an Anthropic-kind fake and a provider nobody listens for: each
    named with its kind and what one listing request found."""
    from tests.fakes.fake_anthropic import FakeAnthropic

    base = real_env.model.base_url
    with FakeAnthropic([], models=["claude-a", "claude-b", "claude-c"]) as fa:
        config = {
            "model": "openai:fake-model",
            "providers": {
                "openai": {"baseUrl": base, "apiKey": "test"},
                "claude": {"kind": "anthropic", "baseUrl": fa.base_url, "apiKey": "k"},
                "gone": {
                    "baseUrl": "http://user:secret@127.0.0.1:9/v1?key=hidden",
                    "apiKey": "k",
                    "models": ["m"],
                },
            },
        }
        real_env.home.mkdir(mode=0o700, exist_ok=True)
        (real_env.home / "config.json").write_text(json.dumps(config))
        r = real_env.run("--no-daemon", "models")
        claude_url = fa.base_url
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:2] == [
        f"openai (openai-chat, {base}): reachable, 2 models listed",
        "* openai:fake-model",
    ], lines
    assert f"claude (anthropic, {claude_url}): reachable, 3 models listed" in lines, lines
    gone = next(x for x in lines if x.startswith("gone ("))
    # Credentials and query are never shown; the address that failed is.
    assert gone.startswith("gone (openai-chat, http://127.0.0.1:9/v1): unreachable: cannot reach")
    assert "  gone:m" in lines
    assert "secret" not in r.stdout and "hidden" not in r.stdout
