"""`kind: "llamacpp"`: a GGUF file served by llama.cpp's own server, a supervised child of ggd.

This module only manages the server; requests go through the Chat Completions client it extends.
The server (`ggd/providers/llamacpp_server.py`, xllamacpp inside) is started on the first request,
health-checked (`GET /health`) before the first request is sent, stopped after `idleSeconds`
without requests and when the daemon stops. A crash or an out-of-memory kill ends the child, not
the daemon; the next request starts it again.

States (`gg models`): stopped, starting, ready, failed (with the reason).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from ggd.providers.openai_compat import OpenAICompatProvider, ProviderOptions
from ggd.providers.types import ChatRequest, Probe, ProviderError, StreamEvent

__all__ = ["BUILTIN_TEMPLATES", "LlamaCppProvider", "LlamaCppSettings", "check_gguf"]

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
_TEMPLATES = Path(__file__).with_name("templates")
# chatTemplate values that name a template shipped with gg (else "model" or a file path).
BUILTIN_TEMPLATES = {"chatml-tools": _TEMPLATES / "chatml-tools.jinja"}
NOT_INSTALLED = "the llamacpp provider needs xllamacpp: pip install 'gg-agent[local]' (or pip install xllamacpp)"


@dataclass(frozen=True)
class LlamaCppSettings:
    """One llamacpp provider's server settings (config keys in brackets)."""

    model_path: Path  # modelPath
    context_window: int = 4096  # contextWindow
    threads: int = 0  # threads; 0: every core
    chat_template: str = "model"  # chatTemplate: "model", "chatml-tools" or a .jinja file
    idle_seconds: float = 600.0  # idleSeconds
    port: int = 0  # port; 0: a free one
    start_timeout: float = 120.0  # startTimeout
    log_file: Path | None = None  # where llama.cpp's log goes (GG_HOME/logs/llamacpp-NAME.log)


def check_gguf(path: Path, key: str) -> str | None:
    """Why `path` cannot be served (missing, unreadable, not a GGUF), or None."""
    name = path.name
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except FileNotFoundError:
        return f"{key}: the model file {name!r} does not exist"
    except IsADirectoryError:
        return f"{key}: {name!r} is a folder, not a GGUF model file"
    except OSError as exc:
        return f"{key}: the model file {name!r} cannot be read ({exc.strerror or exc})"
    if magic != GGUF_MAGIC:
        return f"{key}: {name!r} is not a GGUF model file (it does not start with 'GGUF')"
    return None


def _port_taken(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _explain_failure(log_tail: str, returncode: int | None) -> tuple[str, str]:
    """(code, message) for a server that did not start or died, from its log and exit status."""
    low = log_tail.lower()
    if returncode is not None and returncode in (-9, 137):
        return "out_of_memory", "the llama.cpp server was killed (out of memory?)"
    if "alloc" in low or "out of memory" in low or "bad_alloc" in low:
        return "out_of_memory", (
            "the model does not fit in memory; use a smaller contextWindow or a smaller "
            "quantisation of the model"
        )
    if "address already in use" in low or "couldn't bind" in low:
        return "port_in_use", "the port of the llama.cpp server is taken"
    return "local_server_failed", "the llama.cpp server could not start"


class _Server:
    """The child process and what is known about it."""

    def __init__(self, settings: LlamaCppSettings, name: str) -> None:
        self.settings = settings
        self.name = name
        self.proc: asyncio.subprocess.Process | None = None
        self.url: str | None = None
        self.failure: str | None = None
        self.starting = False
        self._log: IO[bytes] | None = None

    @property
    def state(self) -> str:
        if self.starting:
            return "starting"
        if self.proc is not None and self.proc.returncode is None and self.url:
            return "ready"
        if self.failure:
            return f"failed: {self.failure}"
        return "stopped"

    def _command(self) -> list[str]:
        s = self.settings
        cmd = [sys.executable, "-m", "ggd.providers.llamacpp_server", "--model", str(s.model_path)]
        cmd += ["--ctx", str(s.context_window), "--threads", str(s.threads), "--port", str(s.port)]
        template = BUILTIN_TEMPLATES.get(s.chat_template)
        if template is not None:
            cmd += ["--template-file", str(template)]
        elif s.chat_template != "model":
            cmd += ["--template-file", str(Path(s.chat_template).expanduser())]
        return cmd

    def _env(self) -> dict[str, str]:
        # A third-party process gets a scrubbed environment: no keys or tokens of the daemon's.
        keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV")
        return {k: os.environ[k] for k in keep if k in os.environ}

    async def start(self) -> None:
        key = f"providers.{self.name}"
        s = self.settings
        problem = check_gguf(s.model_path, f"{key}.modelPath")
        if problem is not None:
            raise ProviderError(problem, "model_file", retryable=False)
        if s.port and _port_taken(s.port):
            raise ProviderError(
                f"{key}.port: port {s.port} on 127.0.0.1 is taken; choose another or 0",
                "port_in_use",
            )
        if s.log_file is not None:
            s.log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._log = s.log_file.open("ab")
            os.chmod(s.log_file, 0o600)
        self.proc = await asyncio.create_subprocess_exec(
            *self._command(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self._log if self._log is not None else asyncio.subprocess.DEVNULL,
            env=self._env(),
            start_new_session=True,  # a Ctrl+C at the terminal is the daemon's to handle
        )
        assert self.proc.stdout is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), s.start_timeout)
        except TimeoutError:
            await self.stop()
            raise ProviderError(
                f"the llama.cpp server did not start within {s.start_timeout:g} s "
                f"({key}.startTimeout)",
                "local_server_failed",
                retryable=True,
            ) from None
        report = _parse(line)
        if report.get("ready") and isinstance(report.get("url"), str):
            self.url = report["url"].rstrip("/")
            return
        rc = await self._reap()
        if report.get("error") == "not_installed":
            raise ProviderError(NOT_INSTALLED, "not_installed")
        code, message = _explain_failure(self._tail(), rc)
        raise ProviderError(f"{key}: {message}", code)

    async def health(self, client: httpx.AsyncClient) -> None:
        """Wait for GET /health to answer 200 (llama.cpp answers 503 while loading)."""
        assert self.url is not None
        deadline = asyncio.get_running_loop().time() + self.settings.start_timeout
        while True:
            if self.proc is None or self.proc.returncode is not None:
                code, message = _explain_failure(self._tail(), await self._reap())
                raise ProviderError(f"providers.{self.name}: {message}", code)
            try:
                resp = await client.get(f"{self.url}/health", timeout=5.0)
                if resp.status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if asyncio.get_running_loop().time() > deadline:
                raise ProviderError(
                    "the llama.cpp server did not become healthy in time",
                    "local_server_failed",
                    retryable=True,
                )
            await asyncio.sleep(0.2)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def died(self) -> str | None:
        """Why the child is gone, if it is (after a failed request)."""
        if self.proc is None:
            return None
        # The connection breaks a moment before the exit is reaped: give it that moment.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 2.0)
        if self.proc.returncode is None:
            return None
        _code, message = _explain_failure(self._tail(), await self._reap())
        return message

    async def _reap(self) -> int | None:
        proc, self.proc = self.proc, None
        self.url = None
        if proc is None:
            return None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 5.0)
        return proc.returncode

    def _tail(self) -> str:
        path = self.settings.log_file
        if path is None:
            return ""
        try:
            with path.open("rb") as fh:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - 8192))
                return fh.read().decode("utf-8", "replace")
        except OSError:
            return ""

    async def stop(self) -> None:
        """Close its stdin (it exits), then terminate and kill if it lingers."""
        proc, self.proc = self.proc, None
        self.url = None
        if proc is not None and proc.returncode is None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 3.0)
            except TimeoutError:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 3.0)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


def _parse(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line.decode("utf-8", "replace"))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


class LlamaCppProvider(OpenAICompatProvider):
    """Chat Completions against a llama.cpp server this provider starts and stops itself."""

    kind = "llamacpp"

    def __init__(
        self,
        name: str,
        settings: LlamaCppSettings,
        models: list[str],
        options: ProviderOptions | None = None,
    ) -> None:
        opts = options or ProviderOptions()
        # The local server is never rate limited and a retry after a crash restarts it: no backoff.
        super().__init__("http://127.0.0.1", None, name=name, options=opts)
        self.settings = settings
        self.models = models
        self._server = _Server(settings, name)
        self._lock = asyncio.Lock()
        self._active = 0
        self._idle: asyncio.TimerHandle | None = None
        self._stopping: set[asyncio.Task[None]] = set()

    @property
    def state(self) -> str:
        """stopped, starting, ready or failed: REASON."""
        return self._server.state

    @property
    def server_pid(self) -> int | None:
        """The server child's pid while it runs."""
        proc = self._server.proc
        return proc.pid if proc is not None and proc.returncode is None else None

    async def probe(self) -> Probe:
        """Its server's state instead of a request: `gg models` starts no model."""
        state = self.state
        if state.startswith("failed: "):
            return Probe(False, state.removeprefix("failed: "))
        return Probe(True if state == "ready" else None)

    async def list_models(self) -> list[str] | None:
        """The configured names (the file's stem by default); no server is started for it."""
        return list(self.models)

    async def _ensure(self) -> None:
        async with self._lock:
            if self._server.alive() and self._server.url:
                return
            self._server.failure = None
            self._server.starting = True
            try:
                await self._server.start()
                self.base_url = f"{self._server.url}/v1"
                await self._server.health(await self._http())
            except ProviderError as exc:
                self._server.failure = exc.message
                await self._server.stop()
                raise
            finally:
                self._server.starting = False
            log.info("llama.cpp server for %s ready at %s", self.name, self._server.url)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Start the server if need be, then stream as any Chat Completions endpoint."""
        self._cancel_idle()
        self._active += 1
        try:
            await self._ensure()
            try:
                async for ev in super().stream(request):
                    yield ev
            except ProviderError as exc:
                why = await self._server.died()
                if why is None:
                    raise
                self._server.failure = why
                raise ProviderError(
                    f"the llama.cpp server stopped during the request: {why}",
                    "server_error",
                    retryable=True,
                    partial_text=exc.partial_text,
                ) from None
        finally:
            self._active -= 1
            if self._active == 0:
                self._arm_idle()

    def _arm_idle(self) -> None:
        if self.settings.idle_seconds <= 0 or not self._server.alive():
            return
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(self.settings.idle_seconds, self._idle_stop)

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _idle_stop(self) -> None:
        self._idle = None
        if self._active:
            return
        log.info("llama.cpp server for %s idle: stopping it", self.name)
        task = asyncio.ensure_future(self._stop_server())
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def _stop_server(self) -> None:
        async with self._lock:
            if not self._active:
                await self._server.stop()

    async def aclose(self) -> None:
        """Stop the server and close connections (daemon shutdown)."""
        self._cancel_idle()
        await self._server.stop()
        await super().aclose()
