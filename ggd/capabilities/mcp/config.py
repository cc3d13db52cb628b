"""MCP server configuration: GG_HOME/mcp.json, a trusted workspace's .gg/mcp.json, and trust.

A workspace file adds servers only after `gg mcp trust`, because a cloned repository must not be
able to start processes. Trust is recorded under GG_HOME, keyed by the workspace root and the
SHA-256 of the file's bytes: an edited file is untrusted again until re-trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ggd.app.files import owner_lock, write_private

HOME_FILE = "mcp.json"
WORKSPACE_FILE = Path(".gg") / "mcp.json"
TRUST_FILE = "mcp-trust.json"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$"
_NAME = re.compile(NAME_PATTERN)
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

# "session": given by a local client for one session (session.py), never on disk.
Origin = Literal["home", "workspace", "session"]


class McpSection(BaseModel):
    """config.json `mcp`: timeouts of the MCP client."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    list_timeout_seconds: float = Field(default=10.0, gt=0, le=120, alias="listTimeoutSeconds")
    call_timeout_seconds: float = Field(default=300.0, gt=0, le=3600, alias="callTimeoutSeconds")


class StdioServer(BaseModel):
    """A server started as a child process, spoken to over its stdin/stdout."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class HttpServer(BaseModel):
    """A server reached over streamable HTTP."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)


class McpFile(BaseModel):
    """The shape of an mcp.json file."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    servers: dict[str, StdioServer | HttpServer] = Field(default_factory=dict)


class McpConfigError(Exception):
    """An mcp.json that cannot be used; the message names the file kind and the key, never a path."""


@dataclass(frozen=True)
class ServerSpec:
    """One configured server, `${VAR}` expanded, with a fingerprint of its raw config."""

    name: str
    origin: Origin
    config: StdioServer | HttpServer
    fingerprint: str
    # Set when expansion failed (a variable is not set): the server is skipped with this reason.
    problem: str | None = None

    @property
    def transport(self) -> str:
        """`stdio` or `http`."""
        return "stdio" if isinstance(self.config, StdioServer) else "http"


@dataclass
class Servers:
    """Every server a workspace sees, plus what kept others out."""

    servers: dict[str, ServerSpec] = field(default_factory=dict)
    # Names in an untrusted workspace file (shown by gg/mcp.list, never started).
    untrusted: list[str] = field(default_factory=list)
    untrusted_transport: dict[str, str] = field(default_factory=dict)
    workspace_file: Literal["absent", "trusted", "untrusted", "invalid"] = "absent"
    errors: list[str] = field(default_factory=list)


def expand(value: str, env: Mapping[str, str]) -> str:
    """Replace `${VAR}` with the daemon's environment; an unset variable is an error naming it."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in env:
            raise McpConfigError(f"environment variable {name} is not set")
        return env[name]

    return _VAR.sub(sub, value)


def parse_file(data: bytes, kind: str) -> McpFile:
    """Validate an mcp.json; errors say which file kind and key is wrong."""
    try:
        raw = json.loads(data or b"{}")
    except ValueError:
        raise McpConfigError(f"{kind} mcp.json is not valid JSON") from None
    try:
        parsed = McpFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()))
        raise McpConfigError(f"{kind} mcp.json: {loc or '(root)'}: {first.get('msg')}") from None
    for name in parsed.servers:
        if not _NAME.match(name):
            raise McpConfigError(f"{kind} mcp.json: server name {name!r} must match {NAME_PATTERN}")
    return parsed


def _spec(
    name: str, origin: Origin, cfg: StdioServer | HttpServer, env: Mapping[str, str], root: Path
) -> ServerSpec:
    raw = json.dumps([origin, cfg.model_dump()], sort_keys=True).encode()
    fingerprint = hashlib.sha256(raw).hexdigest()[:16]
    try:
        if isinstance(cfg, StdioServer):
            # A stdio server runs in the workspace unless told otherwise (relative cwd: in it).
            cwd = str(root / cfg.cwd) if cfg.cwd else str(root)
            expanded: StdioServer | HttpServer = cfg.model_copy(
                update={"env": {k: expand(v, env) for k, v in cfg.env.items()}, "cwd": cwd}
            )
        else:
            expanded = cfg.model_copy(
                update={"headers": {k: expand(v, env) for k, v in cfg.headers.items()}}
            )
    except McpConfigError as exc:
        return ServerSpec(name, origin, cfg, fingerprint, problem=str(exc))
    return ServerSpec(name, origin, expanded, fingerprint)


def file_digest(data: bytes) -> str:
    """The trust key of a workspace file's content."""
    return hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        raise McpConfigError(f"{path.name} cannot be read; check its permissions") from None


def trusted_digests(home: Path) -> dict[str, str]:
    """Workspace root -> trusted digest of its .gg/mcp.json."""
    data = _read(home / TRUST_FILE)
    try:
        value = json.loads(data or b"{}").get("trusted", {})
    except (ValueError, AttributeError):
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def load_servers(home: Path, root: Path, env: Mapping[str, str] | None = None) -> Servers:
    """The servers of a workspace: GG_HOME's, then a trusted workspace file's new names."""
    env = os.environ if env is None else env
    out = Servers()
    home_file = parse_file(_read(home / HOME_FILE) or b"{}", "GG_HOME")
    for name, cfg in home_file.servers.items():
        out.servers[name] = _spec(name, "home", cfg, env, root)
    ws_data = _read(root / WORKSPACE_FILE)
    if ws_data is None:
        return out
    try:
        ws_file = parse_file(ws_data, "workspace")
    except McpConfigError as exc:
        out.workspace_file = "invalid"
        out.errors.append(str(exc))
        return out
    if trusted_digests(home).get(str(root)) != file_digest(ws_data):
        out.workspace_file = "untrusted"
        out.untrusted = sorted(ws_file.servers)
        out.untrusted_transport = {
            n: "stdio" if isinstance(c, StdioServer) else "http" for n, c in ws_file.servers.items()
        }
        return out
    out.workspace_file = "trusted"
    for name, cfg in ws_file.servers.items():
        # A repository adds servers; it never replaces one the user configured.
        out.servers.setdefault(name, _spec(name, "workspace", cfg, env, root))
    return out


def has_config(home: Path, root: Path) -> bool:
    """Whether any mcp.json exists for this workspace (a cheap stat, for `available`)."""
    return (home / HOME_FILE).is_file() or (root / WORKSPACE_FILE).is_file()


def _locked_update(home: Path, name: str, fn: Any) -> Any:
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    with owner_lock(home / f".{name}.lock", timeout=10):
        path = home / name
        current = _read(path)
        value, payload = fn(current)
        write_private(path, payload)
        return value


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, sort_keys=False) + "\n").encode()


def add_server(home: Path, name: str, cfg: StdioServer | HttpServer) -> bool:
    """Add or replace a server in GG_HOME/mcp.json; True when it replaced one."""
    if not _NAME.match(name):
        raise McpConfigError(f"server name {name!r} must match {NAME_PATTERN}")

    def edit(current: bytes | None) -> tuple[bool, bytes]:
        parsed = parse_file(current or b"{}", "GG_HOME")
        replaced = name in parsed.servers
        data = json.loads(current or b"{}") or {}
        data.setdefault("servers", {})[name] = cfg.model_dump(exclude_defaults=True)
        return replaced, _dump(data)

    return bool(_locked_update(home, HOME_FILE, edit))


def remove_server(home: Path, name: str) -> bool:
    """Remove a server from GG_HOME/mcp.json; False when it was not there."""

    def edit(current: bytes | None) -> tuple[bool, bytes]:
        parse_file(current or b"{}", "GG_HOME")
        data = json.loads(current or b"{}") or {}
        removed = data.get("servers", {}).pop(name, None) is not None
        return removed, _dump(data)

    return bool(_locked_update(home, HOME_FILE, edit))


def trust_workspace(home: Path, root: Path) -> list[str]:
    """Trust the current content of a workspace's .gg/mcp.json; returns its server names."""
    data = _read(root / WORKSPACE_FILE)
    if data is None:
        raise McpConfigError("this workspace has no .gg/mcp.json to trust")
    names = sorted(parse_file(data, "workspace").servers)

    def edit(current: bytes | None) -> tuple[None, bytes]:
        try:
            trust = json.loads(current or b"{}")
            if not isinstance(trust, dict) or not isinstance(trust.get("trusted"), dict):
                trust = {"trusted": {}}
        except ValueError:
            trust = {"trusted": {}}
        trust["trusted"][str(root)] = file_digest(data)
        return None, _dump(trust)

    _locked_update(home, TRUST_FILE, edit)
    return names


__all__ = [
    "HttpServer",
    "McpConfigError",
    "McpFile",
    "McpSection",
    "ServerSpec",
    "Servers",
    "StdioServer",
    "add_server",
    "expand",
    "file_digest",
    "has_config",
    "load_servers",
    "parse_file",
    "remove_server",
    "trust_workspace",
    "trusted_digests",
]
