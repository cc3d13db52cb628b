"""kind "llamacpp": the errors a user meets before any model runs, each naming the config key."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path

import psutil
import pytest

from ggd.providers import ChatRequest, Completed, ProviderError, build_registry
from ggd.providers.llamacpp import LlamaCppProvider, check_gguf
from ggd.providers.params import RequestParams


def _local(tmp_path: Path, model_path: Path, **extra: object) -> LlamaCppProvider:
    entry = {"kind": "llamacpp", "modelPath": str(model_path), **extra}
    reg = build_registry({"providers": {"local": entry}}, {}, home=tmp_path)
    provider, _ = reg.get("local:" + model_path.stem)
    assert isinstance(provider, LlamaCppProvider)
    return provider


async def _first_error(provider: LlamaCppProvider) -> ProviderError:
    request = ChatRequest(model=provider.models[0], messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(ProviderError) as exc:
        async for _ in provider.stream(request):
            pass
    await provider.aclose()
    return exc.value


async def test_a_missing_file_names_the_key_and_the_file(tmp_path: Path) -> None:
    provider = _local(tmp_path, tmp_path / "gone.gguf")
    err = await _first_error(provider)
    assert err.code == "model_file"
    assert err.message == "providers.local.modelPath: the model file 'gone.gguf' does not exist"
    assert str(tmp_path) not in err.message  # no paths in errors, only the file's name
    assert provider.state.startswith("failed: providers.local.modelPath")


async def test_a_file_that_is_not_gguf_is_refused_by_its_magic(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04 a zip, not a model")
    err = await _first_error(_local(tmp_path, fake))
    assert err.code == "model_file" and "is not a GGUF model file" in err.message
    assert check_gguf(tmp_path, "k") == f"k: {tmp_path.name!r} is a folder, not a GGUF model file"


async def test_a_taken_port_is_named(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 32)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        err = await _first_error(_local(tmp_path, gguf, port=port))
    assert err.code == "port_in_use"
    assert err.message.startswith(f"providers.local.port: port {port} on 127.0.0.1 is taken")


async def test_a_gguf_llama_cpp_cannot_load_fails_the_start_with_its_reason(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp", reason="xllamacpp is not installed (make local-models)")
    gguf = tmp_path / "broken.gguf"
    gguf.write_bytes(b"GGUF" + b"\xff" * 64)  # the right magic, garbage after it
    provider = _local(tmp_path, gguf, startTimeout=60)
    err = await _first_error(provider)
    assert err.code == "local_server_failed", err.message
    assert err.message == "providers.local: the llama.cpp server could not start"
    assert (tmp_path / "logs" / "llamacpp-local.log").stat().st_mode & 0o077 == 0
    assert provider.state == "failed: providers.local: the llama.cpp server could not start"


async def test_the_real_server_starts_on_first_use_and_stops_when_idle(tmp_path: Path) -> None:
    from tests.local_models.fetch import SMOLLM, cache_dir, missing

    why = missing()
    if why is not None:
        pytest.skip(f"real-model test: {why}")
    provider = _local(tmp_path, cache_dir() / SMOLLM, idleSeconds=0.5, threads=1, contextWindow=512)
    provider.params = RequestParams(temperature=0, seed=1, max_tokens=4)
    assert provider.state == "stopped"
    request = ChatRequest(model=provider.models[0], messages=[{"role": "user", "content": "Hi"}])
    try:
        try:
            events = [ev async for ev in provider.stream(request)]
            assert isinstance(events[-1], Completed), events
        except ProviderError as exc:  # 4 tokens: a longer answer is cut, still a real answer
            assert exc.code == "length", exc.message
        assert provider.state == "ready"
        pid = provider.server_pid
        assert pid is not None and psutil.pid_exists(pid)
        # Idle for idleSeconds: the child is stopped (its stdin closed, it exits).
        deadline = asyncio.get_running_loop().time() + 30
        while provider.state != "stopped" and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)
        assert provider.state == "stopped"
        # "stopped" is set as the stop begins; the child then exits on its closed stdin.
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(pid).wait(timeout=15)
        assert not psutil.pid_exists(pid)
    finally:
        await provider.aclose()
