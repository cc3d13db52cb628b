"""In a terminal the answer's Markdown is rendered: tables drawn, fences labelled, words kept whole."""

from __future__ import annotations

import pytest

from .conftest import CliEnv, strip_ansi

pytestmark = pytest.mark.timeout(90)
WORDS = " ".join(f"word{i:03d}" for i in range(60))  # ~480 characters, one paragraph
ANSWER = (
    "Results:\n\n| file | lines |\n|------|------:|\n| `a.py` | 12 |\n| b.py | 7 |\n\n"
    "```python\nprint('hi')\n```\n" + WORDS + "\n"
)


def _shown(raw: str) -> str:
    """The screen as a terminal shows it: backspaces take characters back."""
    out: list[str] = []
    for ch in strip_ansi(raw.replace("\x1b[K", "")):
        if ch == "\b":
            if out and out[-1] != "\n":
                out.pop()
        else:
            out.append(ch)
    return "".join(out)


def test_tables_fences_and_wrapping_in_a_terminal(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": ANSWER, "chunkSize": 7}])
    p = real_env.pty("-p", "summarise")  # the pty is 120 columns wide
    p.expect("word059")
    assert p.wait() == 0
    screen = p.text
    assert "| file |" not in screen and "|------|" not in screen and "```" not in screen
    assert "│ file   │ lines │" in screen, screen
    assert "│ `a.py` │    12 │" in screen
    assert "╭─ python" in screen and "│ print('hi')" in screen
    para = [ln for ln in _shown(p.raw).splitlines() if ln.startswith("word")]
    assert len(para) >= 4 and all(len(ln) <= 120 for ln in para), para
    assert " ".join(para).split() == WORDS.split()  # no word was cut in two


def test_piped_answer_stays_the_models_text(real_env: CliEnv) -> None:
    real_env.model.add_steps([{"text": ANSWER}])
    r = real_env.run("-p", "summarise")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ANSWER
