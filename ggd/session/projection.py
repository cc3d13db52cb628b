"""Read-side projections of an entry list: paths, messages, tree, name, preview, summary."""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

from .model import Entry, SessionHeader, SessionSummary, TreeNode
from .usage import own_usage, usage_totals

__all__ = [
    "METADATA_KINDS",
    "first_prompt",
    "latest",
    "message_text",
    "path_to",
    "preview_of",
    "short",
    "summarize",
    "tree_nodes",
    "tree_text",
]

# Session-level facts, not conversation: a fork/clone carries them in its new header instead.
METADATA_KINDS = frozenset({"head", "session_info", "model"})

PREVIEW_CHARS = 80
TREE_TEXT_CHARS = 120


def path_to(by_id: dict[str, Entry], node_id: str | None) -> list[Entry]:
    """Entries root..node_id following parentId (empty for None)."""
    path: list[Entry] = []
    while node_id is not None:
        entry = by_id[node_id]
        path.append(entry)
        node_id = entry.parent_id
    path.reverse()
    return path


def message_text(data: dict[str, Any]) -> str:
    """Plain text of a protocol Message (string content or a list of text parts)."""
    content = data.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return " ".join(p for p in parts if isinstance(p, str))
    return ""


def short(text: str, limit: int) -> str:
    """Whitespace collapsed and cut to limit characters (with an ellipsis when cut)."""
    text = " ".join(text[: limit * 4].split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def latest(entries: Sequence[Entry], kind: str, key: str, default: str | None) -> str | None:
    """data[key] of the last entry of kind in file order, else default."""
    for entry in reversed(entries):
        if entry.kind == kind:
            value = entry.data.get(key)
            return value if isinstance(value, str) else default
    return default


def preview_of(path: Sequence[Entry]) -> str:
    """Short text of the first user message on a path."""
    for entry in path:
        if entry.kind == "message" and entry.data.get("role") == "user":
            return short(message_text(entry.data), PREVIEW_CHARS)
    return ""


def first_prompt(entries: Sequence[Entry]) -> str:
    """Short text of the session's first user message in file order (whatever branch is active)."""
    return preview_of(entries)


def tree_text(data: dict[str, Any]) -> str:
    """A tree node's text of a message whose content is not a plain string (or is long)."""
    content = data.get("content")
    text = content if isinstance(content, str) else message_text(data)
    if len(text) > TREE_TEXT_CHARS:
        text = text[: TREE_TEXT_CHARS - 1] + "…"
    if "\n" in text or "\t" in text or "\r" in text:
        text = " ".join(text.split())  # rare; a full collapse costs ~1 µs per node
    return text


def tree_nodes(
    entries: Sequence[Entry], active: bytes | bytearray, targets: Container[str]
) -> list[TreeNode]:
    """One TreeNode per message entry in file order; active[i] marks entries[i] active.

    targets holds the ids some entry names as parent without being the line after it
    (Chain.targets): only their nodes are remembered, as parents precede children.
    """
    # id of a target -> the node of the nearest message at/above it (None: no message);
    # every other entry's parent is the previous line, whose node is still in hand.
    above: dict[str, TreeNode | None] = {}
    nodes: list[TreeNode] = []
    add = nodes.append
    prev_id: str | None = None
    prev_node: TreeNode | None = None
    for e, on in zip(entries, active, strict=True):
        pid = e.parent_id
        eid = e.id
        anc = prev_node if pid == prev_id else (None if pid is None else above[pid])
        prev_id = eid
        if e.kind != "message":
            prev_node = anc
            if eid in targets:
                above[eid] = anc
            continue
        data = e.data
        text = tree_text(data)
        role = data.get("role")
        if type(role) is not str:
            role = ""
        if anc is None:
            node = TreeNode(eid, None, 0, role, text, on == 1, e.timestamp)
        else:
            node = TreeNode(eid, anc.id, anc.depth + 1, role, text, on == 1, e.timestamp)
        prev_node = node
        if eid in targets:
            above[eid] = node
        add(node)
    return nodes


def summarize(
    header: SessionHeader,
    entries: Sequence[Entry],
    active: Sequence[Entry],
    damaged: bool = False,
) -> SessionSummary:
    """The list row of a session from its header, entries and active path."""
    return SessionSummary(
        id=header.id,
        workspace_id=header.workspace_id,
        name=latest(entries, "session_info", "name", header.name),
        model=latest(entries, "model", "model", header.model),
        created_at=header.created_at,
        updated_at=max(entries[-1].timestamp, header.created_at) if entries else header.created_at,
        message_count=sum(1 for e in active if e.kind == "message"),
        preview=preview_of(active),
        parent=header.parent,
        first_prompt=first_prompt(entries),
        damaged=damaged,
        usage=usage_totals(own_usage(header, entries)),
    )
