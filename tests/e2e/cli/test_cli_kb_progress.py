"""`gg kb index` shows its progress with a rate and an ETA: one redrawn line on a terminal, plain
lines in a pipe. The real gg, the daemon it starts, and a fake /v1/embeddings on 127.0.0.1 whose
gate holds a request, so the test sees the line while the run is half-way."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_embeddings import FakeEmbeddings

from .conftest import CliEnv

CHUNKS = 70  # the indexer embeds 32 at a time: three requests


@pytest.fixture
def emb(cli_env: CliEnv) -> Iterator[FakeEmbeddings]:
    f = FakeEmbeddings()
    cli_env.env |= {"GG_EMBEDDINGS_BASE_URL": f.base_url, "GG_EMBEDDINGS_MODEL": "fake-embed"}
    yield f
    f.close()


def _notes(ws: Path) -> Path:
    d = ws / "notes"
    d.mkdir()
    for i in range(CHUNKS):  # one short section each: one chunk per file
        (d / f"note{i:02d}.md").write_text(f"# Note {i}\n\nThe release train number {i} leaves.\n")
    return d


def test_a_terminal_gets_one_updating_line_with_rate_and_eta(
    cli_env: CliEnv, emb: FakeEmbeddings
) -> None:
    notes = _notes(cli_env.ws)
    emb.gate.clear()  # every request waits until let through
    p = cli_env.pty("kb", "index", str(notes), "--name", "notes")
    emb.wait_for_requests(1, timeout=60)
    emb.gate.set()  # releases the waiting request (Event.wait returns True for it) ...
    emb.gate.clear()  # ... and holds the next one
    emb.wait_for_requests(2, timeout=60)
    # half-way: 32 embedded, the second request held; the line says how fast and how long
    m = p.expect(rf"embed\s+\[#+\.+\] 32/{CHUNKS}\s+([\d.]+) chunks/s\s+ETA (\d+[smh])", 30)
    assert float(m.group(1)) > 0
    assert "\r\x1b[2K" in p.raw  # redrawn in place, not a new line per update
    emb.gate.set()
    p.expect(rf"notes: {CHUNKS} files \({CHUNKS} changed", 60)
    assert p.wait(30) == 0
    assert "Traceback" not in p.text


def test_a_pipe_gets_plain_lines_with_the_final_rate(cli_env: CliEnv, emb: FakeEmbeddings) -> None:
    notes = _notes(cli_env.ws)
    out = cli_env.run("kb", "index", str(notes), "--name", "notes", timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"notes: {CHUNKS} files" in out.stdout
    assert "\r" not in out.stderr and "\x1b" not in out.stderr  # no terminal codes in a log
    lines = out.stderr.splitlines()
    embeds = [ln for ln in lines if ln.startswith("embed")]
    assert embeds[0].startswith("embed") and f" 0/{CHUNKS}" in embeds[0]
    assert re.search(rf" {CHUNKS}/{CHUNKS}\s+[\d.]+ chunks/s\s+ETA 0s$", embeds[-1]), embeds
    assert any(ln.startswith("files") and f"{CHUNKS}/{CHUNKS}" in ln for ln in lines), lines
