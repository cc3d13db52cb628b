"""The one table of every gg method and notification.

Dispatch, advertised capabilities, the generated schema/TypeScript, the spec in protocol/README.md and
the tests all read this table. A method's name appears as a literal only in its row: the core rows
are here, the gg/client.* rows beside their models in client.py, and each capability's rows in
its own package (they join this table when the daemon registers the capability).
"""

from __future__ import annotations

from .base import Empty
from .checkpoints import FilesResult, SessionDiffParams, SessionRestoreParams, SessionUndoParams
from .client import CLIENT_READ_TEXT_FILE, CLIENT_RUN_COMMAND, CLIENT_WRITE_TEXT_FILE
from .dto import RunStatus, SessionUpdate, Snapshot, WorkspaceRef
from .events import RunEvent, SessionEvent
from .run import (
    RunActiveParams,
    RunApproveParams,
    RunIdParams,
    RunStartParams,
    RunStartResult,
    RunSteerParams,
    RunSubscribeParams,
    RunWaitParams,
    RunWaitResult,
)
from .session import (
    EmptyResult,
    SessionActionParams,
    SessionCompactParams,
    SessionCompactResult,
    SessionContextResult,
    SessionCreateParams,
    SessionIdParams,
    SessionListParams,
    SessionListResult,
    SessionRenameParams,
    SessionTodosResult,
)
from .hooks import HooksListResult, HooksTestParams, HooksTestResult, HooksTrustResult
from .spec import MethodSpec
from .system import (
    ImageGetParams,
    ImageGetResult,
    MediaGetParams,
    MediaGetResult,
    ModelCheckParams,
    ModelCheckResult,
    ProvidersResult,
    SystemInfoResult,
    WorkspaceListResult,
    WorkspaceOpenParams,
)

SYSTEM_INFO = MethodSpec(
    "gg/system.info",
    "Daemon version, protocol version, capabilities, models and workspace.",
    Empty,
    SystemInfoResult,
    example={
        "params": {},
        "result": {
            "protocolVersion": "1.0",
            "serverVersion": "0.1.0",
            "capabilities": ["sessions", "runs", "tools.builtin"],
            "workspace": {"id": "w_3f2a", "name": "app"},
            "demo": False,
            "models": ["openai:gpt-4.1-mini"],
            "defaultModel": "openai:gpt-4.1-mini",
        },
    },
)
MODEL_CHECK = MethodSpec(
    "gg/model.check",
    "Whether a run could use a model reference: gg/run.start's check, without a run.",
    ModelCheckParams,
    ModelCheckResult,
    example={
        "params": {"model": "openai:gpt-4.1-mnii"},
        "result": {
            "ok": False,
            "problem": "model 'gpt-4.1-mnii' is not offered by openai (https://api.openai.com/v1"
            "/models lists: gpt-4.1, gpt-4.1-mini, ...); use --model openai:MODEL",
        },
    },
)
SYSTEM_PROVIDERS = MethodSpec(
    "gg/system.providers",
    "The configured providers with their kinds, whether each answers now, and their models.",
    Empty,
    ProvidersResult,
    example={
        "params": {},
        "result": {
            "providers": [
                {
                    "name": "anthropic",
                    "kind": "anthropic",
                    "baseUrl": "https://api.anthropic.com/v1",
                    "reachable": True,
                    "models": ["anthropic:claude-sonnet-4-6"],
                    "listed": 9,
                },
                {
                    "name": "local",
                    "kind": "llamacpp",
                    "reachable": None,
                    "models": ["local:qwen2.5-coder-1.5b"],
                },
            ],
            "defaultModel": "anthropic:claude-sonnet-4-6",
        },
    },
)
WORKSPACE_LIST = MethodSpec(
    "gg/workspace.list",
    "Workspaces this daemon serves (ids and names, never paths).",
    Empty,
    WorkspaceListResult,
    example={"params": {}, "result": {"workspaces": [{"id": "w_3f2a", "name": "app"}]}},
)
WORKSPACE_OPEN = MethodSpec(
    "gg/workspace.open",
    "Serve a folder on this machine as a workspace (clients on this machine only); its ref.",
    WorkspaceOpenParams,
    WorkspaceRef,
    example={
        "params": {"root": "/home/ada/code/app"},
        "result": {"id": "w_3f2a", "name": "app", "root": "/home/ada/code/app"},
    },
)
SESSION_LIST = MethodSpec(
    "gg/session.list",
    "Sessions of the connection's workspace, newest first, with a preview.",
    SessionListParams,
    SessionListResult,
    example={
        "params": {"limit": 20},
        "result": {
            "sessions": [
                {
                    "id": "s_1a2b",
                    "name": "fix tests",
                    "updatedAt": 1764475200000,
                    "messageCount": 6,
                    "preview": "why does test_io fail?",
                }
            ]
        },
    },
)
SESSION_CREATE = MethodSpec(
    "gg/session.create",
    "Create a session in the connection's workspace.",
    SessionCreateParams,
    Snapshot,
    scope="session",
    example={
        "params": {"name": "fix tests"},
        "result": {
            "sessionId": "s_1a2b",
            "name": "fix tests",
            "model": "openai:gpt-4.1-mini",
            "messages": [],
            "tree": [],
        },
    },
)
SESSION_OPEN = MethodSpec(
    "gg/session.open",
    "Open a session by id and return its snapshot.",
    SessionIdParams,
    Snapshot,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b"},
        "result": {
            "sessionId": "s_1a2b",
            "name": "fix tests",
            "model": "openai:gpt-4.1-mini",
            "messages": [],
            "tree": [],
        },
    },
)
SESSION_GET = MethodSpec(
    "gg/session.get",
    "The current snapshot of a session.",
    SessionIdParams,
    Snapshot,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b"},
        "result": {
            "sessionId": "s_1a2b",
            "name": "fix tests",
            "model": "openai:gpt-4.1-mini",
            "messages": [],
            "tree": [],
        },
    },
)
SESSION_RENAME = MethodSpec(
    "gg/session.rename",
    "Rename a session; subscribers get a `renamed` session event.",
    SessionRenameParams,
    Snapshot,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b", "name": "io bug"},
        "result": {
            "sessionId": "s_1a2b",
            "name": "io bug",
            "model": "openai:gpt-4.1-mini",
            "messages": [],
            "tree": [],
        },
    },
)
SESSION_ACTION = MethodSpec(
    "gg/session.action",
    "Tree actions: `tree` checks out a node, `fork`/`clone` make a new session.",
    SessionActionParams,
    SessionUpdate,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b", "action": "fork", "nodeId": "e5c1d2aa"},
        "result": {
            "sessionId": "s_9f8e",
            "name": "fix tests (fork)",
            "model": "openai:gpt-4.1-mini",
            "messages": [],
            "tree": [],
            "action": "fork",
            "draft": "why does test_io fail?",
        },
    },
)
SESSION_SUBSCRIBE = MethodSpec(
    "gg/session.subscribe",
    "Receive gg/session.event for a session on this connection.",
    SessionIdParams,
    EmptyResult,
    scope="session",
    example={"params": {"sessionId": "s_1a2b"}, "result": {}},
)
SESSION_UNSUBSCRIBE = MethodSpec(
    "gg/session.unsubscribe",
    "Stop gg/session.event for a session on this connection.",
    SessionIdParams,
    EmptyResult,
    scope="session",
    example={"params": {"sessionId": "s_1a2b"}, "result": {}},
)
SESSION_COMPACT = MethodSpec(
    "gg/session.compact",
    "Summarise older turns now (what auto-compaction does when the context is over budget).",
    SessionCompactParams,
    SessionCompactResult,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b"},
        "result": {"summary": "The user asked to fix test_io; ...", "compacted": True},
    },
)
SESSION_CONTEXT = MethodSpec(
    "gg/session.context",
    "Estimated context use of a session against its model's budget.",
    SessionIdParams,
    SessionContextResult,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b"},
        "result": {
            "model": "openai:gpt-4.1-mini",
            "contextTokens": 5120,
            "promptBudget": 24000,
            "messageCount": 14,
            "hasSummary": False,
        },
    },
)
SESSION_UNDO = MethodSpec(
    "gg/session.undo",
    "Restore the workspace files to before the last turn not undone yet (preview: only say what "
    "would change). Files changed outside gg are conflicts, restored only with confirmConflicts.",
    SessionUndoParams,
    FilesResult,
    scope="session",
    example={"params": {"sessionId": "s_1a2b"}, "result": {
            "applied": True,
            "target": "9c1e...",
            "current": "41d7...",
            "files": [{"path": "src/io.py", "status": "modified", "additions": 3, "deletions": 1}],
            "conflicts": [],
            "patch": "diff --git a/src/io.py b/src/io.py\n...",
            "turn": "e5c1d2aa",
        }},
)
SESSION_REDO = MethodSpec(
    "gg/session.redo",
    "Reapply the files the last gg/session.undo took back.",
    SessionUndoParams,
    FilesResult,
    scope="session",
    example={"params": {"sessionId": "s_1a2b"}, "result": {
            "applied": True,
            "target": "9c1e...",
            "current": "41d7...",
            "files": [{"path": "src/io.py", "status": "modified", "additions": 3, "deletions": 1}],
            "conflicts": [],
            "patch": "diff --git a/src/io.py b/src/io.py\n...",
            "turn": "e5c1d2aa",
        }},
)
SESSION_RESTORE = MethodSpec(
    "gg/session.restore",
    "Restore the workspace files to their checkpoint at a node (preview: the diff and conflicts "
    "only). gg/session.action tree with restoreFiles also moves the head there.",
    SessionRestoreParams,
    FilesResult,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b", "nodeId": "e5c1d2aa", "preview": True},
        "result": {
            "applied": False,
            "target": "9c1e...",
            "current": "41d7...",
            "files": [{"path": "src/io.py", "status": "modified", "additions": 3, "deletions": 1}],
            "conflicts": [],
            "patch": "diff --git a/src/io.py b/src/io.py\n...",
            "turn": "e5c1d2aa",
        },
    },
)
SESSION_DIFF = MethodSpec(
    "gg/session.diff",
    "Every file one turn changed (its edits and its bash commands alike), with a unified patch.",
    SessionDiffParams,
    FilesResult,
    scope="session",
    example={"params": {"sessionId": "s_1a2b"}, "result": {
            "applied": False,
            "target": "9c1e...",
            "current": "41d7...",
            "files": [{"path": "src/io.py", "status": "modified", "additions": 3, "deletions": 1}],
            "conflicts": [],
            "patch": "diff --git a/src/io.py b/src/io.py\n...",
            "turn": "e5c1d2aa",
        }},
)
SESSION_TODOS = MethodSpec(
    "gg/session.todos",
    "The session's current todo list: what the last todo_write on its active branch saved.",
    SessionIdParams,
    SessionTodosResult,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b"},
        "result": {
            "todos": [
                {"content": "read the failing test", "status": "completed"},
                {"content": "fix the parser", "status": "in_progress"},
            ]
        },
    },
)
HOOKS_LIST = MethodSpec(
    "gg/hooks.list",
    "The hooks that run in this workspace (GG_HOME, config.json, a trusted .gg/hooks.json).",
    Empty,
    HooksListResult,
    example={
        "params": {},
        "result": {
            "hooks": [
                {
                    "event": "PreToolUse",
                    "matcher": "Bash",
                    "command": "~/.gg/hooks/no-rm-rf.sh",
                    "timeout": 60,
                    "origin": "GG_HOME/hooks.json",
                }
            ],
            "workspaceFile": "absent",
        },
    },
)
HOOKS_TEST = MethodSpec(
    "gg/hooks.test",
    "Run one event's hooks now with sample input; says what gg would do (local connections only).",
    HooksTestParams,
    HooksTestResult,
    example={
        "params": {"event": "PreToolUse", "toolName": "bash", "toolInput": {"command": "rm -rf /"}},
        "result": {
            "input": {"hook_event_name": "PreToolUse", "tool_name": "Bash"},
            "runs": [{"command": "~/.gg/hooks/no-rm-rf.sh", "exitCode": 2, "stderr": "no rm -rf"}],
            "blocked": True,
            "reason": "no rm -rf",
            "decision": "deny",
        },
    },
)
HOOKS_TRUST = MethodSpec(
    "gg/hooks.trust",
    "Trust the current content of the workspace's .gg/hooks.json (local connections only).",
    Empty,
    HooksTrustResult,
    example={"params": {}, "result": {"hooks": 2}},
)
RUN_START = MethodSpec(
    "gg/run.start",
    "Start the agent on a session with a prompt; one active run per session.",
    RunStartParams,
    RunStartResult,
    scope="session",
    example={
        "params": {
            "sessionId": "s_1a2b",
            "prompt": "run the tests",
            "interactive": True,
            "clientTools": {"readTextFile": True, "writeTextFile": True, "terminal": True},
            "images": [{"path": "screenshots/failure.png"}],
        },
        "result": {"runId": "r_77c0"},
    },
)
RUN_SUBSCRIBE = MethodSpec(
    "gg/run.subscribe",
    "Replay a run's events after `afterSequence`, then stream live gg/run.event.",
    RunSubscribeParams,
    EmptyResult,
    scope="run",
    example={"params": {"runId": "r_77c0", "afterSequence": 12}, "result": {}},
)
RUN_UNSUBSCRIBE = MethodSpec(
    "gg/run.unsubscribe",
    "Stop gg/run.event for a run on this connection.",
    RunIdParams,
    EmptyResult,
    scope="run",
    example={"params": {"runId": "r_77c0"}, "result": {}},
)
RUN_WAIT = MethodSpec(
    "gg/run.wait",
    "Long-poll: events after `afterSequence` (waits up to timeoutMs for the first one).",
    RunWaitParams,
    RunWaitResult,
    scope="run",
    example={
        "params": {"runId": "r_77c0", "afterSequence": 0, "timeoutMs": 10000},
        "result": {
            "events": [
                {
                    "runId": "r_77c0",
                    "sessionId": "s_1a2b",
                    "sequence": 1,
                    "timestamp": 1764475200000,
                    "type": "run_started",
                }
            ],
            "done": False,
        },
    },
)
RUN_GET = MethodSpec(
    "gg/run.get",
    "The status of a run.",
    RunIdParams,
    RunStatus,
    scope="run",
    example={
        "params": {"runId": "r_77c0"},
        "result": {
            "id": "r_77c0",
            "sessionId": "s_1a2b",
            "status": "running",
            "startedAt": 1764475200000,
            "firstSequence": 1,
            "lastSequence": 9,
            "pendingApprovals": [],
        },
    },
)
RUN_ACTIVE = MethodSpec(
    "gg/run.active",
    "The active run of a session, or null.",
    RunActiveParams,
    RunStatus | None,
    scope="session",
    example={"params": {"sessionId": "s_1a2b"}, "result": None},
)
RUN_CANCEL = MethodSpec(
    "gg/run.cancel",
    "Cancel a run: kills running tools, keeps the partial answer.",
    RunIdParams,
    EmptyResult,
    scope="run",
    example={"params": {"runId": "r_77c0"}, "result": {}},
)
RUN_APPROVE = MethodSpec(
    "gg/run.approve",
    "Answer a pending approval; the first answer wins.",
    RunApproveParams,
    EmptyResult,
    scope="run",
    example={
        "params": {"runId": "r_77c0", "approvalId": "a_1", "allow": True, "scope": "once"},
        "result": {},
    },
)
RUN_STEER = MethodSpec(
    "gg/run.steer",
    "Steer the active run (taken at the next model boundary) or queue a follow-up.",
    RunSteerParams,
    EmptyResult,
    scope="session",
    example={
        "params": {"sessionId": "s_1a2b", "text": "use pytest -x", "followUp": False},
        "result": {},
    },
)
RUN_EVENT = MethodSpec(
    "gg/run.event",
    "Server notification: one numbered event of a run.",
    RunEvent,
    kind="notification",
    direction="server",
    scope="run",
    example={
        "params": {
            "runId": "r_77c0",
            "sessionId": "s_1a2b",
            "sequence": 3,
            "timestamp": 1764475200000,
            "type": "text_delta",
            "text": "Running ",
        }
    },
)
SESSION_EVENT = MethodSpec(
    "gg/session.event",
    "Server notification: a session changed (rename, checkout, fork, run state).",
    SessionEvent,
    kind="notification",
    direction="server",
    scope="session",
    example={"params": {"sessionId": "s_1a2b", "type": "renamed", "name": "io bug"}},
)
MEDIA_GET = MethodSpec(
    "gg/media.get",
    "A screenshot, generated image or audio clip by id (base64), never by path.",
    MediaGetParams,
    MediaGetResult,
    example={
        "params": {"mediaId": "m_5f1c0a9e3b7d2c4a"},
        "result": {
            "mediaId": "m_5f1c0a9e3b7d2c4a",
            "mime": "image/png",
            "size": 68,
            "source": "browser_screenshot",
            "data": "iVBORw0KGgo...",
        },
    },
)
_IMAGE_ID = "img_9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
IMAGE_GET = MethodSpec(
    "gg/image.get",
    "An image a message carries (a prompt's attachment, a picture `read` returned), base64.",
    ImageGetParams,
    ImageGetResult,
    example={
        "params": {"imageId": _IMAGE_ID},
        "result": {
            "imageId": _IMAGE_ID,
            "mimeType": "image/png",
            "size": 68,
            "data": "iVBORw0KGgo...",
        },
    },
)
METHODS: tuple[MethodSpec, ...] = (
    SYSTEM_INFO,
    WORKSPACE_LIST,
    WORKSPACE_OPEN,
    SESSION_LIST,
    SESSION_CREATE,
    SESSION_OPEN,
    SESSION_GET,
    SESSION_RENAME,
    SESSION_ACTION,
    SESSION_SUBSCRIBE,
    SESSION_UNSUBSCRIBE,
    SESSION_COMPACT,
    SESSION_CONTEXT,
    SESSION_UNDO,
    SESSION_REDO,
    SESSION_RESTORE,
    SESSION_DIFF,
    SESSION_TODOS,
    HOOKS_LIST,
    HOOKS_TEST,
    HOOKS_TRUST,
    RUN_START,
    RUN_SUBSCRIBE,
    RUN_UNSUBSCRIBE,
    RUN_WAIT,
    RUN_GET,
    RUN_ACTIVE,
    RUN_CANCEL,
    RUN_APPROVE,
    RUN_STEER,
    MEDIA_GET,
    IMAGE_GET,
    MODEL_CHECK,
    SYSTEM_PROVIDERS,
    RUN_EVENT,
    SESSION_EVENT,
    CLIENT_READ_TEXT_FILE,
    CLIENT_WRITE_TEXT_FILE,
    CLIENT_RUN_COMMAND,
)
BY_NAME: dict[str, MethodSpec] = {m.name: m for m in METHODS}
REQUESTS: tuple[MethodSpec, ...] = tuple(
    m for m in METHODS if m.kind == "request" and m.direction == "client"
)
