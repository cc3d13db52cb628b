"""Workspaces: stable ids for project roots, remembered across restarts (roots never leave ggd)."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .files import write_private

log = logging.getLogger("ggd.app")


@dataclass(frozen=True)
class Workspace:
    """A project root the agent works in."""

    id: str
    name: str
    root: Path


def workspace_id(root: Path) -> str:
    """A stable id derived from the resolved root path."""
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()
    return "w_" + digest[:12]


class WorkspaceRegistry:
    """Known workspaces by id; persisted to GG_HOME/workspaces.json (0600, atomic writes)."""

    def __init__(self, path: Path, default_root: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._by_id: dict[str, Workspace] = {}
        self._used: dict[str, int] = {}
        self._load()
        self.default = self.add(default_root)

    def _load(self) -> None:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
            for wid, row in data.get("workspaces", {}).items():
                root = Path(row["root"])
                if root.is_dir():
                    self._by_id[wid] = Workspace(wid, row.get("name") or root.name, root)
                    self._used[wid] = int(row.get("lastUsed", 0))
        except FileNotFoundError:
            pass
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("ignoring an unreadable workspaces.json")

    def add(self, root: Path) -> Workspace:
        """Register (or touch) a workspace root and return it."""
        root = root.resolve()
        wid = workspace_id(root)
        now = int(time.time() * 1000)
        with self._lock:
            known = self._by_id.get(wid)
            ws = known or Workspace(wid, root.name or str(root), root)
            self._by_id[wid] = ws
            stale = now - self._used.get(wid, 0) > 3_600_000
            self._used[wid] = now
            # Every connection's initialize lands here: write (and fsync) only what is new.
            if known is None or stale:
                self._save()
        return ws

    def get(self, wid: str) -> Workspace | None:
        """A workspace by id."""
        return self._by_id.get(wid)

    def all(self) -> list[Workspace]:
        """Every known workspace, most recently used first."""
        return sorted(self._by_id.values(), key=lambda w: -self._used.get(w.id, 0))

    def _save(self) -> None:
        rows = {
            w.id: {"root": str(w.root), "name": w.name, "lastUsed": self._used.get(w.id, 0)}
            for w in self._by_id.values()
        }
        payload = json.dumps({"version": 1, "workspaces": rows}, indent=1).encode()
        self._path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_private(self._path, payload)
