"""Typing while a run streams stays out of the answer; queued steers show until the model takes them."""

from __future__ import annotations

import re

import pytest

from .conftest import CliEnv, wait_for
from .test_cli_terminal import wait_for_file

pytestmark = pytest.mark.timeout(90)
_CSI = re.compile(r"\x1b\[(\d*)([A-Za-z])")


def screen(raw: str) -> list[str]:
    """The lines a terminal shows after `raw`: \\r, \\b, \\n, ESC[K, ESC[J and ESC[nA applied."""
    lines: list[list[str]] = [[]]
    row = col = 0
    i = 0
    while i < len(raw):
        m = _CSI.match(raw, i)
        if m:
            n, op = int(m.group(1) or 1), m.group(2)
            if op == "A":
                row = max(0, row - n)
            elif op == "K":
                del lines[row][col:]
            elif op == "J":
                del lines[row][col:]
                del lines[row + 1 :]
            i = m.end()
            continue
        ch = raw[i]
        i += 1
        if ch == "\n":
            row += 1
            col = 0
            while len(lines) <= row:
                lines.append([])
        elif ch == "\r":
            col = 0
        elif ch == "\b":
            col = max(0, col - 1)
        elif ch >= " ":
            line = lines[row]
            line.extend(" " * (col - len(line)))
            if col < len(line):
                line[col] = ch
            else:
                line.append(ch)
            col += 1
    return ["".join(ln).rstrip() for ln in lines]


def test_typing_during_a_run_stays_out_of_the_stream(real_env: CliEnv) -> None:
    real_env.model.add_steps(
        [
            {"text": "working", "toolCalls": [wait_for_file("go")]},
            {"text": "steered ok", "expect": {"lastUser": "turn left"}},
        ]
    )
    p = real_env.pty("--yolo")
    p.expect("gg> ")
    p.send("second\r")
    p.expect("working")
    p.send("turn")
    assert wait_for(lambda: "› turn" in screen(p.raw), 10)
    p.send(" left")
    assert wait_for(lambda: "› turn left" in screen(p.raw), 10)
    shown = screen(p.raw)
    assert "working" in shown, shown  # the answer's line is intact, not "workingturn left"
    assert not any("working" in ln and "turn" in ln for ln in shown)
    p.send("\r")
    assert wait_for(lambda: "  ⋯ queued steer: turn left" in screen(p.raw), 10)
    (real_env.ws / "go").touch()
    p.expect("steered ok")
    p.expect("gg> ")
    final = screen(p.raw)
    assert "› turn left" in final  # the run said the model took it...
    assert not any("queued steer" in ln for ln in final)  # ...so it is no longer listed
    assert final.index("› turn left") < next(i for i, ln in enumerate(final) if "steered ok" in ln)
    p.send("\x04")
    assert p.wait() == 0
    assert not real_env.model.mismatches


def test_text_typed_but_not_sent_comes_back_as_the_next_draft(real_env: CliEnv) -> None:
    real_env.model.add_steps(
        [{"text": "busy", "toolCalls": [wait_for_file("go")]}, {"text": "done"}]
    )
    p = real_env.pty("--yolo")
    p.expect("gg> ")
    p.send("start\r")
    p.expect("busy")
    p.send("half a thought")
    assert wait_for(lambda: "› half a thought" in screen(p.raw), 10)
    (real_env.ws / "go").touch()
    p.expect("done")
    p.expect("gg> half a thought")  # the REPL offers it again, editable
    p.send("\x15\x04")
    assert p.wait() == 0
