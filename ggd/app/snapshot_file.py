"""The derived snapshot file: a session's wire-form messages and tree, kept beside its JSONL.

What gg/session.open sends is JSON, and most of it (the messages and the tree) depends only
on the session file. Kept as those JSON bytes in a derived file (ggd.session.derived), an open
reads them back and splices them into the answer as msgspec.Raw: no Python object per message,
no encoding. The bytes are exactly what msgspec makes of the lists ggd.app.snapshot builds, so
the answer's JSON text is the same as building them (tests/unit/app/test_snapshot_file.py).

Payload: three compact JSON texts joined by newlines (JSON text from msgspec has none raw):
the facts the top-level fields need (name, first prompt, model, summary), then the messages
list, then the tree rows list.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from ggd.protocol import Snapshot, WorkspaceRef
from ggd.session import SessionFile
from ggd.session.codec import bulk_allocation
from ggd.session.derived import DerivedKind

from .naming import session_name
from .snapshot import SnapshotView, assemble, lists, tree_rows

__all__ = ["SNAPSHOT", "payload", "view_from"]

log = logging.getLogger("ggd.app")

# Bump the key when what the payload holds or how the lists are built changes: files of the
# old key are then foreign, ignored and rebuilt.
SNAPSHOT = DerivedKind(".snap", b"gg.snapshot/2")  # 2: messages carry their thinking


class _Meta(msgspec.Struct, forbid_unknown_fields=True):
    name: str | None
    first_prompt: str = msgspec.field(name="firstPrompt")
    model: str | None = None
    summary: str | None = None


_ENCODER = msgspec.json.Encoder()
_META = msgspec.json.Decoder(_Meta)


def payload(sf: SessionFile) -> bytes | None:
    """The derived file's payload for sf's current view; None when msgspec cannot encode it.

    Raises what building the snapshot raises (a message the models refuse), as the answer
    built without the file would.
    """
    with bulk_allocation():
        tree = sf.tree_with(tree_rows)
        messages, rows, summary = lists(sf.active_path(), tree, sf.tree)
    buf = bytearray()
    try:
        _ENCODER.encode_into(_Meta(sf.name, sf.first_prompt, sf.model, summary), buf, -1)
        buf += b"\n"
        _ENCODER.encode_into(messages, buf, -1)
        buf += b"\n"
        _ENCODER.encode_into(rows, buf, -1)
    except (TypeError, ValueError, OverflowError):
        # A lone surrogate or an int msgspec refuses: the answer then goes out through
        # pygls' own encoder, as it did before; nothing is cached.
        return None
    return buf  # type: ignore[return-value]  # a bytearray: no copy of tens of MB


def view_from(
    data: bytes,
    cls: type[Snapshot],
    *,
    session_id: str,
    active_run_id: str | None,
    workspace: WorkspaceRef,
    **extra: Any,
) -> SnapshotView | None:
    """The answer around a payload's raw lists; None if the payload is not one of ours."""
    first = data.find(b"\n")
    second = data.find(b"\n", first + 1)
    if first < 0 or second < 0:
        return None
    try:
        meta = _META.decode(memoryview(data)[:first])
    except msgspec.DecodeError:
        return None
    view = memoryview(data)
    return assemble(
        cls,
        session_id=session_id,
        name=session_name(meta.name, meta.first_prompt),
        model=meta.model or "",
        summary=meta.summary,
        messages=msgspec.Raw(view[first + 1 : second]),
        tree=msgspec.Raw(view[second + 1 :]),
        active_run_id=active_run_id,
        workspace=workspace,
        **extra,
    )
