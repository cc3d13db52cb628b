"""GG_HOME/telegram/state.json: the update offset and each chat's session, surviving restarts.

The offset is written after every batch of updates is handled (acked), so a restart neither
replays an answered message nor loses one that was never handled. Read-modify-write runs under a
portalocker lock; the file is 0600 in a 0700 directory, replaced atomically.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from ggd.app.files import owner_lock, write_private


class TelegramState:
    """The persisted offset and chat -> session map (thread-safe; call from a worker thread)."""

    def __init__(self, home: Path) -> None:
        self.dir = home / "telegram"
        self.path = self.dir / "state.json"
        self._lock_path = self.dir / "state.lock"
        self._mutex = threading.Lock()

    def _ensure(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.dir, 0o700)

    def load(self) -> dict[str, Any]:
        """The whole state; an absent file is the empty state."""
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {"offset": 0, "chats": {}}
        except (OSError, ValueError):
            # A corrupt file must not stop the bot; start over (old updates are not replayed
            # because the Bot API already confirmed them with the last offset we sent).
            return {"offset": 0, "chats": {}}
        if not isinstance(data, dict):
            return {"offset": 0, "chats": {}}
        data.setdefault("offset", 0)
        data.setdefault("chats", {})
        return data

    def _mutate(self, change: Any) -> dict[str, Any]:
        self._ensure()
        with self._mutex, owner_lock(self._lock_path, timeout=10):
            data = self.load()
            change(data)
            write_private(self.path, json.dumps(data, indent=1).encode())
            return data

    def offset(self) -> int:
        """The next update id to ask for."""
        return int(self.load().get("offset", 0))

    def set_offset(self, offset: int) -> None:
        """Ack every update below `offset`."""

        def change(d: dict[str, Any]) -> None:
            d["offset"] = max(int(d.get("offset", 0)), offset)

        self._mutate(change)

    def session(self, chat_id: int) -> str | None:
        """The chat's session id, if it has one."""
        value = self.load()["chats"].get(str(chat_id))
        return value if isinstance(value, str) else None

    def set_session(self, chat_id: int, session_id: str | None) -> None:
        """Remember (or forget, for /new) the chat's session."""

        def change(d: dict[str, Any]) -> None:
            if session_id is None:
                d["chats"].pop(str(chat_id), None)
            else:
                d["chats"][str(chat_id)] = session_id

        self._mutate(change)
