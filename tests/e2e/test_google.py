"""The Google connector end to end: the real CLI's PKCE flow against a fake Google, a real ggd
storing and refreshing the tokens, and the Gmail/Calendar tools in scripted runs."""

from __future__ import annotations

import stat
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_google import FakeGoogle, gmail_message

from .rpc_client import RpcClient
from .runs_helpers import finish, finished_tools, new_session, start, until

GG = str(Path(sys.executable).parent / "gg")
GMAIL_TOOLS = {"gmail_search", "gmail_read", "gmail_send"}
CAL_TOOLS = {"calendar_agenda", "calendar_create"}


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    f = FakeGoogle()
    yield f
    f.close()


def _cli(d: Any, workspace: Path, *args: str) -> subprocess.Popen[str]:
    env = {**d.env, "HOME": str(workspace.parent)}
    return subprocess.Popen(
        [GG, "connect", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=workspace,
    )


def _auth_url(proc: subprocess.Popen[str], google: FakeGoogle) -> str:
    assert proc.stdout is not None
    for _ in range(20):  # bounded: the CLI prints a few lines before the address
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith(google.base_url):
            return line.strip()
    proc.kill()
    raise AssertionError(f"no authorization address; stderr: {proc.communicate()[1]}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a: Any, **kw: Any) -> None:
        return None


def _consent(url: str) -> str:
    """What a browser does on the fake consent page: the Location of its 302."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(url, timeout=10)
    except urllib.error.HTTPError as exc:
        assert exc.code == 302
        return str(exc.headers["Location"])
    raise AssertionError("the consent page did not redirect")


def _tools_sent(fm: Any) -> set[str]:
    return {t["function"]["name"] for t in fm.requests[-1].get("tools") or []}


async def _connect_over_rpc(c: RpcClient, google: FakeGoogle, scopes: list[str]) -> None:
    issued = google.issue(scopes)
    await c.request(
        "gg/connector.save",
        {
            "connector": "google",
            "clientId": google.client_id,
            "accessToken": issued["access_token"],
            "refreshToken": issued["refresh_token"],
            "expiresIn": issued["expires_in"],
            "scope": issued["scope"],
        },
    )


async def test_the_cli_runs_the_pkce_flow_and_the_granted_tools_appear(
    fake_daemon: Any, google: FakeGoogle, workspace: Path, gg_home: Path
) -> None:
    google.messages["m1"] = gmail_message(
        "m1", "ann@example.com", "me@example.com", "Quarterly report", "numbers inside", "q3.pdf"
    )
    script = [
        {"toolCalls": [{"id": "s1", "name": "gmail_search", "arguments": {"query": "report"}}]},
        {"toolCalls": [{"id": "r1", "name": "gmail_read", "arguments": {"id": "m1"}}]},
        {"text": "done"},
    ]
    d, fm = fake_daemon(script, env=google.env())
    proc = _cli(
        d, workspace, "google", "--no-browser", "--timeout", "30", "--scope", "gmail.readonly"
    )
    url = _auth_url(proc, google)
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    assert q["code_challenge_method"] == "S256" and len(q["state"]) >= 32
    assert q["scope"] == "https://www.googleapis.com/auth/gmail.readonly"
    assert q["redirect_uri"].startswith("http://127.0.0.1:") and q["access_type"] == "offline"
    with urllib.request.urlopen(url, timeout=10) as page:  # the browser follows to the loopback
        assert "connected" in page.read().decode()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "gmail_search" in out and "gmail_send" not in out
    # The fake accepted the verifier against the challenge: one code grant, the verifier sent.
    assert google.grants["authorization_code"] == 1
    form = next(r["form"] for r in google.requests if r["path"] == "/token")
    assert form["redirect_uri"] == q["redirect_uri"] and len(form["code_verifier"]) >= 43
    token_file = gg_home / "connectors" / "google.json"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert form["code"] not in token_file.read_text()

    c = await d.connect("unix")
    caps = (await c.request("gg/system.info"))["capabilities"]
    assert "google.gmail.readonly" in caps and "google.gmail.send" not in caps
    sid = await new_session(c)
    run_id = await start(c, sid, "find the report")
    assert (await finish(c, run_id))["type"] == "run_completed"
    assert _tools_sent(fm) & (GMAIL_TOOLS | CAL_TOOLS) == {"gmail_search", "gmail_read"}
    done = finished_tools(c, run_id)
    assert "m1" in done["s1"]["output"] and "Quarterly report" in done["s1"]["output"]
    assert "numbers inside" in done["r1"]["output"] and "q3.pdf" in done["r1"]["output"]
    await c.close()
    daemon_log = d.log.read_text() if d.log else ""
    secrets = [form["code_verifier"], *google.refresh_tokens, *google.access]
    assert secrets and not [s for s in secrets if s in daemon_log]


async def test_a_redirect_with_another_state_is_refused(
    fake_daemon: Any, google: FakeGoogle, workspace: Path, gg_home: Path
) -> None:
    d, _fm = fake_daemon([], env=google.env())
    proc = _cli(d, workspace, "google", "--no-browser", "--timeout", "30")
    url = _auth_url(proc, google)
    redirect = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))["redirect_uri"]
    forged = redirect + "?" + urllib.parse.urlencode({"code": "4/stolen", "state": "not-yours"})
    urllib.request.urlopen(forged, timeout=10).close()
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "state does not match" in err and "Traceback" not in err
    assert not any(r["path"] == "/token" for r in google.requests)
    assert not (gg_home / "connectors" / "google.json").exists()


async def test_manual_mode_takes_the_pasted_redirect_and_remove_forgets_it(
    fake_daemon: Any, google: FakeGoogle, workspace: Path, gg_home: Path
) -> None:
    d, _fm = fake_daemon([], env=google.env())
    proc = _cli(d, workspace, "google", "--manual", "--scope", "calendar.events")
    location = _consent(_auth_url(proc, google))  # nothing listens there: the user copies it
    out, err = proc.communicate(location + "\n", timeout=60)
    assert proc.returncode == 0, err
    assert "calendar_create" in out and google.grants["authorization_code"] == 1
    status = subprocess.run(
        [GG, "connect", "status", "--check"],
        capture_output=True,
        text=True,
        env={**d.env, "HOME": str(workspace.parent)},
        cwd=workspace,
        timeout=60,
    )
    assert status.returncode == 0 and "connected" in status.stdout, status.stderr
    gone = subprocess.run(
        [GG, "connect", "remove", "google"],
        capture_output=True,
        text=True,
        env={**d.env, "HOME": str(workspace.parent)},
        cwd=workspace,
        timeout=60,
    )
    assert gone.returncode == 0 and "forgot" in gone.stdout
    assert not (gg_home / "connectors" / "google.json").exists()
    c = await d.connect("unix")
    caps = (await c.request("gg/system.info"))["capabilities"]
    assert not [x for x in caps if x.startswith("google.")]
    await c.close()


async def test_not_connected_means_absent_not_degraded(
    fake_daemon: Any, google: FakeGoogle, workspace: Path
) -> None:
    d, fm = fake_daemon([{"text": "hi"}], env=google.env())
    c = await d.connect("unix")
    info = await c.request("gg/system.info")
    assert not [x for x in info["capabilities"] if x.startswith("google.")]
    assert not [p for p in info.get("degradedProviders") or [] if "google" in str(p)]
    run_id = await start(c, await new_session(c), "hello")
    assert (await finish(c, run_id))["type"] == "run_completed"
    assert not _tools_sent(fm) & (GMAIL_TOOLS | CAL_TOOLS)
    listed = await c.request("gg/connector.list")
    assert listed["connectors"] == [
        {"name": "google", "connected": False, "scopes": [], "tools": []}
    ]
    await c.close()
    out = subprocess.run(
        [GG, "connect", "status"],
        capture_output=True,
        text=True,
        env={**d.env, "HOME": str(workspace.parent)},
        cwd=workspace,
        timeout=60,
    )
    assert out.returncode == 0 and "not connected (gg connect google)" in out.stdout


async def test_send_needs_approval_with_the_whole_message(
    fake_daemon: Any, google: FakeGoogle, workspace: Path
) -> None:
    call = {
        "id": "g1",
        "name": "gmail_send",
        "arguments": {"to": "bob@example.com", "subject": "Lunch", "body": "Noon at the usual?"},
    }
    script = [{"toolCalls": [call]}, {"text": "ok"}] * 3
    d, _fm = fake_daemon(script, env=google.env())
    c = await d.connect("unix")
    await _connect_over_rpc(c, google, ["gmail.send"])
    sid = await new_session(c)
    # Unattended (not interactive): refused without asking anyone.
    run_id = await start(c, sid, "tell bob")
    assert (await finish(c, run_id))["type"] == "run_completed"
    done = [e for e in c.events(run_id=run_id) if e["type"] == "tool_call_finish"]
    assert done[0]["isError"] and google.sent == []
    # Interactive: the approval shows every recipient, the subject and the body; deny sends nothing.
    run_id = await start(c, sid, "tell bob", interactive=True)
    ev = await until(c, run_id, "approval_requested")
    details = ev["approval"]["details"]
    assert "To: bob@example.com" in details and "Subject: Lunch" in details
    assert "Noon at the usual?" in details
    await c.request(
        "gg/run.approve", {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": False}
    )
    assert (await finish(c, run_id))["type"] == "run_completed" and google.sent == []
    # Allowed: it leaves, exactly as shown.
    run_id = await start(c, sid, "tell bob", interactive=True)
    ev = await until(c, run_id, "approval_requested")
    await c.request(
        "gg/run.approve", {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True}
    )
    assert (await finish(c, run_id))["type"] == "run_completed"
    assert len(google.sent) == 1
    sent = google.sent[0]
    assert sent["To"] == "bob@example.com" and sent["Subject"] == "Lunch"
    assert sent.get_content().strip() == "Noon at the usual?"
    await c.close()


async def test_the_daemon_refreshes_on_expiry_and_on_401(
    fake_daemon: Any, google: FakeGoogle, workspace: Path
) -> None:
    google.events.append(
        {
            "summary": "Standup",
            "start": {"dateTime": "2099-01-01T09:00:00Z"},
            "end": {"dateTime": "2099-01-01T09:15:00Z"},
        }
    )
    agenda = {"toolCalls": [{"id": "a1", "name": "calendar_agenda", "arguments": {"days": 60}}]}
    d, _fm = fake_daemon([agenda, {"text": "ok"}] * 2, env=google.env())
    c = await d.connect("unix")
    google.token_lifetime = 30  # inside the refresh-early window: every use refreshes first
    await _connect_over_rpc(c, google, ["calendar.events"])
    sid = await new_session(c)
    run_id = await start(c, sid, "agenda")
    assert (await finish(c, run_id))["type"] == "run_completed"
    assert google.grants["refresh_token"] == 1 and google.api_401s == 0
    google.token_lifetime = 3600
    res = await c.request("gg/connector.status", {"connector": "google", "check": True})
    assert res["connector"]["connected"] and "error" not in res["connector"]
    refreshes = google.grants["refresh_token"]
    google.revoke_access()  # the stored token looks fresh; Google says 401
    run_id = await start(c, sid, "agenda")
    assert (await finish(c, run_id))["type"] == "run_completed"
    done = [e for e in c.events(run_id=run_id) if e["type"] == "tool_call_finish"]
    assert not done[0]["isError"], done[0]["output"]
    assert google.api_401s == 1 and google.grants["refresh_token"] == refreshes + 1
    await c.close()


async def test_without_a_client_id_the_cli_says_where_to_get_one(
    fake_daemon: Any, google: FakeGoogle, workspace: Path
) -> None:
    env = {k: v for k, v in google.env().items() if k != "GG_GOOGLE_CLIENT_ID"}
    d, _fm = fake_daemon([], env=env)
    proc = _cli(d, workspace, "google", "--no-browser")
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "--client-id" in err and "Traceback" not in err
    assert not google.requests  # nothing was sent anywhere
