"""`ggd --acp` driven by the agent-client-protocol Python SDK's own client, on a real ggd."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TextContentBlock,
)

from tests.e2e.acp_child import acp_child, spawn_acp

EDIT_SCRIPT = [
    {
        "text": "Reading first.",
        "toolCalls": [{"id": "call_read", "name": "read", "arguments": {"path": "README.md"}}],
    },
    {
        "text": "Now the edit.",
        "toolCalls": [
            {
                "id": "call_edit",
                "name": "edit",
                "arguments": {
                    "path": "README.md",
                    "edits": [{"oldText": "# demo project", "newText": "# edited by gg"}],
                },
            }
        ],
    },
    {"text": "Done editing."},
]


class RecordingClient:
    """An ACP client that records updates, answers permissions and takes file writes."""

    def __init__(self, answer: str = "allow_once") -> None:
        self.answer = answer
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self.writes: list[tuple[str, str]] = []
        self.asked = asyncio.Event()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, [o.option_id for o in options]))
        self.asked.set()
        if self.answer == "cancel":
            await asyncio.Event().wait()  # never answered: the agent must not wait on it
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> None:
        self.writes.append((path, content))
        Path(path).write_text(content, encoding="utf-8")

    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]


@contextlib.asynccontextmanager
async def acp_agent(
    env: dict[str, str], workspace: Path, client: RecordingClient, fs: bool = True
) -> AsyncIterator[Any]:
    """`ggd --acp` as a child, connected and initialized."""
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs))
    async with acp_child(env, workspace, client, caps) as (conn, init):
        assert init.protocol_version == 1 and init.agent_capabilities.load_session
        yield conn


async def test_prompt_reads_edits_with_permission_and_writes_through_the_client(
    fake_daemon, workspace: Path
) -> None:
    d, fm = fake_daemon(EDIT_SCRIPT)
    client = RecordingClient("allow_once")
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        assert new.modes is not None and new.modes.current_mode_id == "auto"
        res = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id,
                prompt=[TextContentBlock(type="text", text="fix the title")],
            ),
            90,
        )
    assert res.stop_reason == "end_turn"
    readme = workspace / "README.md"
    assert readme.read_text() == "# edited by gg\n"
    # The edit reached the editor through fs/write_text_file, with the file's new content.
    assert client.writes == [(str(readme), "# edited by gg\n")]
    # One permission, for the edit, with the three options; the read needed none.
    assert len(client.permissions) == 1
    call, options = client.permissions[0]
    assert call.kind == "edit" and options == ["allow_once", "allow_always", "reject_once"]
    diff = call.content[0]
    assert diff.old_text == "# demo project\n" and diff.new_text == "# edited by gg\n"
    tools = [u for u in client.updates if u.session_update == "tool_call"]
    assert [(t.tool_call_id, t.kind) for t in tools] == [
        ("call_read", "read"),
        ("call_edit", "edit"),
    ]
    assert tools[0].locations[0].path == str(readme)
    done = [u for u in client.updates if u.session_update == "tool_call_update"]
    assert [(u.tool_call_id, u.status) for u in done] == [
        ("call_read", "completed"),
        ("call_edit", "completed"),
    ]
    text = "".join(
        u.content.text for u in client.updates if u.session_update == "agent_message_chunk"
    )
    assert "Done editing." in text
    assert len(fm.requests) == 3  # the daemon's runtime served every step


async def test_reject_once_leaves_the_file_alone(fake_daemon, workspace: Path) -> None:
    d, _ = fake_daemon(EDIT_SCRIPT)
    client = RecordingClient("reject_once")
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        res = await conn.prompt(
            session_id=new.session_id, prompt=[TextContentBlock(type="text", text="fix it")]
        )
    assert res.stop_reason == "end_turn"
    assert (workspace / "README.md").read_text() == "# demo project\n"
    assert client.writes == []
    edit = [u for u in client.updates if getattr(u, "tool_call_id", "") == "call_edit"]
    assert edit[-1].status == "failed"


async def test_cancel_during_a_permission_ends_the_prompt_cancelled(
    fake_daemon, workspace: Path
) -> None:
    d, _ = fake_daemon(EDIT_SCRIPT)
    client = RecordingClient("cancel")
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        prompt = asyncio.create_task(
            conn.prompt(
                session_id=new.session_id, prompt=[TextContentBlock(type="text", text="go")]
            )
        )
        await asyncio.wait_for(client.asked.wait(), 60)
        await conn.cancel(session_id=new.session_id)
        res = await asyncio.wait_for(prompt, 60)
    assert res.stop_reason == "cancelled"
    assert (workspace / "README.md").read_text() == "# demo project\n"


async def test_load_replays_history_and_modes_pass_through(fake_daemon, workspace: Path) -> None:
    d, fm = fake_daemon([{"text": "first answer"}, {"text": "second answer"}])
    first = RecordingClient()
    async with acp_agent(d.env, workspace, first) as conn:
        new = await conn.new_session(cwd=str(workspace))
        await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
        await conn.prompt(
            session_id=new.session_id, prompt=[TextContentBlock(type="text", text="hello")]
        )
        sid = new.session_id
    later = RecordingClient()
    async with acp_agent(d.env, workspace, later) as conn:
        await conn.load_session(cwd=str(workspace), session_id=sid)
        assert [(u.session_update, u.content.text) for u in later.updates] == [
            ("user_message_chunk", "hello"),
            ("agent_message_chunk", "first answer"),
        ]
        with pytest.raises(acp.RequestError):
            await conn.set_session_mode(session_id=sid, mode_id="bogus")
        res = await conn.prompt(
            session_id=sid, prompt=[TextContentBlock(type="text", text="again")]
        )
    assert res.stop_reason == "end_turn"
    assert len(fm.requests) == 2


async def test_unknown_session_is_a_clear_error(fake_daemon, workspace: Path) -> None:
    d, _ = fake_daemon([])
    async with acp_agent(d.env, workspace, RecordingClient()) as conn:
        with pytest.raises(acp.RequestError) as err:
            await conn.prompt(session_id="s_nope", prompt=[TextContentBlock(type="text", text="x")])
        assert "session/new" in str(err.value)
        with pytest.raises(acp.RequestError):
            await conn.load_session(cwd=str(workspace), session_id="s_nope")


TWO_WRITES = [
    {"toolCalls": [{"id": "w1", "name": "write", "arguments": {"path": "a.md", "content": "a\n"}}]},
    {"toolCalls": [{"id": "w2", "name": "write", "arguments": {"path": "b.md", "content": "b\n"}}]},
    {"text": "Both written."},
]


async def test_allow_always_asks_once_per_session(fake_daemon, workspace: Path) -> None:
    d, _ = fake_daemon(TWO_WRITES)
    client = RecordingClient("allow_always")
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        res = await conn.prompt(
            session_id=new.session_id, prompt=[TextContentBlock(type="text", text="write both")]
        )
    assert res.stop_reason == "end_turn"
    assert (workspace / "a.md").read_text() == "a\n" and (workspace / "b.md").read_text() == "b\n"
    assert len(client.permissions) == 1  # the second write was allowed by the session scope
    assert [Path(p).name for p, _ in client.writes] == ["a.md", "b.md"]


async def test_without_fs_capability_gg_writes_the_file_itself(
    fake_daemon, workspace: Path
) -> None:
    d, _ = fake_daemon(EDIT_SCRIPT)
    client = RecordingClient("allow_once")
    async with acp_agent(d.env, workspace, client, fs=False) as conn:
        new = await conn.new_session(cwd=str(workspace))
        await conn.prompt(
            session_id=new.session_id, prompt=[TextContentBlock(type="text", text="go")]
        )
    assert (workspace / "README.md").read_text() == "# edited by gg\n"
    assert client.writes == []


class ReadingClient(RecordingClient):
    """Also serves fs/read_text_file, failing for a missing file as editors (acpx) do."""

    def __init__(self, answer: str = "allow_once") -> None:
        super().__init__(answer)
        self.reads: list[str] = []

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))


async def test_a_new_file_is_written_without_reading_it_and_the_session_is_named(
    fake_daemon, workspace: Path
) -> None:
    script = [
        {
            "toolCalls": [
                {"id": "c1", "name": "write", "arguments": {"path": "new.md", "content": "hi\n"}}
            ]
        },
        {"text": "Created."},
    ]
    d, _ = fake_daemon(script)
    client = ReadingClient("allow_once")
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        res = await conn.prompt(
            session_id=new.session_id,
            prompt=[TextContentBlock(type="text", text="create the greeting file")],
        )
    assert res.stop_reason == "end_turn"
    target = workspace / "new.md"
    assert target.read_text() == "hi\n" and client.writes == [(str(target), "hi\n")]
    assert client.reads == []  # nothing to read: the file did not exist
    call, _options = client.permissions[0]
    assert call.content[0].old_text in (None, "") and call.content[0].new_text == "hi\n"
    # Named from its first prompt, as sessions of every other client are.
    watcher = await d.open("unix")
    try:
        await watcher.initialize(workspace, name="watcher")
        snap = await watcher.request("gg/session.get", {"sessionId": new.session_id})
        assert snap["name"] == "create the greeting file"
    finally:
        await watcher.close()


async def test_resume_attaches_without_replay(fake_daemon, workspace: Path) -> None:
    d, _ = fake_daemon([{"text": "first"}, {"text": "second"}])
    async with acp_agent(d.env, workspace, RecordingClient()) as conn:
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="one")])
    later = RecordingClient()
    async with acp_agent(d.env, workspace, later) as conn:
        resumed = await conn.resume_session(session_id=sid, cwd=str(workspace))
        assert resumed.modes is not None
        assert later.updates == []
        await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="two")])
    chunks = [u for u in later.updates if u.session_update == "agent_message_chunk"]
    assert [u.content.text for u in chunks] == ["second"]


async def test_bad_input_gets_typed_errors(fake_daemon, workspace: Path) -> None:
    d, _ = fake_daemon([])
    proc = await spawn_acp(d.env, workspace, stderr=True)
    assert proc.stdin is not None and proc.stdout is not None
    lines = [
        b"not json\n",
        b'{"jsonrpc":"2.0","id":1,"method":"session/nope","params":{}}\n',
        b'{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"relative/dir"}}\n',
        b'{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/no/such/dir"}}\n',
        b'{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":99}}\n',
    ]
    proc.stdin.write(b"".join(lines))
    await proc.stdin.drain()

    replies = [json.loads(await asyncio.wait_for(proc.stdout.readline(), 60)) for _ in lines]
    proc.stdin.close()
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    # A client asking for a newer protocol gets the one gg speaks.
    assert [r["result"]["protocolVersion"] for r in replies if r.get("id") == 4] == [1]
    by_id = {r.get("id"): r["error"] for r in replies if "error" in r}
    assert by_id[None]["code"] == -32700
    assert by_id[1]["code"] == -32601
    assert by_id[2]["code"] == -32602 and "absolute" in by_id[2]["message"]
    assert by_id[3]["code"] == -32602 and "/no/such" not in by_id[3]["message"]
    assert b"Traceback" not in err and proc.returncode == 0


async def test_yolo_mode_writes_without_asking(fake_daemon, workspace: Path) -> None:
    d, _ = fake_daemon(TWO_WRITES)
    client = RecordingClient("reject_once")
    async with acp_agent(d.env, workspace, client) as conn:
        sid = (await conn.new_session(cwd=str(workspace))).session_id
        await conn.set_session_mode(session_id=sid, mode_id="yolo")
        res = await conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
    assert res.stop_reason == "end_turn"
    assert client.permissions == []
    assert (workspace / "a.md").read_text() == "a\n" and (workspace / "b.md").read_text() == "b\n"


async def test_closing_the_editor_cancels_its_run_on_the_daemon(
    fake_daemon, workspace: Path
) -> None:
    from .runs_helpers import finish

    d, _ = fake_daemon([{"text": "never done", "hang": True}])
    client = RecordingClient()
    streamed = asyncio.Event()
    record = client.session_update

    async def on_update(session_id: str, update: Any, **kwargs: Any) -> None:
        await record(session_id, update)
        if update.session_update == "agent_message_chunk":
            streamed.set()

    client.session_update = on_update  # type: ignore[method-assign]
    watcher = await d.connect("unix")
    try:
        async with acp_agent(d.env, workspace, client) as conn:
            sid = (await conn.new_session(cwd=str(workspace))).session_id
            prompt = asyncio.create_task(
                conn.prompt(session_id=sid, prompt=[TextContentBlock(type="text", text="go")])
            )
            await asyncio.wait_for(streamed.wait(), 60)
            active = await watcher.request("gg/run.active", {"sessionId": sid})
            run_id = active["id"]
            await watcher.request("gg/run.subscribe", {"runId": run_id})
        # acp_agent closed the adapter's stdin: the editor is gone (its prompt lost the link).
        with pytest.raises(ConnectionError):
            await prompt
        done = await finish(watcher, run_id, timeout=60)
        assert done["type"] == "run_canceled"
    finally:
        await watcher.close()


TIME_SCRIPT = [
    {
        "toolCalls": [
            {"id": "t1", "name": "mcp_time_get_current_time", "arguments": {"timezone": "Etc/UTC"}}
        ]
    },
    {"text": "It is late."},
    {"text": "No servers now."},
]


def _children(pid: int) -> dict[int, str]:
    """Child processes of a pid: pid -> command line."""
    out: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                child = int(stat.parent.name)
                out[child] = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
    return out


async def test_the_editors_mcp_servers_are_connected_for_its_session(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    import time

    from acp.schema import EnvVariable, McpServerStdio

    from .daemon import wait_until

    assert not (gg_home / "mcp.json").exists()  # nothing configured: only the editor's server
    d, fm = fake_daemon(TIME_SCRIPT)
    client = RecordingClient("allow_once")
    time_server = McpServerStdio(
        name="time",
        command=sys.executable,
        args=["-m", "mcp_server_time"],
        env=[EnvVariable(name="FROM_EDITOR", value="1")],
    )
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[time_server])
        res = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id,
                prompt=[TextContentBlock(type="text", text="what time is it?")],
            ),
            90,
        )
        assert d.proc is not None
        servers = [p for p, cmd in _children(d.proc.pid).items() if "mcp_server_time" in cmd]
        assert len(servers) == 1  # the daemon runs it, once, for that session
    assert res.stop_reason == "end_turn"
    # The call was approval-gated through the editor, then ran on the editor's server.
    (ask,) = client.permissions
    assert ask[0].title == "MCP server time: call get_current_time"
    assert ask[0].tool_call_id == "t1" and ask[0].raw_input == {"timezone": "Etc/UTC"}
    year = time.gmtime().tm_year
    done = [u for u in client.updates if getattr(u, "tool_call_id", "") == "t1"]
    assert done[-1].status == "completed"
    assert f"{year}-" in done[-1].content[0].content.text
    tool_msgs = [m for m in fm.wait_for_requests(2)[1]["messages"] if m["role"] == "tool"]
    assert f"{year}-" in tool_msgs[-1]["content"] and "Etc/UTC" in tool_msgs[-1]["content"]
    # The editor comes back without servers: resume replaces the list, the next turn closes it.
    async with acp_agent(d.env, workspace, RecordingClient()) as conn:
        await conn.resume_session(session_id=new.session_id, cwd=str(workspace), mcp_servers=[])
        await conn.prompt(
            session_id=new.session_id, prompt=[TextContentBlock(type="text", text="again")]
        )
    await wait_until(lambda: _zombie(servers[0]))
    assert "mcp_time" not in json.dumps(fm.wait_for_requests(3)[2].get("tools", []))
    assert "mcp_time" not in fm.wait_for_requests(3)[2]["messages"][0]["content"]
    assert d.stop() == 0


def _zombie(pid: int) -> bool:
    """Whether a process is gone or only a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


async def test_an_unsupported_mcp_transport_is_a_clear_error(fake_daemon, workspace: Path) -> None:
    from acp.schema import SseMcpServer

    d, _ = fake_daemon([])
    async with acp_agent(d.env, workspace, RecordingClient()) as conn:
        sse = SseMcpServer(type="sse", name="old", url="http://127.0.0.1:9/sse", headers=[])
        with pytest.raises(acp.RequestError) as err:
            await conn.new_session(cwd=str(workspace), mcp_servers=[sse])
        assert "stdio and http" in str(err.value)


def _png(color: tuple[int, int, int]) -> bytes:
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (16, 12), color).save(buf, "PNG")
    return buf.getvalue()


async def test_image_blocks_reach_the_model_as_image_parts(
    fake_daemon, workspace: Path, gg_home: Path
) -> None:
    import base64

    from acp.schema import ImageContentBlock

    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    # The fake model's provider (baseUrl from OPENAI_BASE_URL) takes images for fake-model.
    (gg_home / "config.json").write_text(
        json.dumps({"providers": {"openai": {"images": ["fake-model"]}}})
    )
    d, fm = fake_daemon([{"text": "A green picture."}])
    shot = _png((0, 200, 0))
    data = base64.b64encode(shot).decode()
    client = RecordingClient()
    async with acp_child(d.env, workspace, client, ClientCapabilities()) as (conn, init):
        assert init.agent_capabilities.prompt_capabilities.image is True
        new = await conn.new_session(cwd=str(workspace))
        res = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id,
                prompt=[
                    TextContentBlock(type="text", text="what colour?"),
                    ImageContentBlock(type="image", data=data, mime_type="image/png"),
                ],
            ),
            90,
        )
        assert res.stop_reason == "end_turn"
        sid = new.session_id
    later = RecordingClient()
    async with acp_agent(d.env, workspace, later) as conn:
        await conn.load_session(cwd=str(workspace), session_id=sid)
    replay = [(u.session_update, u.content) for u in later.updates]
    assert replay[0] == ("user_message_chunk", TextContentBlock(type="text", text="what colour?"))
    kind, block = replay[1]
    assert kind == "user_message_chunk" and block.type == "image"
    assert (block.data, block.mime_type) == (data, "image/png")
    (body,) = fm.requests
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    assert user["content"][0] == {"type": "text", "text": "what colour?"}
    url = user["content"][1]["image_url"]["url"]
    assert url == f"data:image/png;base64,{data}"


async def test_an_image_block_for_a_model_without_images_is_a_clear_prompt_error(
    fake_daemon, workspace: Path
) -> None:
    from acp.schema import ImageContentBlock

    d, fm = fake_daemon([{"text": "unused"}])  # fake-model: no images by default
    client = RecordingClient()
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        with pytest.raises(acp.RequestError) as info:
            await asyncio.wait_for(
                conn.prompt(
                    session_id=new.session_id,
                    prompt=[
                        TextContentBlock(type="text", text="look"),
                        ImageContentBlock(type="image", data="aGk=", mime_type="image/png"),
                    ],
                ),
                90,
            )
    assert info.value.code == -32602
    assert "takes no images" in str(info.value)
    assert fm.requests == []


async def test_a_screenshot_over_one_message_goes_to_the_local_ggd_as_a_file(
    fake_daemon, workspace: Path, gg_home: Path
) -> None:
    import base64
    import io
    import os

    from acp.schema import ImageContentBlock
    from PIL import Image

    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(json.dumps({"providers": {"openai": {"images": True}}}))
    d, fm = fake_daemon([{"text": "Noise."}])
    buf = io.BytesIO()
    Image.frombytes("RGB", (1600, 1200), os.urandom(1600 * 1200 * 3)).save(buf, "PNG")
    data = base64.b64encode(buf.getvalue()).decode()
    assert len(data) > 4 * 1024 * 1024  # more than ggd takes in one JSON-RPC message
    client = RecordingClient()
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        res = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id,
                prompt=[
                    TextContentBlock(type="text", text="what is it?"),
                    ImageContentBlock(type="image", data=data, mime_type="image/png"),
                ],
            ),
            90,
        )
    assert res.stop_reason == "end_turn"
    (body,) = fm.requests
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    url = user["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")  # ggd read the file and re-encoded it
    sent = Image.open(io.BytesIO(base64.b64decode(url.partition(",")[2])))
    assert sent.size == (1600, 1200)


async def test_usage_updates_carry_the_sessions_cost_and_a_budget_stop_is_an_error(
    fake_daemon, workspace: Path, gg_home: Path
) -> None:
    gg_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = {
        "providers": {"openai": {"contextWindow": 8000}},
        "prices": {"openai:fake-model": {"input": 2, "cachedInput": 0.5, "output": 8}},
        "budget": {"session": {"maxCostUsd": 0.002}},
    }
    (gg_home / "config.json").write_text(json.dumps(config))
    usage = {"prompt": 1000, "completion": 100, "cached": 800}  # $0.0016
    d, fm = fake_daemon([{"text": "One.", "usage": usage}, {"text": "Two.", "usage": usage}])
    client = RecordingClient()
    async with acp_agent(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        first = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id, prompt=[TextContentBlock(type="text", text="a")]
            ),
            60,
        )
        second = await asyncio.wait_for(
            conn.prompt(
                session_id=new.session_id, prompt=[TextContentBlock(type="text", text="b")]
            ),
            60,
        )
        with pytest.raises(acp.RequestError) as stopped:
            await asyncio.wait_for(
                conn.prompt(
                    session_id=new.session_id, prompt=[TextContentBlock(type="text", text="c")]
                ),
                60,
            )
    assert first.stop_reason == second.stop_reason == "end_turn"
    updates = [u for u in client.updates if u.session_update == "usage_update"]
    assert [(u.used, u.size) for u in updates] == [(1000, 8000), (1000, 8000)]
    assert [(u.cost.amount, u.cost.currency) for u in updates] == [
        (pytest.approx(0.0016), "USD"),
        (pytest.approx(0.0032), "USD"),
    ]
    assert "session budget reached: $0.0032 of maxCostUsd $0.002" in str(stopped.value)
    assert len(fm.requests) == 2
