"""Streaming Markdown for the terminal: headings, **bold**, `code`, fenced blocks, tables, wrapping.

Text is emitted as soon as it cannot change meaning: only a possible marker at the start of a line
(`#`, a fence, a table's `|`), a lone `*`, a table (until its last row) and, when wrapping, the
current word are held back. Piped (not a terminal) it is the identity, byte for byte.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ggcli.render import Style

__all__ = ["MarkdownStream", "render_table"]

# Markers around output the wrapper must not re-flow (code blocks, tables). Stripped from input.
_NOWRAP_ON, _NOWRAP_OFF = "\x0e", "\x0f"
_ESC = re.compile(r"\x1b\[[0-9;]*m")
_SEPARATOR_CELL = re.compile(r"^\s*:?-{1,}:?\s*$")


def _visible(text: str) -> int:
    return len(_ESC.sub("", text))


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def _cell_text(cell: str, st: Style, header: bool) -> str:
    """Inline markers of a cell rendered: **bold** and `code` (backticks kept without colour)."""
    parts = re.split(r"(\*\*[^*]+\*\*|`[^`]+`)", cell)
    out = []
    for part in parts:
        if part.startswith("**") and part.endswith("**") and len(part) > 4:
            out.append(st(part[2:-2], "bold"))
        elif part.startswith("`") and part.endswith("`") and len(part) > 2:
            out.append(st(part[1:-1], "cyan") if st.enabled else part)
        else:
            out.append(st(part, "bold") if header and part else part)
    return "".join(out)


def render_table(lines: list[str], st: Style) -> str:
    """A Markdown table drawn with box characters, columns aligned (`:--:` alignment honoured)."""
    rows = [_cells(ln) for ln in lines]
    align: list[str] = []
    if len(rows) > 1 and rows[1] and all(_SEPARATOR_CELL.match(c) for c in rows[1]):
        for c in rows[1]:
            c = c.strip()
            align.append(
                "c" if c.startswith(":") and c.endswith(":") else "r" if c.endswith(":") else "l"
            )
        header, body = rows[0], rows[2:]
    else:
        header, body = [], rows
    ncols = max(len(r) for r in [header, *body] if r) if any([header, *body]) else 0
    grid = [
        [_cell_text(r[i] if i < len(r) else "", st, ri == 0 and bool(header)) for i in range(ncols)]
        for ri, r in enumerate([header, *body] if header else body)
    ]
    widths = [max(_visible(row[i]) for row in grid) for i in range(ncols)]

    def fmt(row: list[str]) -> str:
        cells = []
        for i, cell in enumerate(row):
            pad = widths[i] - _visible(cell)
            a = align[i] if i < len(align) else "l"
            if a == "r":
                cell = " " * pad + cell
            elif a == "c":
                cell = " " * (pad // 2) + cell + " " * (pad - pad // 2)
            else:
                cell = cell + " " * pad
            cells.append(" " + cell + " ")
        bar = st("│", "dim")
        return bar + bar.join(cells) + bar

    def rule(left: str, mid: str, right: str) -> str:
        return st(left + mid.join("─" * (w + 2) for w in widths) + right, "dim")

    out = [rule("┌", "┬", "┐")]
    for i, row in enumerate(grid):
        out.append(fmt(row))
        if i == 0 and header:
            out.append(rule("├", "┼", "┤"))
    out.append(rule("└", "┴", "┘"))
    return "\n".join(out) + "\n"


class _Wrapper:
    """Breaks lines at spaces before the terminal would cut a word; escapes have no width.

    Text streams out at once. When a word that started mid-line grows past the right edge, it is
    taken back (backspaces, clear to end of line) and printed again on the next line.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self.col = 0
        self.word: list[str] = []  # what was printed of the current word (for a reprint)
        self.word_len = 0
        self.word_col = 0  # column where the current word started
        self.in_word = False
        self.spaces = 0  # spaces after the last word: written only if the next word fits
        self.raw = False

    def feed(self, text: str) -> str:
        if self.width <= 0:
            return text.replace(_NOWRAP_ON, "").replace(_NOWRAP_OFF, "")
        out: list[str] = []
        i = 0
        while i < len(text):
            m = _ESC.match(text, i)
            if m:
                out.append(m.group(0))
                if self.in_word:
                    self.word.append(m.group(0))
                i = m.end()
                continue
            ch = text[i]
            i += 1
            if ch == _NOWRAP_ON:
                self._end_word(out)
                self.raw = True
            elif ch == _NOWRAP_OFF:
                self.raw = False
            elif self.raw:
                out.append(ch)
                self.col = 0 if ch == "\n" else self.col + 1
            elif ch == "\n":
                self.spaces = 0
                self.in_word = False
                out.append("\n")
                self.col = 0
            elif ch == " ":
                self.in_word = False
                self.spaces += 1
            else:
                self._char(ch, out)
        return "".join(out)

    def flush(self) -> str:
        out: list[str] = []
        self._end_word(out)
        return "".join(out)

    def _end_word(self, out: list[str]) -> None:
        out.append(" " * self.spaces)
        self.col += self.spaces
        self.spaces = 0
        self.in_word = False

    def _char(self, ch: str, out: list[str]) -> None:
        if not self.in_word:
            if self.col > 0 and self.col + self.spaces + 1 > self.width:
                out.append("\n")  # the spaces before the break are dropped
                self.col = 0
            else:
                out.append(" " * self.spaces)
                self.col += self.spaces
            self.spaces = 0
            self.in_word, self.word, self.word_len, self.word_col = True, [], 0, self.col
        if self.col + 1 > self.width and self.word_col > 0:
            # The word no longer fits after what precedes it: move it to a new line.
            out.append("\b" * self.word_len + "\x1b[K\n" + "".join(self.word))
            self.col, self.word_col = self.word_len, 0
        elif self.col + 1 > self.width:
            self.col = 0  # longer than a line: the terminal wraps it, as it must
        out.append(ch)
        self.word.append(ch)
        self.word_len += 1
        self.col += 1


class MarkdownStream:
    """Renders Markdown as it streams in; `render` off (piped output) makes it the identity.

    With colour off (NO_COLOR) on a terminal, structure is still rendered: tables are drawn,
    fences become a labelled gutter, long lines break between words at `width` columns.
    """

    def __init__(self, style: Style, render: bool | None = None, width: int = 0) -> None:
        self.style = style
        self.render = style.enabled if render is None else render
        self._wrap = _Wrapper(width if self.render else 0)
        self._line_start = True
        self._held = ""  # characters whose meaning depends on what follows
        self._in_fence = False
        self._heading = False
        self._bold = False
        self._code = False
        self._table: list[str] = []
        self._table_line: str | None = None

    def feed(self, text: str) -> str:
        """Consume streamed text; return what can be written now."""
        if not self.render:
            return text
        out: list[str] = []
        for ch in text.replace(_NOWRAP_ON, "").replace(_NOWRAP_OFF, ""):
            self._step(ch, out)
        return self._wrap.feed("".join(out))

    def finish(self) -> str:
        """Flush held characters and reset styles at the end of a message."""
        if not self.render:
            return ""
        out: list[str] = []
        if self._table_line is not None:
            self._table.append(self._table_line)
            self._table_line = None
        self._flush_table(out)
        out.append(self._held)
        self._held = ""
        if self._bold or self._code or self._heading or self._in_fence:
            out.append(self.style.reset)
        if self._in_fence:
            out.append(_NOWRAP_OFF)
        self._bold = self._code = self._heading = self._in_fence = False
        self._line_start = True
        return self._wrap.feed("".join(out)) + self._wrap.flush()

    def _active(self) -> str:
        names: list[str] = []
        if self._in_fence:
            names.append("cyan")
        if self._heading:
            names += ["bold", "magenta"]
        if self._bold:
            names.append("bold")
        if self._code:
            names.append("cyan")
        return self.style.reset + self.style.code(*names) if names else self.style.reset

    def _flush_table(self, out: list[str]) -> None:
        if self._table:
            out.append(_NOWRAP_ON + render_table(self._table, self.style) + _NOWRAP_OFF)
            self._table = []

    def _step(self, ch: str, out: list[str]) -> None:
        if self._table_line is not None:
            if ch == "\n":
                self._table.append(self._table_line)
                self._table_line = None
                self._line_start = True
            else:
                self._table_line += ch
            return
        if self._line_start and not self._held and not self._in_fence:
            if ch == "|":
                self._table_line = "|"  # a table row: held until the table ends
                return
            self._flush_table(out)
        if self._line_start:
            self._held += ch
            held = self._held
            if "```".startswith(held) or held.startswith("```"):
                if ch != "\n":
                    return
                self._fence(held, out)
                return
            if not self._in_fence and held.strip("#") == "" and len(held) <= 6:
                return  # maybe a heading: wait for the character after the hashes
            self._held = ""
            self._line_start = False
            if self._in_fence:
                out.append(self.style("│ ", "dim") + self._active())
            if not self._in_fence and held.startswith("#") and held.lstrip("#")[:1] == " ":
                self._heading = True
                out.append(self._active())
            for c in held:
                self._inline(c, out)
            return
        self._inline(ch, out)

    def _fence(self, held: str, out: list[str]) -> None:
        """A fence line: open (with its language as a label) or close a code block."""
        self._held = ""
        if not self._in_fence:
            self._in_fence = True
            lang = held.strip()[3:].strip()
            out.append(_NOWRAP_ON + self.style("╭─ " + lang if lang else "╭─", "dim") + "\n")
            out.append(self._active())
        else:
            self._in_fence = False
            out.append(self.style.reset + self.style("╰─", "dim") + "\n" + _NOWRAP_OFF)

    def _inline(self, ch: str, out: list[str]) -> None:
        if ch == "\n":
            out.append(self._held)
            self._held = ""
            if self._heading or self._bold or self._code:
                self._heading = self._bold = self._code = False
                out.append(self._active())
            out.append("\n")
            self._line_start = True
            return
        if self._in_fence:
            out.append(ch)
            return
        if self._held == "*":
            self._held = ""
            if ch == "*":
                self._bold = not self._bold
                out.append(self._active())
                return
            out.append("*")
        if ch == "*":
            self._held = "*"
            return
        if ch == "`":
            self._code = not self._code
            # Without colour the backticks are the only sign of code: keep them.
            out.append(self._active() if self.style.enabled else "`")
            return
        out.append(ch)
