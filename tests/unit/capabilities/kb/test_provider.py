"""The kb provider's question at every session's start: is any base indexed?"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from pathlib import Path
from ggd.capabilities.kb.config import KbConfig
from ggd.capabilities.kb.provider import KbProvider
p = KbProvider(Path(sys.argv[1]), KbConfig(), {})
print(json.dumps({"absent": p.available(None), "sqlite3": "sqlite3" in sys.modules}))
"""


def _ask(home: Path) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(home)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_without_a_base_the_tool_is_absent_and_sqlite_stays_unimported(tmp_path: Path) -> None:
    # Asked at the start of every session (so on every first model request): the store and
    # sqlite3 come with the first kb call, not with this question.
    facts = _ask(tmp_path)
    assert facts == {"absent": "no knowledge base indexed yet", "sqlite3": False}


def test_an_indexed_base_makes_the_tool_available(tmp_path: Path) -> None:
    (tmp_path / "kb" / "notes").mkdir(parents=True)
    (tmp_path / "kb" / "notes" / "index.sqlite").write_bytes(b"")
    (tmp_path / "kb" / ".hidden").mkdir()  # not a base name: ignored
    assert _ask(tmp_path)["absent"] is None
