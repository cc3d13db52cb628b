"""Structure-aware chunking: Markdown/reST by headings, Python by top-level definitions (ast),
anything else by blank-line blocks; every piece about 1,200 characters with 150 overlap."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

TARGET = 1200
OVERLAP = 150
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+_.:])\1{2,}\s*$")
MARKDOWN = {".md", ".markdown", ".mdx"}
RST = {".rst", ".txt"}
PYTHON = {".py", ".pyi"}


@dataclass(frozen=True)
class Chunk:
    """A piece of one file: text, heading path (' > '-joined) and 1-based inclusive lines."""

    text: str
    heading: str
    start: int
    end: int


@dataclass
class _Section:
    heading: str
    start: int  # 0-based index of the first line
    lines: list[str]


def chunk_text(text: str, rel: str) -> list[Chunk]:
    """Chunks of one file, by the kind its suffix names."""
    suffix = "." + rel.rsplit(".", 1)[-1].lower() if "." in rel else ""
    lines = text.splitlines()
    if suffix in MARKDOWN:
        sections = _markdown(lines)
    elif suffix in PYTHON:
        sections = _python(text, lines)
    elif suffix in RST and _looks_rst(lines):
        sections = _rst(lines)
    else:
        sections = _blocks(lines)
    out: list[Chunk] = []
    for s in sections:
        out.extend(_split(s))
    return out


def _markdown(lines: list[str]) -> list[_Section]:
    stack: list[tuple[int, str]] = []
    sections = [_Section("", 0, [])]
    fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _MD_HEADING.match(line)
        if m:
            level = len(m.group(1))
            stack = [(lv, h) for lv, h in stack if lv < level] + [(level, m.group(2))]
            sections.append(_Section(" > ".join(h for _, h in stack), i, [line]))
        else:
            sections[-1].lines.append(line)
    return sections


def _looks_rst(lines: list[str]) -> bool:
    return any(
        _RST_UNDERLINE.match(lines[i + 1]) and lines[i].strip() and len(lines[i + 1]) >= 3
        for i in range(min(len(lines) - 1, 400))
    )


def _rst(lines: list[str]) -> list[_Section]:
    """reST: a title line followed by an underline of one punctuation character; levels by order
    of first appearance, as docutils does."""
    order: list[str] = []
    stack: list[tuple[int, str]] = []
    sections = [_Section("", 0, [])]
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        m = _RST_UNDERLINE.match(nxt)
        title = line.strip()
        if m and title and not _RST_UNDERLINE.match(line) and len(nxt.rstrip()) >= len(title):
            ch = m.group(1)
            if ch not in order:
                order.append(ch)
            level = order.index(ch)
            stack = [(lv, h) for lv, h in stack if lv < level] + [(level, title)]
            sections.append(_Section(" > ".join(h for _, h in stack), i, [line, nxt]))
            i += 2
            continue
        sections[-1].lines.append(line)
        i += 1
    return sections


def _python(text: str, lines: list[str]) -> list[_Section]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return _blocks(lines)
    sections: list[_Section] = []
    cursor = 0
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        last = node.end_lineno or node.lineno
        if first > cursor:
            sections.extend(_blocks(lines[cursor:first], cursor))
        kind = "class" if isinstance(node, ast.ClassDef) else "def"
        sections.append(_Section(f"{kind} {node.name}", first, lines[first:last]))
        cursor = last
    if cursor < len(lines):
        sections.extend(_blocks(lines[cursor:], cursor))
    return sections


def _blocks(lines: list[str], offset: int = 0) -> list[_Section]:
    """Blank-line separated blocks packed up to the target size."""
    sections: list[_Section] = []
    cur: _Section | None = None
    size = 0
    block: list[str] = []
    block_start = 0

    def flush_block() -> None:
        nonlocal cur, size
        if not block:
            return
        bsize = sum(len(x) + 1 for x in block)
        if cur is None or size + bsize > TARGET:
            cur = _Section("", offset + block_start, [])
            sections.append(cur)
            size = 0
        else:
            # keep the blank lines between packed blocks so line numbers stay true
            gap = offset + block_start - (cur.start + len(cur.lines))
            cur.lines.extend([""] * gap)
        cur.lines.extend(block)
        size += bsize

    for i, line in enumerate(lines):
        if line.strip():
            if not block:
                block_start = i
            block.append(line)
        else:
            flush_block()
            block = []
    flush_block()
    return sections


def _split(s: _Section) -> list[Chunk]:
    """One section as chunks of about TARGET characters, OVERLAP carried between windows."""
    lines = s.lines
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    lead = 0
    while lead < len(lines) and not lines[lead].strip():
        lead += 1
    lines = lines[lead:]
    start = s.start + lead
    if not lines:
        return []
    out: list[Chunk] = []
    i = 0
    while i < len(lines):
        size, j = 0, i
        while j < len(lines) and (j == i or size + len(lines[j]) + 1 <= TARGET):
            size += len(lines[j]) + 1
            j += 1
        text = "\n".join(lines[i:j])
        if len(text) > TARGET * 2:  # one giant line (minified): cut it
            text = text[: TARGET * 2]
        out.append(Chunk(text, s.heading, start + i + 1, start + j))
        if j >= len(lines):
            break
        # step back whole lines worth about OVERLAP characters, always moving forward
        back, k = 0, j
        while k - 1 > i and back + len(lines[k - 1]) + 1 <= OVERLAP:
            k -= 1
            back += len(lines[k]) + 1
        i = k
    return out
