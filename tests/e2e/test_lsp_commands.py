"""Plain LSP clients (no gg plugin): workspace/executeCommand gg.ask & co. over `ggd --stdio`.

The test client speaks only LSP here: it answers window/showMessageRequest and
window/workDoneProgress/create itself and reads $/progress, window/showDocument and
window/logMessage; a scripted fake model decides what the agent does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.rpc_client import NO_REPLY, RpcClient, RpcError

WRITE_SCRIPT = {
    "steps": [
        {
            "text": "I'll create notes.md.",
            "toolCalls": [
                {"id": "c1", "name": "write", "arguments": {"path": "notes.md", "content": "# N\n"}}
            ],
        },
        {"text": "Done writing the notes.", "chunkSize": 5},
    ]
}
EDITOR = {
    "window": {
        "workDoneProgress": True,
        "showMessage": {"messageActionItem": {"additionalPropertiesSupport": False}},
    }
}


async def _lsp(
    daemon: Any, caps: dict[str, Any], answers: dict[str, Any], kind: str = "stdio"
) -> RpcClient:
    c = await daemon.open(kind)
    c.on_request = lambda method, params: answers.get(method)
    result = await c.initialize(daemon.workspace, name="plain-lsp", capabilities=caps)
    c.init_result = result  # type: ignore[attr-defined]
    return c


def _progress(c: RpcClient, token: str) -> list[dict[str, Any]]:
    return [p["value"] for p in c.events("$/progress") if p["token"] == token]


async def _ended(c: RpcClient, token: str) -> dict[str, Any]:
    params = await c.wait_for(
        "$/progress", lambda p: p["token"] == token and p["value"]["kind"] == "end", 30
    )
    return dict(params["value"])


def _asked(c: RpcClient, method: str) -> list[dict[str, Any]]:
    return [r["params"] for r in c.server_requests if r["method"] == method]


@pytest.mark.parametrize("kind", ["stdio", "unix"])  # unix: what `gg bridge` pumps bytes to
async def test_ask_streams_progress_asks_allow_and_the_file_changes(fake_daemon, kind) -> None:
    d, _fm = fake_daemon(WRITE_SCRIPT)
    c = await _lsp(d, EDITOR, {"window/showMessageRequest": {"title": "Allow"}}, kind)
    try:
        provider = c.init_result["capabilities"]["executeCommandProvider"]  # type: ignore[attr-defined]
        assert set(provider["commands"]) == {"gg.ask", "gg.askAboutSelection", "gg.cancel"}

        res = await c.request(
            "workspace/executeCommand", {"command": "gg.ask", "arguments": ["write the notes"]}
        )
        token = f"gg-{res['runId']}"
        end = await _ended(c, token)
        assert end["message"] == "done"
        values = _progress(c, token)
        assert values[0]["kind"] == "begin" and values[0]["message"] == "write the notes"
        reports = [v["message"] for v in values if v["kind"] == "report"]
        assert any(m.startswith("running write") for m in reports), reports
        assert any("Done writing the notes." in m for m in reports), reports
        assert _asked(c, "window/workDoneProgress/create") == [{"token": token}]

        ask = _asked(c, "window/showMessageRequest")
        assert len(ask) == 1 and "write" in ask[0]["message"]
        assert [a["title"] for a in ask[0]["actions"]] == ["Allow", "Deny"]
        assert (d.workspace / "notes.md").read_text() == "# N\n"

        # No showDocument support declared: the answer comes as a log message.
        log = await c.wait_for("window/logMessage", lambda p: "Done writing" in p["message"])
        assert log["type"] == 3
        transcript = Path(res["transcript"])
        assert transcript.name == f"{res['sessionId']}.md"
        text = transcript.read_text()
        assert "write the notes" in text and "Done writing the notes." in text

        # The run is an ordinary gg run: a gg client sees it in the session.
        snap = await c.request("gg/session.get", {"sessionId": res["sessionId"]})
        assert any("Done writing" in json.dumps(m) for m in snap["messages"])
    finally:
        await c.close()


async def test_deny_leaves_the_file_and_show_document_opens_the_transcript(fake_daemon) -> None:
    d, fm = fake_daemon(WRITE_SCRIPT)
    caps = {"window": {**EDITOR["window"], "showDocument": {"support": True}}}
    c = await _lsp(
        d,
        caps,
        {"window/showMessageRequest": {"title": "Deny"}, "window/showDocument": {"success": True}},
    )
    try:
        res = await c.request(
            "workspace/executeCommand",
            {"command": "gg.ask", "arguments": [{"prompt": "write the notes"}]},
        )
        await _ended(c, f"gg-{res['runId']}")
        assert not (d.workspace / "notes.md").exists()
        denial = json.dumps(fm.requests[-1]["messages"][-1])
        assert "denied" in denial
        shown = await c.wait_request("window/showDocument")
        assert shown == {"uri": Path(res["transcript"]).as_uri(), "takeFocus": True}
        assert not [n for n in c.events("window/logMessage") if "Done" in n["message"]]
    finally:
        await c.close()


async def test_an_editor_not_declaring_show_message_is_asked_and_dismissing_denies(
    fake_daemon,
) -> None:
    # eglot declares no window.showMessage yet answers the request (tests/e2e/test_lsp_editors.py)
    d, fm = fake_daemon(WRITE_SCRIPT)
    c = await _lsp(d, {"window": {"workDoneProgress": True}}, {})  # answers null: dismissed
    try:
        res = await c.request(
            "workspace/executeCommand", {"command": "gg.ask", "arguments": ["write the notes"]}
        )
        await _ended(c, f"gg-{res['runId']}")
        assert not (d.workspace / "notes.md").exists()
        assert len(_asked(c, "window/showMessageRequest")) == 1
        assert "denied" in json.dumps(fm.requests[-1]["messages"][-1])
    finally:
        await c.close()


async def test_ask_about_selection_sends_the_range_and_continues_the_session(fake_daemon) -> None:
    d, fm = fake_daemon({"steps": [{"text": "It adds."}, {"text": "Still adds."}]})
    src = d.workspace / "calc.py"
    src.write_text("import os\n\ndef add(a, b):\n    return a + b\n\nprint(add(1, 2))\n")
    c = await _lsp(d, {}, {})  # no progress, no showDocument: only logMessage
    try:
        rng = {"start": {"line": 2, "character": 0}, "end": {"line": 3, "character": 16}}
        args = {"uri": src.as_uri(), "range": rng, "prompt": "What does this do?"}
        res = await c.request(
            "workspace/executeCommand", {"command": "gg.askAboutSelection", "arguments": [args]}
        )
        await c.wait_for("window/logMessage", lambda p: "It adds." in p["message"], 30)
        user = fm.requests[0]["messages"][-1]["content"]
        user = user if isinstance(user, str) else json.dumps(user)
        assert "What does this do?" in user and "calc.py lines 3-4" in user
        assert "def add(a, b):\n    return a + b" in user and "import os" not in user
        assert not c.events("$/progress")

        again = await c.request(
            "workspace/executeCommand", {"command": "gg.ask", "arguments": ["and now?"]}
        )
        assert again["sessionId"] == res["sessionId"]  # the editor's conversation goes on
        await c.wait_for("window/logMessage", lambda p: "Still adds." in p["message"], 30)
    finally:
        await c.close()


async def test_cancel_ends_the_progress_and_bad_arguments_are_typed_errors(fake_daemon) -> None:
    d, _fm = fake_daemon({"steps": [{"text": "I will never finish", "hang": True}]})
    c = await _lsp(d, EDITOR, {})
    try:
        res = await c.request(
            "workspace/executeCommand", {"command": "gg.ask", "arguments": ["hang"]}
        )
        token = f"gg-{res['runId']}"
        await c.wait_for("$/progress", lambda p: p["token"] == token)
        canceled = await c.request(
            "workspace/executeCommand", {"command": "gg.cancel", "arguments": []}
        )
        assert canceled == {"canceled": True, "runId": res["runId"]}
        assert (await _ended(c, token))["message"] == "canceled"
        await c.wait_for("window/logMessage", lambda p: "canceled" in p["message"])

        outside = {
            "uri": "file:///etc/passwd",
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}},
        }
        for command, arguments, words in [
            ("gg.ask", [], "prompt"),
            ("gg.ask", [{"prompt": "x", "bogus": 1}], "bogus"),
            ("gg.askAboutSelection", [outside], "outside"),
            ("gg.nope", [], "gg.nope"),
        ]:
            with pytest.raises(RpcError) as err:
                await c.request(
                    "workspace/executeCommand", {"command": command, "arguments": arguments}
                )
            assert err.value.code == -32602 and words in err.value.message, err.value.message
    finally:
        await c.close()


async def test_a_gg_client_with_its_own_commands_can_opt_out_of_the_advertisement(daemon) -> None:
    c = await daemon.open("stdio")
    try:
        result = await c.request(
            "initialize",
            {
                "processId": None,
                "capabilities": {},
                "rootUri": daemon.workspace.resolve().as_uri(),
                "initializationOptions": {"editorCommands": False},
            },
        )
        assert "executeCommandProvider" not in result["capabilities"]
        assert "gg" in result["capabilities"]["experimental"]
    finally:
        await c.close()


async def test_any_gg_client_may_answer_the_approval_the_editor_was_asked(fake_daemon) -> None:
    d, _fm = fake_daemon(WRITE_SCRIPT)
    editor = await _lsp(d, EDITOR, {"window/showMessageRequest": NO_REPLY}, "unix")
    other = await d.connect("unix")
    try:
        res = await editor.request(
            "workspace/executeCommand", {"command": "gg.ask", "arguments": ["write the notes"]}
        )
        await editor.wait_request("window/showMessageRequest")  # the dialog is open, unanswered
        await other.request("gg/run.subscribe", {"runId": res["runId"], "afterSequence": 0})
        asked = await other.wait_for(
            "gg/run.event", lambda p: p["type"] == "approval_requested", 20
        )
        await other.request(
            "gg/run.approve",
            {"runId": res["runId"], "approvalId": asked["approval"]["id"], "allow": True},
        )
        assert (await _ended(editor, f"gg-{res['runId']}"))["message"] == "done"
        assert (d.workspace / "notes.md").read_text() == "# N\n"
    finally:
        await other.close()
        await editor.close()


async def test_the_progress_cancel_button_cancels_the_run(fake_daemon) -> None:
    d, _fm = fake_daemon({"steps": [{"text": "I will never finish", "hang": True}]})
    c = await _lsp(d, EDITOR, {})
    try:
        res = await c.request(
            "workspace/executeCommand", {"command": "gg.ask", "arguments": ["hang"]}
        )
        token = f"gg-{res['runId']}"
        begin = await c.wait_for("$/progress", lambda p: p["token"] == token)
        assert begin["value"]["cancellable"] is True
        await c.notify("window/workDoneProgress/cancel", {"token": token})
        assert (await _ended(c, token))["message"] == "canceled"
    finally:
        await c.close()
