"""A session's snapshot built straight into its wire dict, without a pydantic model per item.

A 10k-message session used to cost ~85 ms of pydantic (a Message and a TreeItem model per
item, then model_dump) before a client saw anything. Here each item is checked to hold only
values the models would pass through unchanged (exact JSON types, known literals); such items
become their wire dict directly, keyed and ordered as model_dump(by_alias, exclude_none) would
key them. Anything else (a wrong type, a coercible value, a non-finite float) goes through the
models, so the result and its errors are the model path's (tests/unit/app/test_snapshot_wire.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ggd.protocol import Message, Snapshot, TreeItem, WireModel, WorkspaceRef
from ggd.session import Entry
from ggd.session.model import TreeNode
from ggd.session.projection import tree_text

__all__ = [
    "SnapshotView",
    "assemble",
    "build",
    "lists",
    "message_dto",
    "message_wire",
    "plain",
    "tree_item",
    "tree_rows",
    "tree_wire",
]

_ROLES = frozenset({"system", "user", "assistant", "tool"})
_STOP_REASONS = frozenset({"end_turn", "tool_use", "error", "max_tokens", "canceled"})
# pydantic keeps ints of any size, but a bound keeps the fast path clear of any doubt.
_INT_BOUND = 1 << 63

_MESSAGE_KEYS = frozenset(
    {
        "role",
        "content",
        "toolCalls",
        "toolCallId",
        "toolName",
        "isError",
        "timestamp",
        "stopReason",
        "error",
        "thinking",
        "images",
    }
)


@dataclass(frozen=True, slots=True)
class SnapshotView:
    """A Snapshot (or SessionUpdate) already in wire form: what the rpc layer sends as is.

    `messages` and `tree` may be msgspec.Raw JSON spliced from the derived snapshot file
    (ggd.app.snapshot_file): msgspec encodes it as is; wire() decodes it for other callers.
    """

    data: dict[str, Any]

    @property
    def session_id(self) -> str:
        """The session id."""
        return str(self.data["sessionId"])

    @property
    def name(self) -> str:
        """The shown name."""
        return str(self.data["name"])

    def wire(self) -> dict[str, Any]:
        """The JSON-ready dict (camelCase keys, no None fields), raw JSON parts decoded."""
        return plain(self.data)


def plain(data: dict[str, Any]) -> dict[str, Any]:
    """data with its msgspec.Raw values decoded (for encoders other than msgspec)."""
    if not any(type(v) is msgspec.Raw for v in data.values()):
        return data
    return {k: msgspec.json.decode(v) if type(v) is msgspec.Raw else v for k, v in data.items()}


def message_dto(entry_id: str, data: dict[str, Any]) -> Message:
    """A stored message as the wire Message (unknown stored keys are ignored)."""
    known = {k: v for k, v in data.items() if k in _MESSAGE_KEYS}
    known.setdefault("timestamp", 0)
    return Message.model_validate({**known, "id": entry_id})


def _plain(value: Any) -> bool:
    """Whether a decoded JSON value dumps to itself in pydantic's json mode (no inf/nan)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    return False


def _tool_calls(calls: Any) -> list[dict[str, Any]] | None:
    """toolCalls as ToolCallRef would dump them, or None when the models must judge."""
    if type(calls) is not list:
        return None
    out: list[dict[str, Any]] = []
    for call in calls:
        if type(call) is not dict:
            return None
        cid, name, args = call.get("id"), call.get("name"), call.get("arguments", {})
        if type(cid) is not str or type(name) is not str or type(args) is not dict:
            return None
        if not _plain(args):
            return None
        out.append({"id": cid, "name": name, "arguments": args})
    return out


def message_wire(entry_id: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """message_dto(...).wire() for a message that needs no coercion, else None."""
    role = data.get("role")
    if type(role) is not str or role not in _ROLES:
        return None
    if "images" in data:  # rare: the models check the image refs
        return None
    out: dict[str, Any] = {"id": entry_id, "role": role}
    content = data.get("content")
    if content is not None:
        if type(content) is not str:
            return None
        out["content"] = content
    calls = data.get("toolCalls")
    if calls is not None:
        dumped = _tool_calls(calls)
        if dumped is None:
            return None
        out["toolCalls"] = dumped
    for key in ("toolCallId", "toolName"):
        value = data.get(key)
        if value is not None:
            if type(value) is not str:
                return None
            out[key] = value
    is_error = data.get("isError")
    if is_error is not None:
        if type(is_error) is not bool:
            return None
        out["isError"] = is_error
    ts = data.get("timestamp", 0)
    if type(ts) is not int or not -_INT_BOUND < ts < _INT_BOUND:
        return None
    out["timestamp"] = ts
    stop = data.get("stopReason")
    if stop is not None:
        if type(stop) is not str or stop not in _STOP_REASONS:
            return None
        out["stopReason"] = stop
    for key in ("error", "thinking"):
        value = data.get(key)
        if value is not None:
            if type(value) is not str:
                return None
            out[key] = value
    return out


def tree_rows(
    entries: Sequence[Entry], active: bytes | bytearray, targets: Container[str]
) -> list[dict[str, Any]] | None:
    """projection.tree_nodes straight into TreeItem wire dicts (no TreeNode in between).

    The same walk, text cut and depths (test_snapshot_wire compares it with the model path);
    None when a role is one TreeItem refuses, so the caller takes the model path.
    """
    # id of a target -> (id, depth) of the nearest message at/above it (None: no message)
    above: dict[str, tuple[str, int] | None] = {}
    rows: list[dict[str, Any]] = []
    add = rows.append
    roles = _ROLES
    prev_id: str | None = None
    prev: tuple[str, int] | None = None
    for e, on in zip(entries, active, strict=True):
        pid = e.parent_id
        eid = e.id
        anc = prev if pid == prev_id else (None if pid is None else above[pid])
        prev_id = eid
        if e.kind != "message":
            prev = anc
            if eid in targets:
                above[eid] = anc
            continue
        data = e.data
        text = tree_text(data)
        role = data.get("role")
        if type(role) is not str or role not in roles:
            return None
        if anc is None:
            prev = (eid, 0)
            add({"id": eid, "depth": 0, "role": role, "text": text, "active": on == 1})
        else:
            depth = anc[1] + 1
            prev = (eid, depth)
            add(
                {
                    "id": eid,
                    "parentId": anc[0],
                    "depth": depth,
                    "role": role,
                    "text": text,
                    "active": on == 1,
                }
            )
        if eid in targets:
            above[eid] = prev
    return rows


def tree_wire(nodes: Sequence[TreeNode]) -> list[dict[str, Any]]:
    """TreeItem(...).wire() of each node; a node the model would refuse goes through it."""
    out: list[dict[str, Any]] = []
    add = out.append
    roles = _ROLES
    for n in nodes:
        if n.role in roles:
            pid = n.parent_id
            if pid is None:
                add(
                    {
                        "id": n.id,
                        "depth": n.depth,
                        "role": n.role,
                        "text": n.text,
                        "active": n.active,
                    }
                )
            else:
                add(
                    {
                        "id": n.id,
                        "parentId": pid,
                        "depth": n.depth,
                        "role": n.role,
                        "text": n.text,
                        "active": n.active,
                    }
                )
        else:  # raises the model's ValidationError, as the model path did
            add(tree_item(n).wire())
    return out


def tree_item(n: TreeNode) -> TreeItem:
    """The wire model of one tree node (the model path; raises on a role TreeItem refuses)."""
    return TreeItem(
        id=n.id, parent_id=n.parent_id, depth=n.depth, role=n.role, text=n.text, active=n.active
    )


def lists(
    path: Sequence[Entry],
    tree: Sequence[dict[str, Any]] | None,
    nodes: Callable[[], Sequence[TreeNode]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    """(messages, tree rows, summary) of a snapshot in wire form, equal to the model path's.

    tree is tree_rows' result; when None, the TreeItem models judge nodes() (after the
    messages, so a bad session fails with the model path's first error).
    """
    messages: list[dict[str, Any]] = []
    add = messages.append
    summary: str | None = None
    for e in path:
        kind = e.kind
        if kind == "message":
            item = message_wire(e.id, e.data)
            add(item if item is not None else message_dto(e.id, e.data).wire())
        elif kind == "summary":
            summary = str(e.data.get("summary") or "")
    rows = list(tree) if tree is not None else tree_wire(nodes())
    return messages, rows, summary


def assemble(
    cls: type[Snapshot],
    *,
    session_id: str,
    name: str,
    model: str,
    summary: str | None,
    messages: Any,
    tree: Any,
    active_run_id: str | None,
    workspace: WorkspaceRef,
    **extra: Any,
) -> SnapshotView:
    """The wire dict of cls around ready messages and tree (dict lists or msgspec.Raw JSON)."""
    # The few top-level fields go through the model (their validation, their order); the two
    # lists are put in their places afterwards.
    head: WireModel = cls(
        session_id=session_id,
        name=name,
        model=model,
        summary=summary,
        messages=[],
        tree=[],
        active_run_id=active_run_id,
        workspace=workspace,
        **extra,
    )
    parts = {"messages": messages, "tree": tree}
    return SnapshotView({k: parts.get(k, v) for k, v in head.wire().items()})


def build(
    cls: type[Snapshot],
    *,
    session_id: str,
    name: str,
    model: str,
    path: Sequence[Entry],
    tree: Sequence[dict[str, Any]] | None,
    nodes: Callable[[], Sequence[TreeNode]],
    active_run_id: str | None,
    workspace: WorkspaceRef,
    **extra: Any,
) -> SnapshotView:
    """The wire dict of cls for an active path and tree, equal to the model path's wire()."""
    messages, rows, summary = lists(path, tree, nodes)
    return assemble(
        cls,
        session_id=session_id,
        name=name,
        model=model,
        summary=summary,
        messages=messages,
        tree=rows,
        active_run_id=active_run_id,
        workspace=workspace,
        **extra,
    )
