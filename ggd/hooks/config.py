"""Hook configuration: Claude Code's settings format, from GG_HOME and (once trusted) the workspace.

    {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                             "command": "...", "timeout": 60}]}]}}

Sources, all of them used (hooks add up, as Claude Code's settings files do):
- `GG_HOME/hooks.json`, then the `hooks` key of `GG_HOME/config.json`;
- the workspace's `.gg/hooks.json`, only while the user trusts its current content (`gg hooks
  trust`): like a workspace's `.gg/mcp.json`, a cloned repository must never run commands on this
  machine by itself. Trust is recorded in `GG_HOME/hooks-trust.json` by workspace root and the
  SHA-256 of the file, so any change makes the file untrusted again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "Notification",
)
HOME_FILE = "hooks.json"
WORKSPACE_FILE = Path(".gg") / "hooks.json"
TRUST_FILE = "hooks-trust.json"
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0

WorkspaceState = Literal["absent", "trusted", "untrusted", "invalid"]


class HookConfigError(ValueError):
    """A hooks file or section is not valid; the message names the place and the fix."""


@dataclass(frozen=True)
class HookCommand:
    """One command hook and where it was configured (home, config or workspace)."""

    event: str
    matcher: str
    command: str
    timeout: float
    origin: str

    def matches(self, *names: str) -> bool:
        """Claude Code's matcher: empty or `*` matches all; else the names must match fully
        (a plain name exactly, `Edit|Write` or `mcp_.*` as a regular expression)."""
        if self.matcher in ("", "*"):
            return True
        try:
            pattern = re.compile(self.matcher)
        except re.error:
            return self.matcher in names
        return any(pattern.fullmatch(n) for n in names if n)


@dataclass
class LoadedHooks:
    """Every configured hook, the workspace file's state and the problems found."""

    hooks: list[HookCommand] = field(default_factory=list)
    workspace_file: WorkspaceState = "absent"
    untrusted: list[HookCommand] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def for_event(self, event: str) -> list[HookCommand]:
        """The hooks of one event, in configuration order."""
        return [h for h in self.hooks if h.event == event]


def parse(obj: Any, origin: str) -> list[HookCommand]:
    """The hooks of one source: `{"hooks": {...}}` or the event map itself."""
    if not isinstance(obj, dict):
        raise HookConfigError(f"{origin}: hooks must be a JSON object of events")
    events = obj["hooks"] if "hooks" in obj else obj
    if not isinstance(events, dict):
        raise HookConfigError(f"{origin}: 'hooks' must be an object keyed by event name")
    out: list[HookCommand] = []
    for event, groups in events.items():
        if event not in EVENTS:
            raise HookConfigError(
                f"{origin}: unknown hook event {event!r}; gg has {', '.join(EVENTS)}"
            )
        if not isinstance(groups, list):
            raise HookConfigError(f"{origin}: {event} must be a list of matcher groups")
        for i, group in enumerate(groups):
            where = f"{origin}: {event}[{i}]"
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                raise HookConfigError(f"{where} must be {{'matcher': ..., 'hooks': [...]}}")
            matcher = group.get("matcher", "")
            if not isinstance(matcher, str):
                raise HookConfigError(f"{where}.matcher must be a string")
            for j, hook in enumerate(group["hooks"]):
                out.append(_command(hook, f"{where}.hooks[{j}]", event, matcher, origin))
    return out


def _command(hook: Any, where: str, event: str, matcher: str, origin: str) -> HookCommand:
    if not isinstance(hook, dict):
        raise HookConfigError(f"{where} must be an object with type and command")
    if hook.get("type", "command") != "command":
        raise HookConfigError(f"{where}: gg runs only type 'command' hooks")
    command = hook.get("command")
    if not isinstance(command, str) or not command.strip():
        raise HookConfigError(f"{where}.command must be a non-empty string")
    timeout = hook.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise HookConfigError(f"{where}.timeout must be a number of seconds")
    if not 0 < timeout <= MAX_TIMEOUT:
        raise HookConfigError(f"{where}.timeout must be between 0 and {MAX_TIMEOUT:.0f} seconds")
    return HookCommand(event, matcher, command, float(timeout), origin)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HookConfigError(f"{path} cannot be read: {exc.strerror}") from None


def _json(data: bytes, origin: str) -> Any:
    try:
        return json.loads(data or b"{}")
    except ValueError as exc:
        raise HookConfigError(f"{origin} is not valid JSON: {exc}") from None


def file_digest(data: bytes) -> str:
    """The trust key of a workspace file's content."""
    return hashlib.sha256(data).hexdigest()


def trusted_digests(home: Path) -> dict[str, str]:
    """Workspace root -> trusted digest of its .gg/hooks.json."""
    try:
        value = json.loads(_read(home / TRUST_FILE) or b"{}").get("trusted", {})
    except (ValueError, AttributeError, HookConfigError):
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def load(home: Path, root: Path | None, config_section: Any = None) -> LoadedHooks:
    """Every hook for a workspace; a broken source is reported in `errors`, the rest still load."""
    out = LoadedHooks()
    sources: list[tuple[str, Any]] = []
    try:
        data = _read(home / HOME_FILE)
        if data is not None:
            sources.append(("GG_HOME/hooks.json", _json(data, "GG_HOME/hooks.json")))
    except HookConfigError as exc:
        out.errors.append(str(exc))
    if config_section is not None:
        sources.append(("config.json hooks", config_section))
    for origin, obj in sources:
        try:
            out.hooks += parse(obj, origin)
        except HookConfigError as exc:
            out.errors.append(str(exc))
    if root is None:
        return out
    try:
        ws_data = _read(root / WORKSPACE_FILE)
        if ws_data is None:
            return out
        ws_hooks = parse(_json(ws_data, ".gg/hooks.json"), ".gg/hooks.json")
    except HookConfigError as exc:
        out.workspace_file = "invalid"
        out.errors.append(str(exc))
        return out
    if trusted_digests(home).get(str(root)) != file_digest(ws_data):
        out.workspace_file = "untrusted"
        out.untrusted = ws_hooks
        return out
    out.workspace_file = "trusted"
    out.hooks += ws_hooks
    return out


def trust_workspace(home: Path, root: Path) -> int:
    """Trust the current content of a workspace's .gg/hooks.json; returns its hook count."""
    data = _read(root / WORKSPACE_FILE)
    if data is None:
        raise HookConfigError("this workspace has no .gg/hooks.json to trust")
    count = len(parse(_json(data, ".gg/hooks.json"), ".gg/hooks.json"))
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = os.open(home / f".{TRUST_FILE}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two `gg hooks trust` at once both land
        try:
            trust = json.loads(_read(home / TRUST_FILE) or b"{}")
        except ValueError:
            trust = {}
        if not isinstance(trust, dict) or not isinstance(trust.get("trusted"), dict):
            trust = {"trusted": {}}
        trust["trusted"][str(root)] = file_digest(data)
        _write_private(home / TRUST_FILE, (json.dumps(trust, indent=2) + "\n").encode())
    finally:
        os.close(lock)
    return count


def _write_private(path: Path, payload: bytes) -> None:
    """Owner-only (0600), fsynced, never half-written: a temp file renamed over the old one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = [
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "HOME_FILE",
    "TRUST_FILE",
    "WORKSPACE_FILE",
    "HookCommand",
    "HookConfigError",
    "LoadedHooks",
    "load",
    "parse",
    "trust_workspace",
    "trusted_digests",
]
