"""Context cost: the bytes of the first model request with every capability of this round configured.

    .venv/bin/python bench/context.py [--json] [--bare]

A fresh ggd against the scripted fake model, configured like a full desktop install: memory on
(with a profile), two workspace skills, two real MCP servers (mcp-server-time, and the npm
server-everything from tests/mcp when installed, else a second mcp-server-time), the browser
(Chromium and Playwright present), the image, tts and stt endpoints set (never called), a
knowledge base with one indexed base (fake /v1/embeddings), artifacts, and the computer tools
with a display (DISPLAY set so clipboard, notify and open are offered where their binaries are).
One run answers "ok"; the first request the model got is measured: its body size (the
Content-Length the daemon sent), the system prompt, the tool declarations and each tool's share,
against the 8 KB aim of issue 19. `--bare` measures a daemon with nothing but the core.
The figures are byte counts of one deterministic request, so there is nothing to take a median of.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import REPO, exit_on_signals

from tests.e2e.daemon import Daemon, daemon_env
from tests.e2e.runs_helpers import finish, new_session, start
from tests.fakes.fake_embeddings import FakeEmbeddings
from tests.fakes.fake_openai import FakeModel

AIM_BYTES = 8 * 1024
EVERYTHING = REPO / "tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
TIME = Path(sys.executable).parent / "mcp-server-time"
SKILLS = {
    "release-notes": "Write release notes from the git log since the last tag.",
    "db-migration": "Plan and write a schema migration with a rollback step.",
}
PROFILE = "# About me\n\nName: Sam\nRole: backend developer\nPrefers short answers.\n"


def mcp_servers() -> dict[str, Any]:
    """Two real stdio servers: time, and everything when its npm package is installed."""
    out: dict[str, Any] = {"time": {"command": str(TIME)}}
    if EVERYTHING.is_file():
        out["everything"] = {"command": "node", "args": [str(EVERYTHING)]}
    else:
        out["time2"] = {"command": str(TIME), "args": ["--local-timezone", "Etc/UTC"]}
    return out


def configure(home: Path, ws: Path) -> None:
    """GG_HOME and workspace files of the full configuration."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "USER.md").write_text(PROFILE)
    (home / "mcp.json").write_text(json.dumps({"servers": mcp_servers()}))
    for name, desc in SKILLS.items():
        d = ws / ".agents" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nSteps.\n")
    docs = ws / "docs"
    docs.mkdir()
    (docs / "deploy.md").write_text("# Deploy\n\nShip with `make release`; undo with rollback.\n")


def full_env(emb: FakeEmbeddings) -> dict[str, str]:
    """Media endpoints (never called), the embeddings endpoint and a display."""
    unused = "http://127.0.0.1:9/v1"  # discard port: configured, and no test ever calls it
    return {
        "GG_IMAGE_BASE_URL": unused,
        "GG_TTS_BASE_URL": unused,
        "GG_STT_BASE_URL": unused,
        "GG_EMBEDDINGS_BASE_URL": emb.base_url,
        "GG_EMBEDDINGS_MODEL": "fake-embed",
        "DISPLAY": ":0",
    }


def breakdown(body: dict[str, Any], length: int) -> dict[str, Any]:
    """Sizes of the first request's parts (compact JSON, as the provider encodes them)."""

    def size(obj: Any) -> int:
        return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())

    tools = body.get("tools") or []
    system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
    per_tool = {t["function"]["name"]: size(t) for t in tools}
    return {
        "first_request_bytes": length or size(body),
        "aim_bytes": AIM_BYTES,
        "met": (length or size(body)) <= AIM_BYTES,
        "system_prompt_bytes": len(system.encode()),
        "tools_bytes": size(tools),
        "tools_sent": len(tools),
        "per_tool_bytes": dict(sorted(per_tool.items(), key=lambda kv: -kv[1])),
    }


async def one_run(d: Daemon, index: bool) -> None:
    """Index the kb (full config) and run one prompt to its end."""
    c = await d.connect("unix")
    try:
        if index:
            await c.request("gg/kb.index", {"path": "docs", "name": "docs"}, timeout=60)
        sid = await new_session(c)
        rid = await start(c, sid, "hi")
        done = await finish(c, rid, timeout=120)
        assert done["type"] == "run_completed", done
    finally:
        await c.close()


def measure(bare: bool) -> dict[str, Any]:
    """Start a daemon (full or bare), run once, and measure the first model request."""
    tmp = Path(tempfile.mkdtemp(prefix="gg-bench-ctx-"))
    home, ws = tmp / "home", tmp / "ws"
    ws.mkdir()
    (tmp / "user").mkdir()
    emb = FakeEmbeddings()
    model = FakeModel([{"text": "ok"}], zero_latency=True).start()
    extra = {"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "x", "GG_MODEL": "fake-model"}
    if bare:
        home.mkdir()
        (home / "config.json").write_text(json.dumps({"memory": {"enabled": False}}))
        extra["GG_CHROMIUM"] = "/nonexistent"  # the browser is absent
    else:
        configure(home, ws)
        extra.update(full_env(emb))
    env = daemon_env(home, extra)
    env["HOME"] = str(tmp / "user")
    env["GG_LOG_LEVEL"] = "warning"
    if bare:
        env.pop("DISPLAY", None)
    d = Daemon(home, ws, env)
    try:
        d.start()
        asyncio.run(one_run(d, index=not bare))
        body = model.requests[0]
        length = int(model.request_headers[0].get("content-length") or 0)
        return breakdown(body, length)
    except BaseException:
        print(f"ggd log tail:\n{d.logs()[-2000:]}", file=sys.stderr)
        raise
    finally:
        if d.proc is not None:
            d.stop()
        model.stop()
        emb.close()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    """Measure and print (or emit JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--json", action="store_true", help="print JSON only")
    ap.add_argument("--bare", action="store_true", help="only the core capability configured")
    args = ap.parse_args()
    exit_on_signals()
    res = measure(args.bare)
    res["config"] = "bare" if args.bare else "full"
    res["mcp_servers"] = [] if args.bare else sorted(mcp_servers())
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    kb = res["first_request_bytes"] / 1024
    verdict = "met" if res["met"] else "NOT met"
    print(f"first request ({res['config']} config): {kb:.1f} KB (aim <= 8 KB: {verdict})")
    print(f"  system prompt {res['system_prompt_bytes']} B, tools {res['tools_bytes']} B "
          f"({res['tools_sent']} declared)")  # fmt: skip
    for name, n in res["per_tool_bytes"].items():
        print(f"    {n:6d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
