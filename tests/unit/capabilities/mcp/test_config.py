"""mcp.json loading: expansion, workspace trust keyed by content, edits, and the env policy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ggd.capabilities.mcp.config import (
    McpConfigError,
    StdioServer,
    add_server,
    load_servers,
    remove_server,
    trust_workspace,
)
from ggd.capabilities.mcp.connection import server_env, spawn_command


def _write(path: Path, servers: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"servers": servers}))


def test_env_and_headers_expand_and_a_missing_variable_is_named(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "ws"
    _write(
        home / "mcp.json",
        {
            "a": {"command": "x", "env": {"TOKEN": "${MY_TOKEN}", "PLAIN": "p"}},
            "b": {
                "url": "http://127.0.0.1:1/mcp",
                "headers": {"Authorization": "Bearer ${MY_TOKEN}"},
            },
            "c": {"command": "x", "env": {"K": "${NOT_SET_ANYWHERE}"}},
        },
    )
    out = load_servers(home, root, {"MY_TOKEN": "t0k3n"})
    assert out.servers["a"].config.env == {"TOKEN": "t0k3n", "PLAIN": "p"}  # type: ignore[union-attr]
    assert out.servers["b"].config.headers["Authorization"] == "Bearer t0k3n"  # type: ignore[union-attr]
    assert out.servers["c"].problem == "environment variable NOT_SET_ANYWHERE is not set"
    # A stdio server runs in the workspace by default.
    assert out.servers["a"].config.cwd == str(root)  # type: ignore[union-attr]
    # The fingerprint is of the raw config: a changed value of the variable is the same config.
    again = load_servers(home, root, {"MY_TOKEN": "other"})
    assert again.servers["a"].fingerprint == out.servers["a"].fingerprint


def test_a_workspace_file_needs_trust_and_an_edit_needs_it_again(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "ws"
    _write(home / "mcp.json", {"time": {"command": "mcp-server-time"}})
    ws_file = root / ".gg" / "mcp.json"
    _write(ws_file, {"docs": {"command": "docs-server"}, "time": {"command": "evil"}})
    out = load_servers(home, root, {})
    assert set(out.servers) == {"time"} and out.untrusted == ["docs", "time"]
    assert out.workspace_file == "untrusted"
    assert trust_workspace(home, root) == ["docs", "time"]
    assert (home / "mcp-trust.json").stat().st_mode & 0o777 == 0o600
    out = load_servers(home, root, {})
    assert out.workspace_file == "trusted" and set(out.servers) == {"time", "docs"}
    # A repository adds servers; it never replaces the user's.
    assert out.servers["time"].origin == "home"
    assert out.servers["time"].config.command == "mcp-server-time"  # type: ignore[union-attr]
    _write(ws_file, {"docs": {"command": "docs-server", "args": ["--more"]}})
    out = load_servers(home, root, {})
    assert out.workspace_file == "untrusted" and "docs" not in out.servers


def test_bad_files_give_clear_errors_without_paths(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    (home / "mcp.json").write_text("{not json")
    with pytest.raises(McpConfigError, match=r"GG_HOME mcp\.json is not valid JSON") as exc:
        load_servers(home, root, {})
    assert str(tmp_path) not in str(exc.value)
    _write(home / "mcp.json", {"x": {"command": "a", "url": "http://h"}})
    with pytest.raises(McpConfigError, match=r"servers\.x"):
        load_servers(home, root, {})
    _write(home / "mcp.json", {"bad name!": {"command": "a"}})
    with pytest.raises(McpConfigError, match="server name"):
        load_servers(home, root, {})
    _write(home / "mcp.json", {})
    _write(root / ".gg" / "mcp.json", {"x": {"nope": 1}})
    out = load_servers(home, root, {})
    assert out.workspace_file == "invalid" and "workspace mcp.json" in out.errors[0]


def test_add_and_remove_keep_the_file_private_and_other_keys(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert add_server(home, "time", StdioServer(command="mcp-server-time", args=["-v"])) is False
    assert add_server(home, "time", StdioServer(command="mcp-server-time")) is True
    data = json.loads((home / "mcp.json").read_text())
    assert data == {"servers": {"time": {"command": "mcp-server-time"}}}
    assert (home / "mcp.json").stat().st_mode & 0o777 == 0o600
    assert remove_server(home, "time") is True and remove_server(home, "time") is False


def test_a_stdio_server_gets_only_path_home_lang_and_its_own_env() -> None:
    base = {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk-x", "USER": "u"}
    env = server_env(StdioServer(command="x", env={"MINE": "1"}), base)
    assert env == {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8", "MINE": "1"}


def test_the_spawned_server_sees_exactly_that_env_through_the_sdks_merge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The SDK merges the env it is given over get_default_environment() (USER, SHELL, ...);
    # spawn_command's program must take those back out, leaving the policy's variables.
    from mcp.client.stdio import get_default_environment

    for name in ("USER", "SHELL", "LOGNAME", "TERM"):
        monkeypatch.setenv(name, "daemon-" + name.lower())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    show_env = "import json, os; print(json.dumps(dict(os.environ)))"
    spec = StdioServer(command="x", args=["-c", show_env], env={"MINE": "1", "TERM": "dumb"})
    program, args, env = spawn_command(spec, sys.executable)
    merged = get_default_environment() | env  # what the SDK hands the process (mcp.client.stdio)
    out = subprocess.run([program, *args], env=merged, capture_output=True, text=True, check=True)
    seen = json.loads(out.stdout)
    seen.pop("LC_CTYPE", None)  # Python's own locale coercion may add it
    assert set(seen) == {"PATH", "HOME", "MINE", "TERM"} | ({"LANG"} & set(env)), sorted(seen)
    assert seen["MINE"] == "1" and seen["TERM"] == "dumb"


def test_importing_the_daemon_does_not_import_the_mcp_sdk() -> None:
    code = "import sys, ggd.daemon.app, ggd.daemon.catalog; print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
