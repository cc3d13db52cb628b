"""Telegram text: split at 4096 characters on paragraph or code-fence boundaries, escape HTML.

Replies are sent with parse_mode=HTML after escaping, so model output can never be a parse
error; fenced code blocks become <pre> blocks. A chunk never ends inside a code fence: a fence
that must be cut is closed at the end of one chunk and reopened at the start of the next.
"""

from __future__ import annotations

import html
import re

LIMIT = 4096
# Room for the markup a chunk gains when rendered (<pre>, escapes) is taken by splitting the
# plain text at a smaller size and checking the rendered length.
_FENCE = re.compile(r"^```", re.M)


def _cut(text: str, limit: int) -> int:
    """Where to end the first chunk: the last paragraph, line, then space break before `limit`."""
    if len(text) <= limit:
        return len(text)
    window = text[:limit]
    for sep in ("\n\n", "\n", " "):
        at = window.rfind(sep)
        if at > limit // 4:
            return at + len(sep)
    return limit


def split(text: str, limit: int = LIMIT) -> list[str]:
    """Chunks of at most `limit` characters, cut on boundaries; fences kept balanced."""
    chunks: list[str] = []
    rest = text
    reopen = ""
    while rest:
        body = reopen + rest
        # Leave room for a closing fence should this chunk end inside a code block.
        n = _cut(body, limit - 4)
        head, rest = body[:n], body[n:]
        if len(_FENCE.findall(head)) % 2 == 1 and rest:
            head = head.rstrip("\n") + "\n```"
            reopen = "```\n"
        else:
            reopen = ""
        head = head.strip("\n")
        if head:
            chunks.append(head)
        if not rest.strip():
            break
    return chunks or [""]


def render(chunk: str) -> str:
    """HTML for one chunk: everything escaped, fenced blocks as <pre>."""
    out: list[str] = []
    parts = re.split(r"^```[^\n]*\n?", chunk, flags=re.M)
    for i, part in enumerate(parts):
        escaped = html.escape(part, quote=False)
        out.append(f"<pre>{escaped.rstrip()}</pre>" if i % 2 == 1 else escaped)
    return "".join(out)


def pieces(text: str) -> list[str]:
    """Rendered chunks, each within Telegram's limit (escaping can grow a chunk: split finer)."""
    out: list[str] = []

    def add(chunk: str) -> None:
        rendered = render(chunk)
        if len(rendered) <= LIMIT:
            out.append(rendered)
            return
        smaller = int(len(chunk) * LIMIT / len(rendered) * 0.9)
        if smaller < 256:
            # Pathological markup density: plain escaped text in pieces sure to fit.
            out.extend(html.escape(c, quote=False) for c in split(chunk, LIMIT // 5))
            return
        for c in split(chunk, smaller):
            add(c)

    for chunk in split(text):
        add(chunk)
    return out
