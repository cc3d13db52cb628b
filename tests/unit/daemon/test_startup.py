"""ggd's start-up path: what the import phase leaves behind for the serving daemon."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PROBE = """
import gc, json, pathlib, sys
import importlib
main = importlib.import_module("ggd.daemon.main")
main._import_app()
print(json.dumps({
    "gc_enabled": gc.isenabled(),
    "frozen": gc.get_freeze_count(),
    "app": "ggd.daemon.app" in sys.modules,
    "home_entries": sorted(p.name for p in pathlib.Path(sys.argv[1]).iterdir()),
    "lazy": sorted({m.split(".")[0] for m in sys.modules} & {"websockets", "psutil", "apscheduler", "click", "portalocker"}),
    "capability_rows": sorted(
        m for m in sys.modules
        if m.startswith("ggd.capabilities.") and m.rsplit(".", 1)[1] in ("protocol", "handlers")
    ),
}))
"""


def _probe(home: Path) -> dict[str, Any]:
    """What PROBE reports after a fresh interpreter's import phase, GG_HOME = home."""
    env = {**os.environ, "GG_HOME": str(home)}
    home.mkdir(exist_ok=True)
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(home)], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    facts: dict[str, Any] = json.loads(out.stdout)
    return facts


def test_the_import_phase_reenables_the_collector_and_freezes_what_it_made(
    tmp_path: Path,
) -> None:
    facts = _probe(tmp_path)
    assert facts["app"] and facts["gc_enabled"]
    # Start-up objects sit in the permanent generation: later full collections skip them.
    assert facts["frozen"] > 100_000


def test_the_import_phase_writes_nothing_under_gg_home(tmp_path: Path) -> None:
    # No start-up cache: a first start and a later one import the same way.
    assert _probe(tmp_path / "home")["home_entries"] == []


def test_libraries_no_first_request_needs_stay_unimported(tmp_path: Path) -> None:
    # websockets (only --ws serves it), psutil and APScheduler (a computer or scheduler tool
    # imports them when it runs), httpx's command line (click): ~30 ms of every start; and
    # portalocker (~10-20 ms: importlib.metadata, its redis shim), taken only for a lock.
    assert _probe(tmp_path)["lazy"] == []


def test_capability_rows_and_handlers_wait_for_their_first_call(tmp_path: Path) -> None:
    # Their pydantic models and what the handlers call were ~30 ms of every start; the catalog
    # knows each capability's request names and binds them without importing the modules.
    assert _probe(tmp_path)["capability_rows"] == []


CONFIG_PROBE = """
import json, sys
from pathlib import Path
import pydantic
from ggd.daemon.catalog import builtin
from ggd.daemon.compose import config_sections
from ggd.daemon.config import load_config
load_config(Path(sys.argv[1]) / "config.json", config_sections(builtin()))
built = []
todo = list(pydantic.BaseModel.__subclasses__())
while todo:
    cls = todo.pop()
    todo.extend(cls.__subclasses__())
    # __pydantic_complete__: pydantic's public flag that a model's validator is built
    if cls.__module__.startswith("ggd.capabilities.") and cls.__dict__.get(
        "__pydantic_complete__", False
    ):
        built.append(cls.__qualname__)
print(json.dumps(sorted(built)))
"""


def test_without_a_config_file_no_capability_validator_is_built(tmp_path: Path) -> None:
    # Absent sections are constructed defaults, nested ones too (kb.embeddings, media.image...):
    # building their validators only to fill in defaults was part of every start.
    out = subprocess.run(
        [sys.executable, "-c", CONFIG_PROBE, str(tmp_path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []
