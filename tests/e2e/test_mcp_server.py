"""`ggd --mcp` driven by the mcp SDK's own client: gg_ask runs on the one runtime."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.fakes.fake_openai import FakeModel

from .daemon import daemon_env

BIN = Path(sys.executable).parent


def _params(env: dict[str, str], workspace: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "ggd.daemon", "--mcp", "--workspace", str(workspace)],
        env=env,
        cwd=str(workspace),
    )


def _text(result: Any) -> str:
    assert not result.is_error, result
    return "".join(b.text for b in result.content if b.type == "text")


def _sessions(env: dict[str, str], workspace: Path, *extra: str) -> list[dict[str, Any]]:
    out = subprocess.run(
        [str(BIN / "gg"), "sessions", "list", "--json", *extra],
        env=env,
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


async def _ask_twice(env: dict[str, str], workspace: Path) -> tuple[dict[str, Any], str, str]:
    async with stdio_client(_params(env, workspace)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            assert {"gg_ask", "gg_sessions", "gg_session_read"} <= names
            first = json.loads(_text(await session.call_tool("gg_ask", {"prompt": "say hi"})))
            again = json.loads(
                _text(
                    await session.call_tool(
                        "gg_ask", {"prompt": "and again", "sessionId": first["sessionId"]}
                    )
                )
            )
            assert again["sessionId"] == first["sessionId"]
            listed = _text(await session.call_tool("gg_sessions", {}))
            read = _text(
                await session.call_tool("gg_session_read", {"sessionId": first["sessionId"]})
            )
            return first | {"second": again["answer"]}, listed, read


async def test_gg_ask_attaches_to_the_running_daemon(fake_daemon, workspace: Path) -> None:
    d, fm = fake_daemon([{"text": "hello from gg"}, {"text": "second answer"}])
    first, listed, read = await _ask_twice(d.env, workspace)
    assert first["answer"] == "hello from gg" and first["status"] == "completed"
    assert first["second"] == "second answer"
    assert first["sessionId"] in listed
    messages = json.loads(read)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert len(fm.requests) == 2  # the daemon's model served both: one runtime
    # The run is an ordinary session of the workspace, seen by the CLI through the daemon.
    ids = [s["id"] for s in _sessions(d.env, workspace)]
    assert first["sessionId"] in ids


async def test_gg_ask_without_a_daemon_uses_a_private_child(gg_home: Path, workspace: Path) -> None:
    with FakeModel([{"text": "private answer"}, {"text": "two"}]) as fm:
        env = daemon_env(
            gg_home,
            {
                "OPENAI_BASE_URL": fm.base_url,
                "OPENAI_API_KEY": "test-key",
                "GG_MODEL": "fake-model",
            },
        )
        first, _listed, _read = await _ask_twice(env, workspace)
        assert first["answer"] == "private answer"
        ids = [s["id"] for s in _sessions(env, workspace, "--no-daemon")]
        assert first["sessionId"] in ids


async def test_approvals_are_asked_through_elicitation(fake_daemon, workspace: Path) -> None:
    import mcp_types as types

    script = [
        {"toolCalls": [{"name": "write", "arguments": {"path": "notes.md", "content": "hi\n"}}]},
        {"text": "written"},
    ]
    d, _fm = fake_daemon(script)
    asked: list[str] = []

    async def elicit(_ctx: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"allow": True})

    async with stdio_client(_params(d.env, workspace)) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            await session.initialize()
            out = json.loads(_text(await session.call_tool("gg_ask", {"prompt": "write notes"})))
    assert out["answer"] == "written"
    assert len(asked) == 1 and "notes.md" in asked[0]
    assert (workspace / "notes.md").read_text() == "hi\n"


async def test_errors_version_structured_content_resources_and_prompts(
    fake_daemon, workspace: Path
) -> None:
    from ggd import __version__

    d, _fm = fake_daemon([{"text": "hello from gg"}])
    async with stdio_client(_params(d.env, workspace)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "gg" and init.server_info.version == __version__

            # A gg error reaches the client with its message, as a tool error.
            missing = await session.call_tool("gg_session_read", {"sessionId": "s_nope"})
            assert missing.is_error
            text = "".join(b.text for b in missing.content if b.type == "text")
            assert "no session with id 's_nope'" in text, text
            bad = await session.call_tool("gg_session_read", {})
            assert bad.is_error and "sessionId" in "".join(b.text for b in bad.content)

            # Structured content is an object, not JSON inside a string.
            asked = await session.call_tool("gg_ask", {"prompt": "say hi"})
            assert not asked.is_error
            sc = asked.structured_content
            assert isinstance(sc, dict) and sc["answer"] == "hello from gg", sc
            assert sc["status"] == "completed"
            listed = (await session.call_tool("gg_sessions", {})).structured_content
            assert [s["id"] for s in listed["sessions"]] == [sc["sessionId"]]
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert tools["gg_ask"].output_schema["properties"]["sessionId"]

            # Sessions are resources; the prompt brings one into the chat.
            uris = [str(r.uri) for r in (await session.list_resources()).resources]
            assert uris == ["gg://sessions"]
            templates = (await session.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["gg://session/{sessionId}"]
            body = await session.read_resource(f"gg://session/{sc['sessionId']}")
            messages = json.loads(body.contents[0].text)["messages"]
            assert [m["role"] for m in messages] == ["user", "assistant"]
            prompts = [p.name for p in (await session.list_prompts()).prompts]
            assert prompts == ["gg_session"]
            got = await session.get_prompt("gg_session", {"sessionId": sc["sessionId"]})
            assert [m.content.text for m in got.messages] == ["say hi", "hello from gg"]


async def _run_started(watcher: Any) -> str:
    ev = await watcher.wait_for(
        "gg/session.event", lambda p: p["type"] == "run_started", timeout=30
    )
    return str(ev["runId"])


async def _ended_as(watcher: Any, run_id: str) -> str:
    ev = await watcher.wait_for(
        "gg/session.event",
        lambda p: p["type"] == "run_finished" and p.get("runId") == run_id,
        timeout=30,
    )
    status = await watcher.request("gg/run.get", {"runId": run_id})
    assert status["status"] == ev["status"]
    return str(ev["status"])


HANG = [{"text": "I will never finish", "hang": True}]


async def test_cancelling_gg_ask_cancels_its_run_on_the_shared_daemon(
    fake_daemon, workspace: Path
) -> None:
    d, _fm = fake_daemon(HANG)
    watcher = await d.open("unix")
    await watcher.initialize(workspace, name="watcher")
    try:
        async with stdio_client(_params(d.env, workspace)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                call = asyncio.ensure_future(session.call_tool("gg_ask", {"prompt": "hang"}))
                run_id = await _run_started(watcher)
                call.cancel()  # the SDK sends notifications/cancelled for it
                with contextlib.suppress(asyncio.CancelledError):
                    await call
                assert await _ended_as(watcher, run_id) == "canceled"
                # The server is still usable after the cancel.
                assert not (await session.call_tool("gg_sessions", {})).is_error
    finally:
        await watcher.close()


async def test_a_client_closing_stdin_mid_ask_cancels_its_run(fake_daemon, workspace: Path) -> None:
    d, _fm = fake_daemon(HANG)
    watcher = await d.open("unix")
    await watcher.initialize(workspace, name="watcher")
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ggd.daemon",
            "--mcp",
            "--workspace",
            str(workspace),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=d.env,
        )
        assert proc.stdin is not None and proc.stdout is not None

        async def send(msg: dict[str, Any]) -> None:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(msg).encode() + b"\n")
            await proc.stdin.drain()

        await send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert json.loads(await asyncio.wait_for(proc.stdout.readline(), 30))["id"] == 1
        await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "gg_ask", "arguments": {"prompt": "hang"}}
        await send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        run_id = await _run_started(watcher)
        proc.stdin.close()  # the client goes away without a word
        assert await _ended_as(watcher, run_id) == "canceled"
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await watcher.close()


async def test_yolo_from_the_calling_agent_needs_allow_yolo(fake_daemon, workspace: Path) -> None:
    write = {"name": "write", "arguments": {"path": "notes.md", "content": "hi\n"}}
    d, fm = fake_daemon([{"toolCalls": [write]}, {"text": "written"}])
    params = _params(d.env, workspace)
    async with stdio_client(params) as (read, write_stream):
        async with ClientSession(read, write_stream) as session:
            await session.initialize()
            for mode in ("yolo", "never"):  # both run writes with nobody approving
                refused = await session.call_tool(
                    "gg_ask", {"prompt": "write notes", "approvalMode": mode}
                )
                assert refused.is_error, refused
                text = "".join(b.text for b in refused.content if b.type == "text")
                assert f"approvalMode '{mode}'" in text and "--allow-yolo" in text, text
            # gg's own errors reach the caller with their reason, not the SDK's bare notice.
            missing = await session.call_tool("gg_session_read", {"sessionId": "s_0000"})
            said = "".join(b.text for b in missing.content if b.type == "text")
            assert missing.is_error and "s_0000" in said, said
    assert fm.requests == [] and not (workspace / "notes.md").exists()

    params.args = [*params.args, "--allow-yolo"]
    async with stdio_client(params) as (read, write_stream):
        async with ClientSession(read, write_stream) as session:
            await session.initialize()
            out = await session.call_tool(
                "gg_ask", {"prompt": "write notes", "approvalMode": "yolo"}
            )
    assert json.loads(_text(out))["answer"] == "written"
    assert (workspace / "notes.md").read_text() == "hi\n"
