"""Issue 10 item 5 and 7 end to end: a runaway regex, a live socket, repeated access headers."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from pathlib import Path

from tests.fakes.fake_openai import FakeModel

from .daemon import GGD, TOKEN, Daemon, daemon_env
from .runs_helpers import finish, new_session, start, until


async def test_a_catastrophic_grep_pattern_never_stalls_other_clients(
    gg_home: Path, workspace: Path
) -> None:
    (workspace / "evil.txt").write_text("a" * 40 + "b\n")  # (a+)+$ backtracks ~2**40 times
    script = [
        {"toolCalls": [{"id": "g1", "name": "grep", "arguments": {"pattern": "(a+)+$"}}]},
        {"text": "the pattern was too slow"},
    ]
    fm = FakeModel(script).start()
    env = daemon_env(
        gg_home,
        {
            "OPENAI_BASE_URL": fm.base_url,
            "OPENAI_API_KEY": "k",
            "GG_MODEL": "fake-model",
            "GG_GREP_NO_RG": "1",  # force the Python fallback
            "GG_GREP_TIMEOUT": "5",
        },
    )
    d = Daemon(gg_home, workspace, env).start()
    a = await d.connect("unix")
    b = await d.connect("ws")
    try:
        run_id = await start(a, await new_session(a), "find runaway a's")
        await until(a, run_id, "tool_call_start")
        # Meanwhile another client is answered, again and again, while the pattern runs.
        for _ in range(5):
            assert (await asyncio.wait_for(b.request("gg/system.info"), 4))["protocolVersion"]
        assert not [e for e in a.events(run_id=run_id) if e["type"] == "tool_call_finish"]
        done = await until(a, run_id, "tool_call_finish", timeout=30)
        assert done["isError"] is True
        assert "took too long" in done["output"]
        assert (await finish(a, run_id))["type"] == "run_completed"
        leftovers = subprocess.run(
            ["pgrep", "-P", str(d.proc.pid), "-f", "grep_worker"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        assert leftovers == [], "the killed search process is still running"
    finally:
        await a.close()
        await b.close()
        d.stop()
        fm.stop()


def test_a_private_daemon_refuses_to_replace_a_live_socket(daemon: Daemon, tmp_path: Path) -> None:
    env = daemon_env(tmp_path / "other-home")
    proc = subprocess.run(
        [*GGD, "--private", "--socket", daemon.socket, "--workspace", str(daemon.workspace)],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1, proc.stderr
    assert "already listening" in proc.stderr
    assert "Traceback" not in proc.stderr
    # the live daemon still owns its socket and answers on it
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(daemon.socket)
    # a path that is not a socket is never deleted either
    keep = tmp_path / "keep.txt"
    keep.write_text("mine\n")
    proc = subprocess.run(
        [*GGD, "--private", "--socket", str(keep), "--workspace", str(daemon.workspace)],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1 and "not a socket" in proc.stderr
    assert keep.read_text() == "mine\n"


def _raw_http(port: int, headers: list[tuple[str, str]], path: str = "/ws") -> int:
    lines = [f"GET {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers]
    data = ("\r\n".join(lines) + "\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        reply = b""
        while b"\r\n" not in reply:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b" ", 2)[1])


def test_repeated_access_headers_are_bad_requests(daemon: Daemon) -> None:
    port = int(daemon.ws_url.split(":")[2].split("/")[0])
    host = ("Host", f"127.0.0.1:{port}")
    upgrade = [
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ("Sec-WebSocket-Version", "13"),
    ]
    auth = ("Authorization", f"Bearer {TOKEN}")
    assert _raw_http(port, [host, auth, *upgrade]) == 101
    cases = [
        [host, host, auth, *upgrade],
        [host, ("Host", "evil.example"), auth, *upgrade],
        [host, auth, ("Origin", "http://127.0.0.1"), ("Origin", "https://evil.example"), *upgrade],
        [host, auth, ("Authorization", "Bearer wrong"), *upgrade],
    ]
    for headers in cases:
        assert _raw_http(port, headers) == 400, headers
    assert _raw_http(port, [host, host], path="/healthz") == 400
    # malformed values are refused like foreign ones, not a 500
    assert _raw_http(port, [("Host", "[evil"), auth, *upgrade]) == 403
    assert _raw_http(port, [host, auth, ("Origin", "http://["), *upgrade]) == 403
