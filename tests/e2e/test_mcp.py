"""MCP client end to end: real MCP servers (mcp-server-time, server-everything) under a real ggd."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .daemon import daemon_env, wait_until
from .runs_helpers import finish, new_session, start, until

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
TIME_SERVER = BIN / "mcp-server-time"
EVERYTHING = REPO / "tests" / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-everything"
EVERYTHING_JS = EVERYTHING / "dist" / "index.js"
FAKES = REPO / "tests" / "fakes"
SECRET = "gg-test-secret-value-4242"

needs_everything = pytest.mark.skipif(
    not EVERYTHING_JS.is_file(), reason="tests/mcp npm packages not installed (make npm)"
)


def write_mcp(home: Path, servers: dict[str, Any], list_timeout: float | None = None) -> None:
    """GG_HOME/mcp.json (and config.json's mcp section)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "mcp.json").write_text(json.dumps({"servers": servers}))
    if list_timeout is not None:
        (home / "config.json").write_text(json.dumps({"mcp": {"listTimeoutSeconds": list_timeout}}))


def tool_finishes(c: Any, rid: str) -> list[dict[str, Any]]:
    """The tool_call_finish events of a run."""
    return [e for e in c.events(run_id=rid) if e["type"] == "tool_call_finish"]


def children(pid: int) -> dict[int, str]:
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


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def tool_specs(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """name -> function spec of the tools a model request carried."""
    return {t["function"]["name"]: t["function"] for t in request.get("tools", [])}


def loadable(request: dict[str, Any]) -> list[str]:
    """Deferred tools the system prompt offers to tool_search (MCP tools are deferred)."""
    system = request["messages"][0]["content"]
    line = next(x for x in system.splitlines() if x.startswith("Load with tool_search"))
    return line.split(": ", 1)[1].split(", ")


async def test_time_server_call_with_approval(fake_daemon, gg_home: Path) -> None:
    write_mcp(gg_home, {"time": {"command": str(TIME_SERVER), "args": []}})
    script = [
        {
            "toolCalls": [
                {
                    "id": "c1",
                    "name": "mcp_time_get_current_time",
                    "arguments": {"timezone": "Etc/UTC"},
                }
            ]
        },
        {"text": "It is late."},
    ]
    d, fm = fake_daemon(script)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "what time is it?", interactive=True)
        ask = await until(c, rid, "approval_requested")
        ap = ask["approval"]
        assert ap["toolName"] == "mcp_time_get_current_time"
        assert "server: time" in ap["details"] and "tool: get_current_time" in ap["details"]
        assert '"timezone": "Etc/UTC"' in ap["details"]
        await c.request("gg/run.approve", {"runId": rid, "approvalId": ap["id"], "allow": True})
        done = await finish(c, rid)
        assert done["type"] == "run_completed" and done["content"] == "It is late."
        (fin,) = tool_finishes(c, rid)
        assert not fin["isError"], fin
        year = time.gmtime().tm_year
        assert f'"datetime": "{year}-' in fin["output"]
        assert fin["details"]["structuredContent"]["timezone"] == "Etc/UTC"
        # The tool is deferred: named, not declared, in the first request; the call loaded it,
        # so the next request declares its schema (an object) and carries the time.
        reqs = fm.wait_for_requests(2)
        assert "mcp_time_get_current_time" in loadable(reqs[0])
        assert "mcp_time_get_current_time" not in tool_specs(reqs[0])
        spec = tool_specs(reqs[1])["mcp_time_get_current_time"]
        assert spec["parameters"]["type"] == "object"
        assert "timezone" in spec["parameters"]["properties"]
        tool_msgs = [m for m in reqs[1]["messages"] if m["role"] == "tool"]
        assert f"{year}-" in tool_msgs[-1]["content"]
        listed = await c.request("gg/mcp.list", {})
        (srv,) = listed["servers"]
        assert srv["name"] == "time" and srv["state"] == "connected"
        assert srv["tools"] == ["get_current_time", "convert_time"]
        assert d.proc is not None
        servers = [p for p, cmd in children(d.proc.pid).items() if "mcp-server-time" in cmd]
        assert len(servers) == 1
    finally:
        await c.close()
    # Stopping the daemon closes the session's connections: the server process is gone.
    assert d.stop() == 0
    await wait_until(lambda: not alive(servers[0]))


async def test_a_non_interactive_run_is_denied_the_call(fake_daemon, gg_home: Path) -> None:
    write_mcp(gg_home, {"time": {"command": str(TIME_SERVER)}})
    script = [
        {"toolCalls": [{"name": "mcp_time_get_current_time", "arguments": {"timezone": "UTC"}}]},
        {"text": "denied."},
    ]
    d, _fm = fake_daemon(script)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "time?")
        done = await finish(c, rid)
        assert done["type"] == "run_completed"
        (fin,) = tool_finishes(c, rid)
        assert fin["isError"] and "not interactive" in fin["output"]
    finally:
        await c.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def everything_http(tmp_path: Path) -> Iterator[str]:
    """server-everything in its streamable HTTP mode on a 127.0.0.1 port."""
    if not EVERYTHING_JS.is_file():
        pytest.skip("tests/mcp npm packages not installed (make npm)")
    port = _free_port()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PORT": str(port)}
    log = open(tmp_path / "everything-http.log", "wb")
    proc = subprocess.Popen(
        ["node", str(EVERYTHING_JS), "streamableHttp"], env=env, stdout=log, stderr=log
    )

    def up() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            return False

    deadline = time.monotonic() + 20
    while not up():
        assert proc.poll() is None, (tmp_path / "everything-http.log").read_text()
        assert time.monotonic() < deadline, "server-everything did not listen"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)
    log.close()


@needs_everything
async def test_everything_stdio_and_http_with_broken_servers(
    fake_daemon, gg_home: Path, tmp_path: Path, everything_http: str
) -> None:
    spawns = tmp_path / "hang-spawns.txt"
    write_mcp(
        gg_home,
        {
            "everything": {"command": "node", "args": [str(EVERYTHING_JS), "stdio"]},
            "web": {"url": everything_http},
            "bad": {"command": "gg-no-such-mcp-server"},
            "exits": {"command": sys.executable, "args": [str(FAKES / "mcp_exit_on_init.py")]},
            "hang": {
                "command": sys.executable,
                "args": ["-c", _HANG_WRAPPER, str(FAKES / "mcp_hang_on_list.py"), "60"],
                "env": {"SPAWN_LOG": str(spawns)},
            },
        },
        list_timeout=8,
    )
    script = [
        {
            "toolCalls": [
                {"id": "e1", "name": "mcp_everything_echo", "arguments": {"message": "hi stdio"}},
                {"id": "e2", "name": "mcp_web_echo", "arguments": {"message": "hi http"}},
                {"id": "e3", "name": "mcp_everything_get-env", "arguments": {}},
                {"id": "e4", "name": "mcp_everything_get-tiny-image", "arguments": {}},
                {
                    "id": "e5",
                    "name": "mcp_web_get-structured-content",
                    "arguments": {"location": "Chicago"},
                },
            ]
        },
        {"text": "all good"},
        {"text": "second turn"},
        {"text": "third turn"},
    ]
    d, fm = fake_daemon(script)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        t0 = time.monotonic()
        rid = await start(c, sid, "use the tools", approvalMode="yolo")
        done = await finish(c, rid, timeout=45)
        elapsed = time.monotonic() - t0
        assert done["type"] == "run_completed", done
        # The 60 s hang is bounded by the 8 s list timeout (generous: the machine is shared), not waited out.
        assert elapsed < 40, elapsed
        fins = {f["toolCallId"]: f for f in tool_finishes(c, rid)}
        assert not fins["e1"]["isError"] and "hi stdio" in fins["e1"]["output"], fins["e1"][
            "output"
        ]
        assert not fins["e2"]["isError"] and "hi http" in fins["e2"]["output"], fins["e2"]
        env = json.loads(fins["e3"]["output"])
        assert set(env) <= {"PATH", "HOME", "LANG"}, sorted(env)
        assert SECRET not in fins["e3"]["output"] and "OPENAI_API_KEY" not in env
        # An image is saved privately under GG_HOME/media and referenced by id, never by path.
        image = fins["e4"]
        assert not image["isError"] and str(gg_home) not in image["output"]
        (media,) = [m for m in image["details"]["media"] if m["mimeType"] == "image/png"]
        assert f"saved as media {media['id']}" in image["output"]
        (saved,) = (gg_home / "media").glob(f"{media['id']}.*")
        assert saved.read_bytes().startswith(b"\x89PNG")
        assert saved.stat().st_mode & 0o777 == 0o600
        assert (gg_home / "media").stat().st_mode & 0o777 == 0o700
        # Structured content is kept (over HTTP too).
        weather = fins["e5"]["details"]["structuredContent"]
        assert {"temperature", "conditions", "humidity"} <= set(weather)
        specs = loadable(fm.wait_for_requests(1)[0])
        assert "mcp_everything_echo" in specs and "mcp_web_echo" in specs
        assert not any(n.startswith(("mcp_bad", "mcp_exits", "mcp_hang")) for n in specs)
        info = await c.request("gg/system.info", {})
        degraded = {p["name"]: p["reason"] for p in info.get("degradedProviders") or []}
        assert set(degraded) == {"mcp:bad", "mcp:exits", "mcp:hang"}, degraded
        assert "command not found" in degraded["mcp:bad"]
        assert "closed the connection" in degraded["mcp:exits"]
        assert "within 8 s" in degraded["mcp:hang"]
        for reason in degraded.values():
            assert str(tmp_path) not in reason and str(REPO) not in reason
        listed = {s["name"]: s for s in (await c.request("gg/mcp.list", {}))["servers"]}
        assert (
            listed["everything"]["state"] == "connected" and "echo" in listed["everything"]["tools"]
        )
        assert listed["web"]["transport"] == "http" and listed["web"]["state"] == "connected"
        assert listed["hang"]["state"] == "failed" and "within 8 s" in listed["hang"]["lastError"]
        # Given up on, the hanging server is stopped, not left to sleep out its 60 s.
        hang_pid = int(spawns.read_text().split()[1])
        await wait_until(lambda: not alive(hang_pid), timeout=15)
        # The second turn of the session reuses the connections and does not retry the hang.
        rid2 = await start(c, sid, "again", approvalMode="yolo")
        assert (await finish(c, rid2))["type"] == "run_completed"
        assert spawns.read_text().count("spawn") == 1
        # Fixing a server's config is picked up on the next turn of the same session.
        cfg = json.loads((gg_home / "mcp.json").read_text())
        cfg["servers"]["bad"] = {"command": str(TIME_SERVER)}
        (gg_home / "mcp.json").write_text(json.dumps(cfg))
        rid3 = await start(c, sid, "third", approvalMode="yolo")
        assert (await finish(c, rid3))["type"] == "run_completed"
        assert "mcp_bad_get_current_time" in loadable(fm.wait_for_requests(4)[3])
        info = await c.request("gg/system.info", {})
        degraded = {p["name"] for p in info.get("degradedProviders") or []}
        assert degraded == {"mcp:exits", "mcp:hang"}
        assert spawns.read_text().count("spawn") == 1
    finally:
        await c.close()
    # SIGTERM stops the daemon by itself (the helper's SIGKILL after 10 s would give -9).
    assert d.stop() == 0, d.logs()[-2000:]


async def test_a_daemon_stopped_while_a_given_up_server_stops_exits_and_leaves_no_server(
    fake_daemon, gg_home: Path, tmp_path: Path
) -> None:
    spawns = tmp_path / "hang-spawns.txt"
    write_mcp(
        gg_home,
        {
            "hang": {
                "command": sys.executable,
                "args": ["-c", _HANG_WRAPPER, str(FAKES / "mcp_hang_on_list.py"), "120"],
                "env": {"SPAWN_LOG": str(spawns)},
            }
        },
        list_timeout=3,
    )
    d, _fm = fake_daemon([{"text": "done"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "hello", approvalMode="yolo")
        assert (await finish(c, rid, timeout=30))["type"] == "run_completed"
    finally:
        await c.close()
    hang_pid = int(spawns.read_text().split()[1])
    # Stopped at once: the server given up on is still within its transport's shutdown (stdin
    # closed, a grace period, then a kill). The daemon lets that finish, then exits by itself;
    # a native cancel of that shutdown left the server sleeping and the daemon waiting on it.
    assert d.stop(timeout=30) == 0, d.logs()[-2000:]
    await wait_until(lambda: not alive(hang_pid), timeout=5)


# Records each start of the hanging server, then runs it (so the test can count retries).
_HANG_WRAPPER = (
    "import os,runpy,sys;open(os.environ['SPAWN_LOG'],'a').write(f'spawn {os.getpid()}\\n');"
    "sys.argv=sys.argv[1:];runpy.run_path(sys.argv[0],run_name='__main__')"
)


@needs_everything
async def test_a_daemon_secret_never_reaches_a_stdio_server(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    from tests.fakes.fake_openai import FakeModel

    from .daemon import Daemon

    write_mcp(
        gg_home,
        {"everything": {"command": "node", "args": [str(EVERYTHING_JS)], "env": {"MINE": "1"}}},
    )
    fm = FakeModel(
        [{"toolCalls": [{"name": "mcp_everything_get-env", "arguments": {}}]}, {"text": "ok"}]
    ).start()
    env = daemon_env(
        gg_home,
        {
            "OPENAI_BASE_URL": fm.base_url,
            "OPENAI_API_KEY": "test-key",
            "GG_MODEL": "fake-model",
            "GG_TEST_SECRET_KEY": SECRET,
        },
    )
    d = Daemon(gg_home, workspace, env).start()
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "env?", approvalMode="yolo")
        assert (await finish(c, rid))["type"] == "run_completed"
        (fin,) = tool_finishes(c, rid)
        seen = json.loads(fin["output"])
        assert "GG_TEST_SECRET_KEY" not in seen and SECRET not in fin["output"]
        assert "OPENAI_API_KEY" not in seen and "GG_HOME" not in seen
        assert seen["MINE"] == "1" and "PATH" in seen
    finally:
        await c.close()
        d.stop()
        fm.stop()


async def test_cli_add_list_remove_and_workspace_trust(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    d, _fm = fake_daemon([{"text": "hi"}])
    env = {**d.env}
    gg = [str(BIN / "gg")]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*gg, *args], env=env, cwd=workspace, capture_output=True, text=True, timeout=60
        )

    out = run("mcp", "add", "time", "--", str(TIME_SERVER), "--local-timezone", "Etc/UTC")
    assert out.returncode == 0, out.stderr
    saved = json.loads((gg_home / "mcp.json").read_text())
    assert saved["servers"]["time"] == {
        "command": str(TIME_SERVER),
        "args": ["--local-timezone", "Etc/UTC"],
    }
    assert (gg_home / "mcp.json").stat().st_mode & 0o777 == 0o600
    tested = run("mcp", "test", "time")
    assert tested.returncode == 0 and "get_current_time" in tested.stdout, tested
    # The test's result is what `gg mcp list` shows next (docs/mcp.md), not "idle".
    listed = json.loads(run("mcp", "list", "--json").stdout)
    (time_server,) = listed["servers"]
    assert time_server["state"] == "connected" and "get_current_time" in time_server["tools"]
    assert "get_current_time" in run("mcp", "list").stdout
    # A workspace file adds nothing until trusted, and an edit needs trusting again.
    (workspace / ".gg").mkdir()
    ws_file = workspace / ".gg" / "mcp.json"
    ws_file.write_text(json.dumps({"servers": {"wtime": {"command": str(TIME_SERVER)}}}))
    listed = json.loads(run("mcp", "list", "--json").stdout)
    states = {s["name"]: s["state"] for s in listed["servers"]}
    assert (
        states == {"time": "connected", "wtime": "untrusted"}
        and listed["workspaceFile"] == "untrusted"
    )
    assert run("mcp", "test", "wtime").returncode != 0
    assert run("mcp", "trust").returncode == 0
    listed = json.loads(run("mcp", "list", "--json").stdout)
    assert {s["name"] for s in listed["servers"] if s["state"] != "untrusted"} == {"time", "wtime"}
    ws_file.write_text(json.dumps({"servers": {"wtime": {"command": "sh", "args": ["-c", "id"]}}}))
    listed = json.loads(run("mcp", "list", "--json").stdout)
    assert listed["workspaceFile"] == "untrusted"
    assert run("mcp", "remove", "time").returncode == 0
    assert json.loads((gg_home / "mcp.json").read_text())["servers"] == {}
    gone = run("mcp", "remove", "time")
    assert gone.returncode != 0 and "no MCP server" in gone.stderr


async def test_cli_test_failures_name_the_command_and_the_log(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    d, _fm = fake_daemon([{"text": "hi"}])
    missing = str(workspace / "tools" / "bin" / "mcp-nowhere")
    write_mcp(
        gg_home,
        {
            "crash": {"command": "sh", "args": ["-c", "echo crash-reason-42 >&2; exit 3"]},
            "gone": {"command": missing},
            "offpath": {"command": "mcp-not-installed-anywhere"},
        },
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "gg"), *args],
            env=d.env,
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=60,
        )

    log = gg_home / "logs" / "mcp" / "crash.log"
    crash = run("mcp", "test", "crash")
    assert crash.returncode == 1
    # Where to look: the server's own stderr, named in full for this machine's user.
    assert f"its log: {log}" in crash.stderr, crash.stderr
    assert "crash-reason-42" in log.read_text()
    gone = run("mcp", "test", "gone")
    assert gone.returncode == 1
    # The command as configured, not its last component.
    assert f"command not found: {missing} (no executable file at that path)" in gone.stderr
    offpath = run("mcp", "test", "offpath")
    assert "command not found: mcp-not-installed-anywhere (not on PATH)" in offpath.stderr
    # gg mcp list shows what the tests found.
    listed = {s["name"]: s for s in json.loads(run("mcp", "list", "--json").stdout)["servers"]}
    assert {n: s["state"] for n, s in listed.items()} == {
        "crash": "failed",
        "gone": "failed",
        "offpath": "failed",
    }
    assert "not on PATH" in listed["offpath"]["lastError"]


async def test_a_huge_structured_result_is_capped_in_events(fake_daemon, gg_home: Path) -> None:
    """A 10 MB structuredContent reaches live clients capped, and the run stays replayable."""
    write_mcp(
        gg_home,
        {"big": {"command": sys.executable, "args": [str(FAKES / "mcp_big_structured.py")]}},
    )
    call = {"id": "b1", "name": "mcp_big_rows", "arguments": {"count": 100_000}}
    # 100,000 characters reach the model: the fake's small window may compact first (a step).
    d, _fm = fake_daemon([{"toolCalls": [call]}, {"text": "Counted."}, {"text": "Counted."}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "count the rows", approvalMode="yolo")
        done = await finish(c, rid, timeout=120)
        assert done["type"] == "run_completed", done
        (fin,) = tool_finishes(c, rid)  # delivered live
        assert not fin["isError"], fin["output"][:500]
        details = fin["details"]
        assert details["truncated"]["chars"] > 9_000_000
        rows = details["structuredContent"]["rows"]
        assert rows[0] == {"id": 0, "text": "row 0000000 " + "x" * 72}
        assert rows[-1].startswith("[... ") and "more items cut" in rows[-1]
        assert len(json.dumps(fin)) < 200_000
        # The whole run is still replayable from its first event.
        waited = await c.request("gg/run.wait", {"runId": rid, "afterSequence": 0, "timeoutMs": 0})
        seqs = [e["sequence"] for e in waited["events"]]
        assert (
            seqs == list(range(1, len(seqs) + 1))
            and waited["events"][-1]["type"] == "run_completed"
        )
    finally:
        await c.close()
