"""The input area under a streaming answer: what the user is typing and the steers still queued.

While a run streams in a terminal, keys are read in cbreak mode (no echo), so typing never lands in
the middle of the model's text. The area (queued steers, then `› typed text`) is drawn on stderr
below the output and erased before any other output is written, then drawn again once the output
is at the start of a line (or the user types). A queued steer stays listed until the run's
`user_message` event says the model took it.
"""

from __future__ import annotations

from typing import Any, TextIO

__all__ = ["GuardedStream", "InputArea"]


class InputArea:
    """The bottom lines of the terminal during a run."""

    def __init__(self, term: TextIO, width: int, style: Any) -> None:
        self.term = term
        self.width = max(20, width or 80)
        self.style = style
        self.typing = ""
        self.queued: list[str] = []
        self.shown = 0  # lines currently drawn
        self.suspended = False  # an approval question owns the terminal

    def _clip(self, text: str) -> str:
        limit = self.width - 1
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def lines(self) -> list[str]:
        """What the area shows now (empty: nothing to draw)."""
        out = [self.style(self._clip(f"  ⋯ queued steer: {q}"), "dim") for q in self.queued]
        if self.typing:
            out.append(self._clip("› " + self.typing))
        return out

    def hide(self) -> None:
        """Erase the area (the cursor ends where it began)."""
        if self.shown:
            up = f"\x1b[{self.shown - 1}A" if self.shown > 1 else ""
            self.term.write(up + "\r\x1b[J")
            self.term.flush()
            self.shown = 0

    def show(self) -> None:
        """Draw the area at the cursor, which must be at the start of a line."""
        if self.shown or self.suspended:
            return
        lines = self.lines()
        if lines:
            self.term.write("\n".join(lines))
            self.term.flush()
            self.shown = len(lines)

    def taken(self, text: str) -> bool:
        """The model took a queued steer: drop it from the list."""
        for i, q in enumerate(self.queued):
            if q.strip() == text.strip():
                del self.queued[i]
                return True
        return False

    def key(self, ch: str) -> str | None:
        """Edit the typed line; returns a submitted line on Enter."""
        if ch in ("\r", "\n"):
            line, self.typing = self.typing, ""
            return line
        if ch in ("\x7f", "\b"):
            self.typing = self.typing[:-1]
        elif ch == "\x15":  # Ctrl+U
            self.typing = ""
        elif ch == "\x17":  # Ctrl+W
            self.typing = self.typing.rstrip().rpartition(" ")[0]
            self.typing += " " if self.typing else ""
        elif ch >= " ":
            self.typing += ch
        return None


class GuardedStream:
    """A text stream that erases the input area before each write (the area is redrawn later)."""

    def __init__(self, inner: TextIO, area: InputArea) -> None:
        self.inner = inner
        self.area = area

    def write(self, text: str) -> int:
        """Erase the area, then write."""
        if text:
            self.area.hide()
        return self.inner.write(text)

    def flush(self) -> None:
        """Flush the wrapped stream."""
        self.inner.flush()

    def isatty(self) -> bool:
        """Whether the wrapped stream is a terminal."""
        return self.inner.isatty()

    def fileno(self) -> int:
        """The wrapped stream's descriptor."""
        return self.inner.fileno()
