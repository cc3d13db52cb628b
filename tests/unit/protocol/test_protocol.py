"""The protocol package: generated files fresh, cheap import, one handler per table row."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from ggd.app import Capability, CapabilityRegistry, SetupContext
from ggd.daemon.export import full_errors, full_table
from ggd.protocol import BY_NAME, METHODS, PROTOCOL_VERSION, errors
from ggd.protocol.events import RUN_EVENT_ADAPTER
from ggd.protocol.export import check, render
from ggd.protocol.run import RunStartParams

ROOT = Path(__file__).resolve().parents[3]


def test_generated_protocol_folder_is_up_to_date() -> None:
    problems = check(ROOT / "protocol", full_table(), full_errors())
    assert not problems, (
        "protocol/ is stale; run `python -m ggd.daemon.export protocol`:\n" + "\n".join(problems)
    )


def test_generated_files_are_deterministic_and_canonical() -> None:
    first, second = render(full_table()), render(full_table())
    assert first == second
    for rel, text in first.items():
        assert "\r" not in text
        if rel.endswith(".json"):
            assert json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n" == text


def test_every_method_has_a_schema_an_example_and_a_spec_section() -> None:
    files = render(full_table())
    for spec in full_table():
        assert f"schemas/{spec.name.removeprefix('gg/')}.json" in files
        assert f"### {spec.name}" in files["README.md"]
        assert spec.example, f"{spec.name} has no example exchange"
        assert f'"{spec.name}"' in files["gg-protocol.d.ts"]


def test_importing_the_protocol_stays_cheap() -> None:
    code = (
        "import sys, ggd.protocol;"
        "heavy=[m for m in sys.modules if m.split('.')[0] in ('pygls','lsprotocol','httpx','mcp','websockets')];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_every_request_row_has_exactly_one_handler_and_every_handler_a_row() -> None:
    from ggd.rpc.handlers import CAPABILITY

    rows = {m.name for m in METHODS if m.kind == "request" and m.direction == "client"}
    assert set(CAPABILITY.handlers) == rows
    assert tuple(CAPABILITY.methods) == tuple(METHODS)
    assert all(BY_NAME[m.name] is m for m in CAPABILITY.methods)


def test_every_capability_request_row_has_a_handler_of_its_own_capability() -> None:
    from ggd.daemon.catalog import builtin

    for cap in builtin():
        rows = {m.name for m in cap.methods if m.kind == "request"}
        assert set(cap.handlers) == rows, cap.name
        assert all(m.area for m in cap.methods)


def test_deferred_capabilities_own_exactly_the_areas_of_their_rows() -> None:
    # Until its modules are imported, a deferred capability answers for its areas: a row outside
    # them would be unreachable, a handler without a row (or a row without one) broken.
    from ggd.app import DeferredHandlers, DeferredRows
    from ggd.daemon.catalog import builtin

    deferred = [c for c in builtin() if isinstance(c.methods, DeferredRows)]
    assert len(deferred) >= 8
    for cap in deferred:
        assert isinstance(cap.methods, DeferredRows) and isinstance(cap.handlers, DeferredHandlers)
        rows = cap.methods.rows()
        assert {m.area for m in rows} == set(cap.methods.areas), cap.name
        requests = [m.name for m in rows if m.kind == "request" and m.direction == "client"]
        assert set(cap.handlers.handlers()) == set(requests), cap.name
        assert all(callable(cap.handlers[name]) for name in requests)


def test_error_symbols_are_unique_and_shaped() -> None:
    symbols = [c.symbol for c in full_errors()]
    assert len(symbols) == len(set(symbols))
    err = errors.RunConflictError("busy").to_error()
    assert err == {"code": -32003, "message": "busy", "data": {"code": "run_conflict", "retryable": True}}


def test_capability_errors_live_in_their_packages_and_join_one_table() -> None:
    table = full_errors()
    owners = {c.symbol: c.__module__ for c in table}
    assert owners["artifact_not_found"] == "ggd.capabilities.artifacts.errors"
    assert owners["version_changed"] == "ggd.capabilities.artifacts.errors"
    assert owners["job_not_found"] == "ggd.capabilities.scheduler.errors"
    assert owners["kb_not_found"] == "ggd.capabilities.kb.errors"
    assert not any(c.__module__.startswith("ggd.capabilities") for c in errors.ERROR_CLASSES)
    # gg's own codes in order, then JSON-RPC's standard ones (the wire tables' order).
    assert [c.code for c in table[:16]] == list(range(-32001, -32017, -1))
    assert [c.symbol for c in table[16:]] == [
        "invalid_params",
        "not_initialized",
        "method_not_found",
        "internal_error",
    ]


class _Taken(errors.GgError):
    code, symbol = -32001, "mine"


class _Copy(errors.GgError):
    code, symbol = -32901, "run_conflict"


def test_a_code_or_symbol_claimed_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="-32001 claimed by SessionNotFoundError and _Taken"):
        errors.error_table([_Taken])
    with pytest.raises(ValueError, match="'run_conflict' claimed by RunConflictError and _Copy"):
        errors.error_table([_Copy])
    setup = SetupContext(home=tmp_path, config=None, env={})
    with pytest.raises(ValueError, match="claimed by"):
        CapabilityRegistry([Capability(name="x", summary="x", errors=(_Taken,))], setup)
    reg = CapabilityRegistry([], setup)
    with pytest.raises(ValueError, match="claimed by"):
        reg.register(Capability(name="y", summary="y", errors=(_Copy,)))


def test_params_reject_unknown_fields_and_name_them() -> None:
    with pytest.raises(ValidationError) as exc:
        RunStartParams.model_validate({"sessionId": "s", "prompt": "hi", "bogus": 1})
    assert "bogus" in str(exc.value)
    ok = RunStartParams.model_validate({"sessionId": "s", "prompt": "hi"})
    assert ok.approval_mode is None and ok.subscribe is True  # None: the daemon default


def test_run_events_round_trip_through_the_tagged_union() -> None:
    wire = {"runId": "r", "sessionId": "s", "sequence": 3, "timestamp": 1, "type": "text_delta", "text": "hi"}
    ev = RUN_EVENT_ADAPTER.validate_python(wire)
    assert ev.wire() == wire
    with pytest.raises(ValidationError):
        RUN_EVENT_ADAPTER.validate_python({**wire, "type": "nope"})


def test_protocol_version_is_major_minor() -> None:
    major, minor = PROTOCOL_VERSION.split(".")
    assert major.isdigit() and minor.isdigit()
