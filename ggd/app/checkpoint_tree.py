"""Which workspace state each node of a session's tree refers to, from its `checkpoint` entries.

A `checkpoint` entry (docs/session-format.md) is appended on the active branch when a snapshot
differs from the state the branch already records: at a turn's start and end, and around each
tool that can change files. Its `at` says when; its nearest `message` ancestor is the node it
describes. The state at a message node is its first own checkpoint (`at` not "restore"), else
its nearest message ancestor's: between two checkpoints only read-only work happened.
Restores (`at: "restore"`, with `op`: undo, redo or restore) never describe a node; they are
the undo/redo history of the branch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ggd.session import Entry, SessionFile

KIND = "checkpoint"


def _nearest_message(sf: SessionFile, entry_id: str | None) -> str | None:
    cur = sf.get(entry_id) if entry_id else None
    while cur is not None and cur.kind != "message":
        cur = sf.get(cur.parent_id) if cur.parent_id else None
    return cur.id if cur is not None else None


def own_states(sf: SessionFile) -> dict[str | None, str]:
    """message id (None: before any message) -> commit of its first own checkpoint."""
    own: dict[str | None, str] = {}
    for e in sf.entries:
        if e.kind != KIND or e.data.get("at") == "restore":
            continue
        commit = e.data.get("commit")
        if not isinstance(commit, str):
            continue
        node = _nearest_message(sf, e.parent_id)
        own.setdefault(node, commit)
    return own


def state_at(
    sf: SessionFile, node_id: str | None, own: dict[str | None, str] | None = None
) -> str | None:
    """The commit recorded for a message node (walking up to the nearest one that has one)."""
    own = own_states(sf) if own is None else own
    cur = _nearest_message(sf, node_id)
    while cur is not None:
        if cur in own:
            return own[cur]
        entry = sf.get(cur)
        cur = _nearest_message(sf, entry.parent_id) if entry is not None else None
    return own.get(None)


def leaf_state(sf: SessionFile) -> str | None:
    """The state the active branch records at its leaf."""
    return state_at(sf, sf.leaf_id)


def record(
    sf: SessionFile, commit: str, at: str, skipped: tuple[str, ...], run_id: str | None = None
) -> Entry | None:
    """Append a checkpoint entry on the active branch unless the branch already records it.

    A turn's start names its run (`runId`) and is always written: gg/session.diff finds a
    run's turn by it, after a restart too.
    """
    if run_id is None and state_at(sf, sf.leaf_id) == commit:
        return None
    data: dict[str, Any] = {"commit": commit, "at": at}
    if run_id is not None:
        data["runId"] = run_id
    if skipped:
        data["skipped"] = list(skipped)
    return sf.append(KIND, data)


def turn_of_run(sf: SessionFile, run_id: str) -> str | None:
    """The user message (turn) a run answered, from its turn_start checkpoint entry."""
    for e in sf.entries:
        if e.kind == KIND and e.data.get("runId") == run_id:
            return _nearest_message(sf, e.parent_id)
    return None


@dataclass(frozen=True)
class UndoStep:
    """What an undo or redo restores: the commit, and the turn it is about."""

    target: str
    turn: str


def turns(sf: SessionFile) -> list[Entry]:
    """The user messages on the active branch (each one a turn), oldest first."""
    return [e for e in sf.active_path() if e.kind == "message" and e.data.get("role") == "user"]


def undo_stack(sf: SessionFile) -> tuple[list[Entry], Entry | None]:
    """The undo entries on the active branch not yet redone, since its last turn or restore,
    and the last restore (checkout with files) when nothing came after it."""
    stack: list[Entry] = []
    restored: Entry | None = None
    for e in sf.active_path():
        if e.kind == "message" and e.data.get("role") == "user":
            stack, restored = [], None
        elif e.kind == KIND and e.data.get("at") == "restore":
            op = e.data.get("op")
            restored = None
            if op == "undo":
                stack.append(e)
            elif op == "redo" and stack:
                stack.pop()
            elif op == "restore":
                stack, restored = [], e
    return stack, restored


def next_undo(sf: SessionFile) -> UndoStep | None:
    """The state before the last turn not undone yet (None: nothing to undo)."""
    all_turns = turns(sf)
    stack, restored = undo_stack(sf)
    if restored is not None:  # undo a restore: back to the files it replaced
        return UndoStep(target=str(restored.data.get("from")), turn=restored.id)
    ids = [t.id for t in all_turns]
    if stack:
        last = str(stack[-1].data.get("turn"))
        idx = ids.index(last) - 1 if last in ids else len(ids) - 1
    else:
        idx = len(ids) - 1
    own = own_states(sf)
    while idx >= 0:
        target = state_at(sf, ids[idx], own)
        if target is not None:
            return UndoStep(target=target, turn=ids[idx])
        idx -= 1
    return None


def next_redo(sf: SessionFile) -> UndoStep | None:
    """The state the last undo replaced (None: nothing to redo)."""
    stack, _restored = undo_stack(sf)
    if not stack:
        return None
    top = stack[-1]
    return UndoStep(target=str(top.data.get("from")), turn=str(top.data.get("turn")))


def turn_range(sf: SessionFile, turn_id: str | None) -> tuple[str | None, str | None, str | None]:
    """(turn id, state at its start, state at its end) of a turn; None: the last turn.

    A turn ends where the next one starts, or at the branch's leaf for the last one.
    """
    all_turns = turns(sf)
    if not all_turns:
        return None, None, None
    ids = [t.id for t in all_turns]
    if turn_id is None:
        turn_id = ids[-1]
    if turn_id not in ids:
        return turn_id, None, None
    idx = ids.index(turn_id)
    own = own_states(sf)
    start = state_at(sf, turn_id, own)
    if idx + 1 < len(ids):
        nxt = sf.get(ids[idx + 1])
        end = state_at(sf, nxt.parent_id if nxt else None, own)
    else:
        end = state_at(sf, _last_non_restore(sf), own)
    return turn_id, start, end


def _last_non_restore(sf: SessionFile) -> str | None:
    path = sf.active_path()
    for e in reversed(path):
        if not (e.kind == KIND and e.data.get("at") == "restore"):
            return e.id
    return None
