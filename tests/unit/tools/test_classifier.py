"""The command classifier against the labelled corpus, plus hypothesis properties."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggd.tools import Classification, classify_command
from ggd.tools.shell.classifier import analyze_unguarded

CORPUS_PATH = Path(__file__).parents[2] / "data" / "classifier_corpus.jsonl"
CORPUS = [json.loads(line) for line in CORPUS_PATH.read_text().splitlines() if line.strip()]


@pytest.fixture
def corpus_ws(ws: Path) -> Path:
    """The workspace the corpus is labelled against: src/, build/ and linkout -> /etc."""
    (ws / "src").mkdir()
    (ws / "build").mkdir()
    (ws / "linkout").symlink_to("/etc")
    return ws


def test_corpus_is_big_and_has_the_traps() -> None:
    cmds = {row["cmd"]: row["risk"] for row in CORPUS}
    assert len(CORPUS) >= 300
    traps = {
        'echo "rm -rf /"': "read_only",
        "ls; rm -rf ~": "dangerous",
        "$(curl x | sh)": "dangerous",
        'bash -c "sudo reboot"': "dangerous",
        'eval "$(wget -O- x)"': "dangerous",
        "find . -delete": "dangerous",
        "git -c core.pager=less log": "dangerous",
        "r\\m -rf /": "dangerous",
        "'rm' -rf /": "dangerous",
        '"rm" -rf /': "dangerous",
        "cat foo > /etc/passwd": "dangerous",
        "ln -s / x; rm -rf x/": "dangerous",
    }
    for cmd, risk in traps.items():
        assert cmds.get(cmd) == risk, cmd
    assert {row["risk"] for row in CORPUS} == {"read_only", "normal", "dangerous"}


@pytest.mark.parametrize("row", CORPUS, ids=[f"{i}:{r['cmd'][:40]}" for i, r in enumerate(CORPUS)])
def test_corpus_label(row: dict[str, str], corpus_ws: Path) -> None:
    got = classify_command(row["cmd"], corpus_ws)
    assert got.risk == row["risk"], f"{row['cmd']!r}: {got.reason} ({row['note']})"
    assert got.reason.strip()


def test_no_dangerous_command_is_ever_read_only(corpus_ws: Path) -> None:
    leaks = [
        f"{row['cmd']!r} -> read_only ({classify_command(row['cmd'], corpus_ws).reason})"
        for row in CORPUS
        if row["risk"] == "dangerous"
        and classify_command(row["cmd"], corpus_ws).risk == "read_only"
    ]
    assert not leaks, "dangerous commands labelled read_only:\n" + "\n".join(leaks)


def test_reasons_name_the_danger(ws: Path) -> None:
    assert classify_command("rm -rf ~", ws).reason == "rm -r of the home directory"
    assert classify_command("curl x | sh", ws).reason == "download piped into a shell"
    assert "filesystem root" in classify_command("rm -rf /", ws).reason
    assert "outside the workspace" in classify_command("echo x > /etc/x", ws).reason


def test_real_symlink_out_of_the_workspace_is_followed(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    assert classify_command("echo x > link/file", ws).risk == "dangerous"
    assert classify_command("rm -rf link/", ws).risk == "dangerous"
    assert classify_command("cat link/file", ws).risk == "read_only"


def test_workspace_under_tmp_is_inside(ws: Path) -> None:
    # The fixture workspace lives under /tmp: /tmp paths outside it are still outside.
    assert classify_command(f"echo x > {ws}/a.txt", ws).risk == "normal"
    assert classify_command(f"rm -rf {ws}", ws).risk == "dangerous"
    assert classify_command(f"rm -rf {ws}/build", ws).risk == "normal"


def test_random_failure_is_dangerous(monkeypatch: pytest.MonkeyPatch, ws: Path) -> None:
    def boom(*args: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr("ggd.tools.shell.classifier.Analyzer.analyze", boom)
    assert classify_command("ls", ws) == Classification(
        "dangerous", "command could not be analysed"
    )


# --- properties ---------------------------------------------------------------------------

DANGEROUS_SEGMENTS = [
    "rm -rf /",
    "rm -fr ~",
    "rm -rf $HOME",
    "sudo ls",
    "mkfs.ext4 /dev/sda1",
    "dd if=/dev/zero of=/dev/sda",
    "reboot",
    "chmod -R 777 /",
    "kill -9 -1",
    "crontab -r",
    "cat x > /etc/passwd",
    "git -c core.pager=x log",
    "curl x | sh",
    "shutdown -h now",
    "echo x | tee /etc/hosts",
]
READ_ONLY = ["ls", "cat a.txt", "echo hi", "git status", "pwd", "grep -r x .", "true"]


def _quote_head(s: str) -> str:
    head, _, rest = s.partition(" ")
    return f'"{head}" {rest}'


def _backticks(s: str) -> str:
    return "`" + s.replace("\\", "\\\\").replace("`", "\\`") + "`"


def _single_quote_head(s: str) -> str:
    head, _, rest = s.partition(" ")
    return f"'{head}' {rest}"


# Quoting the command word is applied to the bare segment (quoting it twice changes its meaning).
HEAD_QUOTES: list[Callable[[str], str]] = [lambda s: s, _quote_head, _single_quote_head]
WRAPS: list[Callable[[str], str]] = [
    lambda s: "bash -c " + shlex.quote(s),
    lambda s: "sh -c " + shlex.quote(s),
    lambda s: "eval " + shlex.quote(s),
    lambda s: "$(" + s + ")",
    lambda s: "echo $(" + s + ")",
    _backticks,
    lambda s: "(" + s + ")",
    lambda s: "{ " + s + "; }",
    # Command prefixes take a simple command, not a `( )` or `{ }` group.
    lambda s: s if s[:1] in "({" else "env " + s,
    lambda s: s if s[:1] in "({" else "timeout 5 " + s,
]
JOINS = ["; ", " && ", " || ", " | ", " & ", "\n"]


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seg=st.sampled_from(DANGEROUS_SEGMENTS),
    quote=st.sampled_from(range(len(HEAD_QUOTES))),
    wraps=st.lists(st.sampled_from(range(len(WRAPS))), max_size=3),
    prefix=st.sampled_from(READ_ONLY),
    join=st.sampled_from(JOINS),
    chained=st.booleans(),
)
def test_wrapping_never_lowers_dangerous(
    ws: Path, seg: str, quote: int, wraps: list[int], prefix: str, join: str, chained: bool
) -> None:
    cmd = HEAD_QUOTES[quote](seg)
    for i in wraps:
        cmd = WRAPS[i](cmd)
    if chained:
        cmd = prefix + join + cmd
    got = classify_command(cmd, ws)
    assert got.risk == "dangerous", f"{cmd!r} -> {got}"


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=200))
def test_random_strings_never_crash(ws: Path, text: str) -> None:
    v = analyze_unguarded(text, ws)
    assert v.risk in ("read_only", "normal", "dangerous") and v.reason


SHELLISH = st.text(alphabet=" \t\n;&|()<>$`'\"\\{}*?[]~=#-/.abcmrx0123456789", max_size=120)


@settings(max_examples=500, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=SHELLISH)
def test_shell_punctuation_never_crashes(ws: Path, text: str) -> None:
    v = analyze_unguarded(text, ws)
    assert v.risk in ("read_only", "normal", "dangerous") and v.reason
