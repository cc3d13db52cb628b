"""The tools (approval, events) and the handlers' local/remote rules, on real files."""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ggd.app import HandlerContext
from ggd.app.approvers import UnattendedApprover
from ggd.app.run import Run
from ggd.capabilities.artifacts import CAPABILITY, handlers
from ggd.capabilities.artifacts import protocol as P
from ggd.capabilities.artifacts.artifact_store import ArtifactStore
from ggd.protocol import SessionEvent
from ggd.protocol import errors as E
from ggd.providers.types import ToolCall
from ggd.tools import ToolContext, ToolError


def _tools(home: Path) -> tuple[list[Any], list[SessionEvent]]:
    from ggd.capabilities.artifacts.tools import artifact_tools

    events: list[SessionEvent] = []
    return artifact_tools(home, events.append, "s_1"), events


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path, log_dir=tmp_path / "logs", session_id="s_1")


async def test_create_and_edit_need_approval_and_publish_session_events(tmp_path: Path) -> None:
    (create, edit), events = _tools(tmp_path)
    ctx = _ctx(tmp_path)
    args = {"title": "Plan", "type": "markdown", "content": "# Plan\nstep one\n"}
    info = create.describe(args, ctx)
    assert info.needs_approval and "Plan" in info.summary and "markdown" in info.summary
    assert "16 bytes" in info.summary and "+step one" in (info.details or "")
    done = await create.run(args, ctx)
    artifact_id = done.details["artifactId"]
    assert [e.wire() for e in events] == [
        {
            "sessionId": "s_1",
            "type": "artifact_created",
            "artifactId": artifact_id,
            "version": 1,
            "name": "Plan",
        }
    ]
    edit_args = {"artifactId": artifact_id, "content": "# Plan\nstep two\n"}
    info = edit.describe(edit_args, ctx)
    assert info.needs_approval and "v2" in info.summary
    assert "-step one" in (info.details or "") and "+step two" in (info.details or "")
    await edit.run(edit_args, ctx)
    assert events[-1].type == "artifact_updated" and events[-1].version == 2
    with pytest.raises(ToolError, match="1 MiB"):
        await edit.run({"artifactId": artifact_id, "content": "x" * (1 << 21)}, ctx)
    with pytest.raises(ToolError, match="no artifact"):
        await edit.run({"artifactId": "a_000000000000", "content": "x"}, ctx)


async def test_the_unattended_approver_denies_both_tools(tmp_path: Path) -> None:
    tools, _ = _tools(tmp_path)
    run = Run(session_id="s_1", interactive=False, approval_mode="auto", model="m")
    for tool, args in zip(
        tools,
        [{"title": "T", "type": "html", "content": "x"}, {"artifactId": "a_1", "content": "y"}],
        strict=True,
    ):
        info = tool.describe(args, _ctx(tmp_path))
        call = ToolCall(id="c1", name=tool.name, arguments=args)
        decision = await UnattendedApprover().decide(run, call, tool, info)
        assert not decision.allow and tool.name in decision.reason
    assert not (tmp_path / "artifacts").exists()


@dataclass
class _Services:
    home: Path


def _hctx(home: Path, remote: bool) -> HandlerContext:
    return HandlerContext(
        services=_Services(home),  # type: ignore[arg-type]
        workspace=None,  # type: ignore[arg-type]
        config=None,
        notify=lambda _m, _p: True,
        remote=remote,
    )


async def test_adding_by_path_is_for_local_clients_only(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("hello")
    params = P.LibraryAddParams(path=str(src))
    with pytest.raises(E.InvalidParamsError, match="daemon's machine"):
        await handlers.library_add(_hctx(tmp_path, remote=True), params)
    remote_list = await handlers.library_list(_hctx(tmp_path, remote=True), None)
    assert remote_list.items == [] and remote_list.path is None
    added = await handlers.library_add(_hctx(tmp_path, remote=False), params)
    assert added.item.name == "in.txt" and added.item.source == "file"
    local_list = await handlers.library_list(_hctx(tmp_path, remote=False), None)
    assert local_list.path == str(tmp_path / "library")


async def test_uploads_and_downloads_round_trip_in_chunks(tmp_path: Path) -> None:
    ctx = _hctx(tmp_path, remote=True)
    data = bytes(range(256)) * 8192  # 2 MiB: exactly one full chunk
    up = await handlers.library_add(
        ctx, P.LibraryAddParams(name="blob.bin", content=base64.b64encode(data).decode())
    )
    first = await handlers.library_get(ctx, P.LibraryGetParams(item_id=up.item.id))
    assert base64.b64decode(first.content) == data and first.eof
    small = await handlers.library_add(
        ctx, P.LibraryAddParams(name="blob.bin", content=base64.b64encode(b"abc").decode())
    )
    assert small.item.name == "blob (2).bin"
    with pytest.raises(E.InvalidParamsError, match="base64"):
        await handlers.library_add(ctx, P.LibraryAddParams(name="x", content="!!!"))
    with pytest.raises(ValueError, match="exactly one"):
        P.LibraryAddParams(name="x")


async def test_publish_through_the_handler(tmp_path: Path) -> None:
    meta = ArtifactStore(tmp_path).create("Page", "html", "<p>hi</p>", "s_1")
    ctx = _hctx(tmp_path, remote=True)
    res = await handlers.artifact_publish(ctx, P.ArtifactIdParams(artifact_id=meta.id))
    assert res.artifact.published_version == 1 and res.item.name == "Page.html"
    listed = await handlers.artifact_list(ctx, None)
    assert [a.id for a in listed.artifacts] == [meta.id]
    assert CAPABILITY.name == "artifacts" and set(CAPABILITY.handlers) == {
        m.name for m in CAPABILITY.methods
    }


async def test_adding_by_path_takes_regular_files_only(tmp_path: Path) -> None:
    ctx = _hctx(tmp_path, remote=False)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path, why in [
        (fifo, "not a regular file"),  # opening it must not hang waiting for a writer
        (tmp_path, "folder"),
        (tmp_path / "missing", "no file"),
    ]:
        with pytest.raises(E.InvalidParamsError, match=why):
            await handlers.library_add(ctx, P.LibraryAddParams(path=str(path)))
    with pytest.raises(E.InvalidParamsError, match="absolute"):
        await handlers.library_add(ctx, P.LibraryAddParams(path="relative.txt"))
