"""Plain LSP clients as real editors declare themselves: pytest-lsp's recorded capabilities.

Each test starts a real `ggd --stdio` (or `gg bridge` to a shared daemon) under pytest-lsp's
client, initialized with the capabilities pytest-lsp recorded from Emacs, Neovim and VS Code,
and a scripted model on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.fakes.fake_openai import FakeModel

from .daemon import daemon_env
from .rpc_client import RpcClient, RpcError

BIN = Path(sys.executable).parent
WRITE = [
    {
        "text": "Writing the notes.",
        "toolCalls": [{"name": "write", "arguments": {"path": "notes.md", "content": "# N\n"}}],
    },
    {"text": "The notes are written."},
]
EDITORS = ["emacs@v29.1", "neovim@v0.7.0", "neovim@v0.11.0", "visual_studio_code@v1.65.2"]


@pytest_asyncio.fixture
async def editor(
    tmp_path: Path, gg_home: Path, workspace: Path
) -> AsyncIterator[Callable[..., Awaitable[tuple[LanguageClient, FakeModel]]]]:
    """Factory: (client spec, model script) -> an initialized pytest-lsp client on `ggd --stdio`."""
    started: list[tuple[LanguageClient, FakeModel]] = []

    async def start(
        spec: str,
        script: Any,
        *,
        answer: str | None = "Allow",
        options: Any = None,
    ) -> tuple[LanguageClient, FakeModel]:
        fm = FakeModel(script).start()
        env = daemon_env(
            gg_home,
            {"OPENAI_BASE_URL": fm.base_url, "OPENAI_API_KEY": "k", "GG_MODEL": "fake-model"},
        )
        cmd = [str(BIN / "ggd"), "--stdio", "--workspace", str(workspace)]
        client = await ClientServerConfig(server_command=cmd, server_env=env).start()
        started.append((client, fm))
        client.asked = []  # type: ignore[attr-defined]
        if answer is not None:

            @client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)
            def ask(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem:
                client.asked.append(params)  # type: ignore[attr-defined]
                return lsp.MessageActionItem(title=answer)

        await client.initialize_session(
            lsp.InitializeParams(
                capabilities=client_capabilities(spec),
                root_uri=workspace.as_uri(),
                process_id=os.getpid(),
                client_info=lsp.ClientInfo(name=spec),
                initialization_options=options,
            )
        )
        return client, fm

    yield start
    for client, fm in started:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 10)
        await asyncio.wait_for(client.stop(), 10)
        fm.stop()


async def _ask(client: LanguageClient, command: str, arg: Any) -> dict[str, Any]:
    res = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=command, arguments=[arg])
    )
    return dict(res)


async def _logged(client: LanguageClient, text: str, within: float = 30) -> str:
    async def find() -> str:
        while True:
            for m in client.log_messages:
                if text in m.message:
                    return m.message
            await client.wait_for_notification(lsp.WINDOW_LOG_MESSAGE)

    return await asyncio.wait_for(find(), within)


async def _ended(client: LanguageClient, run_id: str, within: float = 30) -> None:
    """Wait for the run's work-done progress to end (every recorded editor declares it)."""

    async def find() -> None:
        while not any(
            isinstance(v, lsp.WorkDoneProgressEnd)
            for v in client.progress_reports.get(f"gg-{run_id}", [])
        ):
            await client.wait_for_notification(lsp.PROGRESS)

    await asyncio.wait_for(find(), within)


@pytest.mark.parametrize("spec", EDITORS)
async def test_every_recorded_editor_is_asked_and_its_allow_writes(
    editor: Any, workspace: Path, spec: str
) -> None:
    client, _fm = await editor(spec, WRITE)
    res = await _ask(client, "gg.ask", "write the notes")
    await _ended(client, res["runId"])
    # Emacs 29.1 declares no window.showMessage, yet eglot answers showMessageRequest.
    assert len(client.asked) == 1 and "write" in client.asked[0].message
    assert [a.title for a in client.asked[0].actions] == ["Allow", "Deny"]
    assert (workspace / "notes.md").read_text() == "# N\n"


async def test_an_editor_that_cannot_show_the_dialog_is_told_how_to_answer_elsewhere(
    editor: Any, workspace: Path
) -> None:
    client, fm = await editor("emacs@v29.1", WRITE, answer=None)  # MethodNotFound, by pygls
    res = await _ask(client, "gg.ask", "write the notes")
    await _logged(client, "The notes are written.")
    assert not (workspace / "notes.md").exists()
    denial = json.dumps(fm.requests[-1]["messages"][-1])
    assert "could not show the approval" in denial
    assert f"gg -r {res['sessionId']}" in denial and "web UI" in denial


@pytest.mark.parametrize(
    ("spec", "start"),
    [
        ("neovim@v0.7.0", 10),  # offers no encoding: UTF-16, the LSP default
        ("emacs@v29.1", 9),  # offers UTF-32 first: code points
        ("neovim@v0.11.0", 12),  # offers UTF-8 first: bytes
    ],
)
async def test_selection_counts_the_negotiated_encoding_and_reads_the_unsaved_buffer(
    editor: Any, workspace: Path, spec: str, start: int
) -> None:
    client, fm = await editor(spec, [{"text": "It greets."}])
    src = workspace / "hi.py"
    src.write_text("x = 1\n")  # on disk: not what the editor shows
    uri = src.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text="")
        )
    )
    buffer = 's = "\U0001f600"; greet(s)\nprint(s)\n'
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=buffer)],
        )
    )
    # `greet(s)` starts after the emoji, 8 units long in every encoding.
    rng = {"start": {"line": 0, "character": start}, "end": {"line": 0, "character": start + 8}}
    res = await _ask(client, "gg.askAboutSelection", {"uri": uri, "range": rng, "prompt": "What?"})
    await _ended(client, res["runId"])
    user = json.dumps(fm.requests[0]["messages"][-1])
    assert "```\\ngreet(s)\\n```" in user, user


async def test_requests_before_initialize_get_server_not_initialized(
    gg_home: Path, workspace: Path
) -> None:
    args = [str(BIN / "ggd"), "--stdio", "--workspace", str(workspace)]
    c = await RpcClient.stdio(args, daemon_env(gg_home))
    try:
        for method, params in (
            ("workspace/executeCommand", {"command": "gg.ask", "arguments": ["hi"]}),
            ("gg/session.list", {}),
            ("shutdown", None),
        ):
            with pytest.raises(RpcError) as info:
                await c.request(method, params)
            assert info.value.code == -32002 and info.value.symbol == "not_initialized", method
    finally:
        await c.close()


@pytest.mark.parametrize(("shutdown", "code"), [(False, 1), (True, 0)])
async def test_exit_ends_a_private_server_with_1_unless_shut_down_first(
    gg_home: Path, workspace: Path, shutdown: bool, code: int
) -> None:
    args = [str(BIN / "ggd"), "--stdio", "--workspace", str(workspace)]
    c = await RpcClient.stdio(args, daemon_env(gg_home))
    try:
        await c.initialize(workspace, name="lifecycle")
        if shutdown:
            await c.request("shutdown")
        await c.notify("exit")  # stdin stays open: only `exit` ends the server
        assert c.proc is not None
        assert await asyncio.wait_for(c.proc.wait(), 20) == code
    finally:
        await c.close()


async def test_a_dead_parent_process_ends_a_private_server(gg_home: Path, workspace: Path) -> None:
    """`initialize` names a processId that dies: ggd exits without a word from its client."""
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    server = subprocess.Popen(
        [str(BIN / "ggd"), "--stdio", "--workspace", str(workspace)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=daemon_env(gg_home),
    )
    try:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": parent.pid, "rootUri": workspace.as_uri(), "capabilities": {}},
        }
        body = json.dumps(init).encode()
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()
        head = server.stdout.readline()  # the initialize answer: the server is serving
        assert head.startswith(b"Content-Length"), head
        with pytest.raises(subprocess.TimeoutExpired):
            server.wait(1)  # alive while its parent lives
        parent.kill()
        parent.wait()
        assert server.wait(20) == 0  # stdin is still open: only the dead parent ended it
    finally:
        parent.kill()
        server.kill()
        server.wait()


async def test_a_client_leaving_through_gg_bridge_mid_run_cancels_its_run(fake_daemon) -> None:
    """shutdown + exit through `gg bridge` to a shared daemon: the run it started is canceled."""
    d, _fm = fake_daemon([{"text": "I will never finish", "hang": True}])
    cfg = ClientServerConfig(server_command=[str(BIN / "gg"), "bridge"], server_env=d.env)
    client = await cfg.start()
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("neovim@v0.7.0"),
            root_uri=d.workspace.as_uri(),
            client_info=lsp.ClientInfo(name="bridged"),
        )
    )
    watcher: RpcClient = await d.open("unix")
    await watcher.initialize(d.workspace, name="watcher")
    try:
        res = await _ask(client, "gg.ask", "work forever")
        await watcher.request("gg/run.subscribe", {"runId": res["runId"]})
        await watcher.wait_for("gg/run.event", lambda p: p["type"] == "text_delta", 30)
        await client.shutdown_session()  # shutdown, exit; the bridge then ends
        await watcher.wait_for("gg/run.event", lambda p: p["type"] == "run_canceled", 30)
        status = await watcher.request("gg/run.get", {"runId": res["runId"]})
        assert status["status"] == "canceled", status
    finally:
        await watcher.close()
        await client.stop()
