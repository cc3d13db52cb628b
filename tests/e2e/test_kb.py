"""Knowledge bases through a real daemon, the real CLI and a fake /v1/embeddings on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_embeddings import FakeEmbeddings

from .rpc_client import RpcError
from .runs_helpers import finish, new_session, start

GG = str(Path(sys.executable).parent / "gg")


@pytest.fixture
def fake_emb() -> Iterator[FakeEmbeddings]:
    f = FakeEmbeddings()
    yield f
    f.close()


def _env(fe: FakeEmbeddings, model: str = "fake-embed") -> dict[str, str]:
    return {"GG_EMBEDDINGS_BASE_URL": fe.base_url, "GG_EMBEDDINGS_MODEL": model}


def _docs(ws: Path) -> Path:
    d = ws / "docs"
    d.mkdir()
    (d / "deploy.md").write_text(
        "# Deploy\n\nShip with `make release`.\n\n## Rollback\n\nRun `make rollback` to undo a release.\n"
    )
    (d / "billing.md").write_text("# Billing\n\nInvoices are sent on the first of the month.\n")
    (d / "tool.py").write_text(
        "def checksum(data):\n    '''Adler-32 of the bytes.'''\n    return 1\n"
    )
    (d / ".gitignore").write_text("secret.md\n")
    (d / "secret.md").write_text("# Secret\n\nthe launch codes\n")
    return d


async def test_index_is_incremental_and_reports_progress(
    fake_daemon: Any, fake_emb: FakeEmbeddings, workspace: Path
) -> None:
    docs = _docs(workspace)
    d, _fm = fake_daemon([], env=_env(fake_emb))
    c = await d.connect("unix")
    first = await c.request("gg/kb.index", {"path": "docs", "name": "docs"}, timeout=60)
    assert (first["files"], first["changed"], first["model"]) == (3, 3, "fake-embed")
    assert first["embedded"] == len(fake_emb.inputs()) > 0
    assert first["skipped"]["ignored"] >= 1
    assert not any("launch codes" in t for t in fake_emb.inputs())  # .gitignore honoured
    phases = [p["phase"] for p in c.events("gg/kb.progress")]
    assert phases[0] == "scan" and "embed" in phases and phases[-1] == "done"

    fake_emb.clear()
    again = await c.request("gg/kb.index", {"path": "docs", "name": "docs"}, timeout=60)
    assert again["unchanged"] == 3 and again["embedded"] == 0
    assert fake_emb.requests == []  # the endpoint got no request at all

    (docs / "billing.md").write_text("# Billing\n\nInvoices are sent on the fifteenth.\n")
    third = await c.request("gg/kb.index", {"path": "docs", "name": "docs"}, timeout=60)
    assert third["changed"] == 1 and third["embedded"] >= 1
    sent = fake_emb.inputs()
    assert sent and all(t.startswith("billing.md") for t in sent)

    (docs / "tool.py").unlink()
    assert (await c.request("gg/kb.index", {"path": "docs"}, timeout=60))["deleted"] == 1

    res = await c.request("gg/kb.search", {"query": "how do I undo a release", "topK": 3})
    top = res["hits"][0]
    assert res["mode"] == "hybrid" and top["path"] == "deploy.md"
    assert top["heading"] == "Deploy > Rollback" and top["startLine"] == 5
    assert "rollback" in top["snippet"]
    listed = await c.request("gg/kb.list")
    assert [(b["name"], b["files"], b["model"]) for b in listed["bases"]] == [
        ("docs", 2, "fake-embed")
    ]
    await c.close()


async def test_an_unknown_base_is_the_kb_capabilitys_own_error(
    fake_daemon: Any, fake_emb: FakeEmbeddings
) -> None:
    # kb_not_found is declared by the kb package (not the core's table, not artifacts' code).
    d, _fm = fake_daemon([], env=_env(fake_emb))
    c = await d.connect("unix")
    for method, params in (
        ("gg/kb.search", {"query": "release", "name": "nope"}),
        ("gg/kb.remove", {"name": "nope"}),
    ):
        with pytest.raises(RpcError) as err:
            await c.request(method, params)
        assert (err.value.code, err.value.symbol) == (-32016, "kb_not_found"), method
        assert "gg kb list" in err.value.message and err.value.data["retryable"] is False
    await c.close()


async def test_a_query_with_another_embedding_model_fails_closed(
    fake_daemon: Any, fake_emb: FakeEmbeddings, workspace: Path
) -> None:
    _docs(workspace)
    d, _fm = fake_daemon([], env=_env(fake_emb, "model-a"))
    c = await d.connect("unix")
    await c.request("gg/kb.index", {"path": "docs", "name": "docs"}, timeout=60)
    await c.close()
    d.stop()
    fake_emb.clear()
    d2, _ = fake_daemon([], env=_env(fake_emb, "model-b"))
    c = await d2.connect("unix")
    with pytest.raises(RpcError) as err:
        await c.request("gg/kb.search", {"query": "release", "name": "docs"})
    assert err.value.code == -32014 and "model-a" in err.value.message
    assert "model-b" in err.value.message and fake_emb.requests == []
    with pytest.raises(RpcError) as err:
        await c.request("gg/kb.index", {"path": "docs", "name": "docs"}, timeout=60)
    assert err.value.code == -32014
    bm25 = await c.request("gg/kb.search", {"query": "release", "name": "docs", "mode": "bm25"})
    assert bm25["hits"][0]["path"] == "deploy.md"
    await c.close()


async def test_the_daemon_keeps_serving_while_an_index_waits_on_embeddings(
    fake_daemon: Any, fake_emb: FakeEmbeddings, workspace: Path
) -> None:
    _docs(workspace)
    d, _fm = fake_daemon([], env=_env(fake_emb))
    c = await d.connect("unix")
    fake_emb.gate.clear()
    job = asyncio.create_task(c.request("gg/kb.index", {"path": "docs"}, timeout=60))
    await asyncio.to_thread(fake_emb.wait_for_requests, 1)
    info = await c.request("gg/system.info", timeout=5)  # answered while the index is held
    assert info["protocolVersion"]
    assert not job.done()
    fake_emb.gate.set()
    assert (await job)["files"] == 3
    await c.close()


async def test_kb_search_tool_runs_without_approval(
    fake_daemon: Any, fake_emb: FakeEmbeddings, workspace: Path
) -> None:
    _docs(workspace)
    script = [
        {"toolCalls": [{"id": "k1", "name": "kb_search", "arguments": {"query": "rollback"}}]},
        {"text": "use make rollback"},
    ]
    d, fm = fake_daemon(script, env=_env(fake_emb))
    c = await d.connect("unix")
    caps = (await c.request("gg/system.info"))["capabilities"]
    assert "kb.search" not in caps  # nothing indexed yet: no tool
    await c.request("gg/kb.index", {"path": "docs", "name": "docs"}, timeout=60)
    await c.close()
    c = await d.connect("unix")
    assert "kb.search" in (await c.request("gg/system.info"))["capabilities"]
    sid = await new_session(c)
    run_id = await start(c, sid, "how do I roll back?", interactive=True)
    assert (await finish(c, run_id))["type"] == "run_completed"
    events = c.events(run_id=run_id)
    assert not any(e["type"] == "approval_requested" for e in events)
    done = next(e for e in events if e["type"] == "tool_call_finish")
    assert "deploy.md:5-7 (Deploy > Rollback)" in done["output"]
    second = fm.wait_for_requests(2)[1]
    tool_msgs = [m for m in second["messages"] if m.get("role") == "tool"]
    assert "make rollback" in tool_msgs[0]["content"]
    await c.close()


def test_the_cli_indexes_searches_evaluates_and_removes(
    fake_daemon: Any, fake_emb: FakeEmbeddings, workspace: Path
) -> None:
    docs = _docs(workspace)
    d, _fm = fake_daemon([], env=_env(fake_emb))
    env = {**d.env, "HOME": str(workspace.parent)}

    def gg(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [GG, *a], capture_output=True, text=True, env=env, cwd=workspace, timeout=120
        )

    out = gg("kb", "index", str(docs), "--name", "notes")
    assert out.returncode == 0, out.stderr
    assert "notes: 3 files (3 changed" in out.stdout and "embedded with fake-embed" in out.stdout
    assert "files" in out.stderr and "embed" in out.stderr  # the progress lines
    out = gg("kb", "search", "first of the month", "--top-k", "2")
    assert out.returncode == 0 and out.stdout.startswith("1. billing.md:1-3  [Billing]")
    out = gg("kb", "list")
    assert "notes" in out.stdout and "fake-embed (64d)" in out.stdout
    cases = workspace / "cases.jsonl"
    cases.write_text(
        "\n".join(
            json.dumps(c)
            for c in [
                {"query": "undo a release", "expect": ["deploy.md#Rollback"]},
                {"query": "when are invoices sent", "expect": ["billing.md"]},
                {"query": "adler checksum of bytes", "expect": ["tool.py"]},
            ]
        )
    )
    out = gg("kb", "eval", "--cases", str(cases), "--json")
    assert out.returncode == 0, out.stderr
    ev = json.loads(out.stdout)
    assert ev["cases"] == 3 and set(ev) >= {"bm25", "vector", "hybrid"}
    assert ev["bm25"]["recall"] == 1.0
    out = gg("kb", "search", "x", "--name", "nope")
    assert out.returncode != 0 and "no knowledge base named 'nope'" in out.stderr
    assert "Traceback" not in out.stderr
    bad = workspace / "bad.jsonl"
    bad.write_text('{"query": 1}\n')
    out = gg("kb", "eval", "--cases", str(bad))
    assert out.returncode != 0 and "bad.jsonl:1" in out.stderr and "Traceback" not in out.stderr
    assert gg("kb", "remove", "notes").returncode == 0
    assert "no knowledge base yet" in gg("kb", "list").stdout


async def test_credentials_gg_home_keys_and_links_never_reach_kb_search(
    fake_daemon: Any, gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    # A home-like folder: GG_HOME (gg_home) and the workspace are inside tmp_path too.
    user = tmp_path / "user"
    (user / ".ssh").mkdir(parents=True)
    key = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
    )
    (user / ".ssh" / "id_ed25519").write_text(key)
    (user / ".aws").mkdir()
    (user / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = AKIAFAKE\n")
    (user / "keys-backup.txt").write_text("PRIVATE KEY backup\n" + key)
    (user / "notes.md").write_text("# Notes\n\nRotate the PRIVATE KEY of the deploy bot yearly.\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("PRIVATE KEY of another folder\n")
    os.link(outside, user / "linked.txt")
    (user / "escape.md").symlink_to(outside)
    script = [
        {"toolCalls": [{"id": "k1", "name": "kb_search", "arguments": {"query": "PRIVATE KEY"}}]},
        {"text": "done"},
    ]
    d, fm = fake_daemon(script)
    c = await d.connect("unix")
    res = await c.request("gg/kb.index", {"path": str(tmp_path), "name": "all"}, timeout=120)
    q = {"query": "PRIVATE KEY", "name": "all", "topK": 50, "mode": "bm25"}
    paths = [h["path"] for h in (await c.request("gg/kb.search", q))["hits"]]
    assert "user/notes.md" in paths
    denied = {"user/keys-backup.txt", "user/linked.txt", "user/escape.md", "outside.txt"}
    assert not denied & set(paths)
    assert not [p for p in paths if p.startswith(("user/.ssh", "user/.aws"))]
    # .ssh, .aws, the key backup; both names of the hard-linked file (the folder holds both)
    assert res["skipped"]["private"] >= 3 and res["skipped"]["linked"] == 2
    # GG_HOME is under the folder: none of its files (the base itself, config) was indexed.
    q = {"query": "session kb index", "name": "all", "topK": 50, "mode": "bm25"}
    for h in (await c.request("gg/kb.search", q))["hits"]:
        assert not h["path"].startswith(gg_home.name + "/")
    with pytest.raises(RpcError) as err:
        await c.request("gg/kb.index", {"path": str(user / ".ssh"), "name": "keys"})
    assert err.value.code == -32602 and "credentials" in err.value.message
    with pytest.raises(RpcError):
        await c.request("gg/kb.index", {"path": str(gg_home), "name": "state"})
    await c.close()
    c = await d.connect("unix")
    sid = await new_session(c)
    run_id = await start(c, sid, "find the key", interactive=False)
    assert (await finish(c, run_id))["type"] == "run_completed"
    tool_msgs = [m for m in fm.wait_for_requests(2)[1]["messages"] if m.get("role") == "tool"]
    assert "notes.md" in tool_msgs[0]["content"]
    assert "BEGIN OPENSSH" not in tool_msgs[0]["content"]
    assert "b3BlbnNzaC1rZXkt" not in json.dumps(fm.wait_for_requests(2))
    await c.close()
