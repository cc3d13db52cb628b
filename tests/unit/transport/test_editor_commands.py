"""The pure parts of the plain-LSP commands: ranges, arguments and client capabilities."""

from __future__ import annotations

import os

import pytest
from lsprotocol import types as lsp
from pygls.workspace import PositionCodec, TextDocument

from ggd.rpc.dispatch import GgRpcError
from ggd.rpc.editor.client import EditorCaps
from ggd.rpc.editor.commands import AskArgs, CancelArgs, Range, SelectionArgs, _parse, _selected

TEXT = "zero\none two\nthree\n"


def _range(a: int, b: int, c: int, d: int) -> Range:
    return Range.model_validate(
        {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}
    )


@pytest.mark.parametrize(
    ("rng", "expected"),
    [
        (_range(1, 4, 1, 7), "two"),  # inside one line
        (_range(0, 2, 1, 3), "ro\none"),  # across lines, end exclusive
        (_range(1, 0, 2, 0), "one two\n"),  # whole line: the end is the next line's start
        (_range(2, 0, 9, 0), "three\n"),  # an end past the file stops at its end
        (_range(7, 0, 9, 0), ""),  # a start past the file selects nothing
    ],
)
def test_selected_cuts_the_lsp_range(rng: Range, expected: str) -> None:
    assert _selected(TextDocument("file:///t", TEXT), rng) == expected


@pytest.mark.parametrize(
    ("encoding", "rng", "expected"),
    [
        # U+1F600 is two UTF-16 code units and four UTF-8 bytes: `b` starts at 3 or 5
        (lsp.PositionEncodingKind.Utf16, _range(0, 3, 0, 4), "b"),
        (lsp.PositionEncodingKind.Utf8, _range(0, 5, 0, 6), "b"),
        (lsp.PositionEncodingKind.Utf32, _range(0, 2, 0, 3), "b"),
        (lsp.PositionEncodingKind.Utf16, _range(0, 1, 1, 1), "\U0001f600b = 1\nx"),
    ],
)
def test_selected_counts_characters_in_the_negotiated_encoding(
    encoding: lsp.PositionEncodingKind, rng: Range, expected: str
) -> None:
    doc = TextDocument(
        "file:///t", "a\U0001f600b = 1\nxyz\n", position_codec=PositionCodec(encoding)
    )
    assert _selected(doc, rng) == expected


def test_arguments_are_a_prompt_string_or_one_object() -> None:
    assert _parse(AskArgs, ("hi",)).prompt == "hi"
    assert _parse(AskArgs, ({"prompt": "hi", "sessionId": "s1"},)).session_id == "s1"
    assert _parse(CancelArgs, ()).run_id is None
    sel = _parse(SelectionArgs, ({"uri": "file:///x", "range": _range(0, 0, 0, 1).model_dump()},))
    assert sel.prompt == "Explain this code."
    for bad in [(), (1,), ("a", "b"), ({"prompt": ""},), ({"prompt": "x", "extra": 1},)]:
        with pytest.raises(GgRpcError):
            _parse(AskArgs, bad)


def test_caps_follow_the_lsp_window_capabilities() -> None:
    assert EditorCaps.from_initialize(lsp.ClientCapabilities()) == EditorCaps()
    window = lsp.WindowClientCapabilities(
        work_done_progress=True,
        show_message=lsp.ShowMessageRequestClientCapabilities(),
        show_document=lsp.ShowDocumentClientCapabilities(support=False),
    )
    caps = EditorCaps.from_initialize(lsp.ClientCapabilities(window=window))
    assert caps == EditorCaps(work_done_progress=True, show_document=False)
    later = EditorCaps.from_initialize(lsp.ClientCapabilities(), {"asyncApprovals": True})
    assert later == EditorCaps(async_approvals=True)


async def test_a_client_process_that_is_not_visible_is_not_watched() -> None:
    """A pid from another namespace (a sandboxed editor) must not end the server at once."""
    import subprocess
    import sys

    from ggd.rpc.connection import Connection
    from ggd.rpc.editor.lifecycle import alive, watch_client_process

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert not alive(gone.pid)
    conn = Connection(transport="stdio")
    watch_client_process(conn, gone.pid, every=0.01)
    assert conn.on_close == []  # no watcher was started
    live = Connection(transport="stdio")
    watch_client_process(live, os.getpid(), every=0.01)
    assert len(live.on_close) == 1
    live.close()
