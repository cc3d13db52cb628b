"""Approvers, the capability registry, the supervisor and config sections, without a daemon."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from ggd.app import (
    Capability,
    CapabilityRegistry,
    Contribution,
    ScopeContext,
    SessionContext,
    SetupContext,
    Supervisor,
    ToolProvider,
    UnattendedApprover,
    Workspace,
)
from ggd.app.capabilities import sanitize_reason
from ggd.app.run import Run
from ggd.daemon.config import ConfigError, load_config
from ggd.providers.types import ToolCall
from ggd.tools import ApprovalInfo
from ggd.tools.builtin import builtin_tools


def _run() -> Run:
    return Run(session_id="s", interactive=False, approval_mode="yolo", model="m")


@pytest.mark.parametrize("allow_all", [False, True])
async def test_the_unattended_approver_never_allows_a_dangerous_command(allow_all: bool) -> None:
    bash = next(t for t in builtin_tools() if t.name == "bash")
    call = ToolCall(id="c", name="bash", arguments={"command": "rm -rf ~"})
    info = ApprovalInfo(summary="bash rm -rf ~", risk="dangerous")
    verdict = await UnattendedApprover(allow_all=allow_all).decide(_run(), call, bash, info)
    assert not verdict.allow and "dangerous" in verdict.reason


async def test_the_unattended_approver_denies_gated_tools_unless_opted_in() -> None:
    edit = next(t for t in builtin_tools() if t.name == "edit")
    call = ToolCall(id="c", name="edit", arguments={})
    info = ApprovalInfo(summary="edit a.py", risk="normal")
    denied = await UnattendedApprover().decide(_run(), call, edit, info)
    assert not denied.allow and "allowAll" in denied.reason
    assert (await UnattendedApprover(allow_all=True).decide(_run(), call, edit, info)).allow


class _Boom(ToolProvider):
    name = "boom"

    async def build(self, session: SessionContext) -> Contribution:
        raise RuntimeError("no luck")


class _Fine(ToolProvider):
    name = "fine"
    capabilities = ("fine",)

    async def build(self, session: SessionContext) -> Contribution:
        return Contribution(tools=builtin_tools()[:1])


def _registry(tmp_path: Path, *providers: ToolProvider) -> CapabilityRegistry:
    cap = Capability(name="t", summary="t", providers=lambda s: list(providers))
    return CapabilityRegistry([cap], SetupContext(home=tmp_path, config=None, env={}))


async def test_one_failing_build_degrades_only_that_provider(tmp_path: Path) -> None:
    reg = _registry(tmp_path, _Boom(), _Fine())
    ws = Workspace(id="w1", name="w", root=tmp_path)
    scope = ScopeContext(home=tmp_path, workspace=ws)
    turn = await reg.build(lambda p: SessionContext(home=tmp_path, workspace=ws), scope)
    assert [t.name for t in turn.tools] == ["read"]
    assert reg.degraded("w1") == [{"name": "boom", "reason": "no luck"}]
    assert reg.degraded("w2") == []  # workspace-wide, not daemon-wide
    assert reg.advertised(scope) == ["fine"]


def test_duplicate_provider_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unique"):
        _registry(tmp_path, _Fine(), _Fine())


def test_reasons_lose_secrets_and_paths(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-abcdef123456", "HOMEISH": "x"}
    text = f"bad key sk-abcdef123456 at {tmp_path}/sub/file.db\nand more"
    out = sanitize_reason(text, env, gg_home=tmp_path)
    assert "sk-abc" not in out and str(tmp_path) not in out and "\n" not in out
    assert "GG_HOME/sub/file.db" in out
    assert sanitize_reason("open /srv/secret/place/x.sock", {}) == "open …/x.sock"


async def test_the_supervisor_records_a_crash_and_stops_the_rest(tmp_path: Path) -> None:
    class Crash:
        name = "crash"

        async def run(self) -> None:
            raise ValueError("bad state")

        async def stop(self) -> None:
            return None

    class Sleepy:
        name = "sleepy"

        def __init__(self) -> None:
            self.stopped = asyncio.Event()

        async def run(self) -> None:
            await self.stopped.wait()

        async def stop(self) -> None:
            self.stopped.set()

    sup = Supervisor()
    sup.start(Crash())
    sup.start(Sleepy())
    sup.disabled("off", "--no-off")
    for _ in range(50):
        await asyncio.sleep(0)
    states = {s.name: s for s in sup.states()}
    assert states["crash"].state == "failed" and "bad state" in (states["crash"].error or "")
    assert states["sleepy"].state == "running" and states["off"].state == "disabled"
    await sup.stop()
    assert {s.name: s.state for s in sup.states()}["sleepy"] == "stopped"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool = True


def test_config_sections_are_validated_and_unknown_keys_named(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"maxTurns": 10, "memory": {"enabled": False}}))
    config, sections = load_config(path, {"memory": _Section})
    assert config.maxTurns == 10 and sections["memory"].enabled is False  # type: ignore[attr-defined]
    path.write_text(json.dumps({"memory": {"enabeld": True}}))
    with pytest.raises(ConfigError, match=r"unknown key 'memory.enabeld' \(known: enabled\)"):
        load_config(path, {"memory": _Section})
    path.write_text(json.dumps({"modle": "x"}))
    with pytest.raises(ConfigError, match=r"unknown key .modle. \(known: model.*memory"):
        load_config(path, {"memory": _Section})


def test_an_absent_config_section_is_exactly_the_defaults_a_validated_empty_one_gives(
    tmp_path: Path,
) -> None:
    # Absent sections are constructed, not validated (their validators are never built at
    # start): that must give every shipped capability what validating `{}` would have.
    from ggd.daemon.catalog import builtin
    from ggd.daemon.compose import config_sections

    models = config_sections(builtin())
    assert len(models) >= 8
    _, sections = load_config(tmp_path / "config.json", models)  # no file: every section absent
    for key, model in models.items():
        made = sections[key]
        assert type(made) is model and made == model.model_validate({}), key
        assert made.model_dump() == model.model_validate({}).model_dump(), key


async def test_a_deferred_handler_whose_module_fails_to_import_is_a_typed_error() -> None:
    from ggd.app import DeferredHandlers, DeferredRows
    from ggd.app.capabilities import CapabilityRegistry
    from ggd.protocol import errors as E

    cap = Capability(
        name="broken",
        summary="A capability whose modules are missing.",
        methods=DeferredRows("ggd.capabilities.no_such_module", "nothing"),
        handlers=DeferredHandlers("ggd.capabilities.no_such_module"),
    )
    registry = CapabilityRegistry(
        [cap], SetupContext(home=Path("/nonexistent"), config=None, env={})
    )
    assert registry.requests() == ()  # nothing imported at assembly
    # The gate lets its area through (the call gets the error); other areas are unknown.
    assert registry.serves("gg/nothing.here") and not registry.serves("gg/else.here")
    with pytest.raises(
        E.CapabilityUnavailableError, match=r"no_such_module\.protocol could not be imported"
    ):
        registry.route("gg/nothing.here")
    with pytest.raises(E.CapabilityUnavailableError):
        registry.row("gg/nothing.here")


async def test_a_run_without_an_approver_is_refused_never_allowed() -> None:
    from ggd.app import RunManager
    from ggd.protocol import errors as E

    rm = RunManager.__new__(RunManager)  # the check comes before anything is touched
    with pytest.raises(E.InternalError, match="approver"):
        await rm.start(object(), "hi", approver=None)  # type: ignore[arg-type]
