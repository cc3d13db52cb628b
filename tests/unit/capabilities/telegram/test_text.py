"""Splitting replies at Telegram's 4096 limit on boundaries, with code fences kept balanced."""

from __future__ import annotations

from ggd.capabilities.telegram import text


def test_short_text_is_one_chunk_escaped() -> None:
    assert text.pieces("a < b & c") == ["a &lt; b &amp; c"]


def test_long_text_splits_on_paragraphs_within_the_limit() -> None:
    paras = [f"paragraph {i} " + "word " * 150 for i in range(20)]
    body = "\n\n".join(paras)
    chunks = text.split(body)
    assert len(chunks) > 1
    assert all(len(c) <= text.LIMIT for c in chunks)
    # Every cut fell between paragraphs: each chunk starts a paragraph.
    assert all(c.startswith("paragraph ") for c in chunks)
    assert "".join(c.replace("\n\n", "") for c in chunks) == body.replace("\n\n", "")


def test_a_cut_code_fence_is_closed_and_reopened() -> None:
    code = "\n".join(f"line_{i} = {i}" for i in range(600))
    chunks = text.split(f"intro\n\n```python\n{code}\n```\n\nafter")
    assert len(chunks) > 1
    for c in chunks:
        assert c.count("```") % 2 == 0, c[:80]
        assert len(c) <= text.LIMIT
    rendered = text.pieces(f"```\n{code}\n```")
    assert all(r.startswith("<pre>") and len(r) <= text.LIMIT for r in rendered)


def test_escaping_that_overflows_splits_finer() -> None:
    chunks = text.pieces("<" * 4000)
    assert all(len(c) <= text.LIMIT for c in chunks)
    assert "".join(chunks) == "&lt;" * 4000
    words = text.pieces("a<b & " * 1000)  # 6000 characters, 13000 escaped
    assert len(words) <= 5 and all(len(c) <= text.LIMIT for c in words)
