"""Random walks through a real ggd: scripted turns of random writes, appends, deletes, renames
and bash commands, then gg/session.restore to random nodes of the tree. Each restore must give
back exactly the files (bytes and mode) the workspace had at that node, and the user's .git
must stay byte-identical. (tests/unit/checkpoints/test_store_property.py does 100 walks on the
store alone; these few go through the daemon, the session entries and the protocol.)"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.unit.checkpoints.helpers import state, tree_bytes, user_repo

from .runs_helpers import finish, new_session, start

WALKS = 3
NAMES = ["a.txt", "b.txt", "src/c.py", "src/d.md", "x y.txt"]


def _call(rng: random.Random) -> dict[str, Any]:
    name = rng.choice(NAMES)
    other = rng.choice(NAMES)
    kind = rng.choice(["write", "append", "rm", "mv", "chmod", "bash"])
    if kind == "write":
        args = {"path": name, "content": f"{rng.random()}\n" * rng.randint(1, 5)}
        return {"name": "write", "arguments": args}
    command = {
        "append": f"mkdir -p src && printf '%s\\n' {rng.randint(0, 99)} >> '{name}'",
        "rm": f"rm -f '{name}'",
        "mv": f"mkdir -p src && (mv '{name}' '{other}' 2>/dev/null || true)",
        "chmod": f"chmod +x '{name}' 2>/dev/null || true",
        "bash": f"mkdir -p gen && seq 1 {rng.randint(1, 30)} > gen/n.txt",
    }[kind]
    return {"name": "bash", "arguments": {"command": command}}


async def test_random_walks_restore_the_state_at_each_node(fake_daemon, workspace: Path) -> None:
    user_repo(workspace)
    git_before = tree_bytes(workspace / ".git")
    rng = random.Random(20261205)
    turns = [[[_call(rng)] for _ in range(rng.randint(1, 3))] for _ in range(WALKS * 3)]
    script: list[dict[str, Any]] = []
    for i, calls in enumerate(turns):
        script += [{"toolCalls": c} for c in calls] + [{"text": f"turn {i} done"}]
    d, _fm = fake_daemon(script)
    c = await d.connect("ws")
    try:
        checked = 0
        for walk in range(WALKS):
            sid = await new_session(c)
            expected: dict[str, dict[str, tuple[str, int]]] = {}
            for t in range(3):
                before = state(workspace)
                rid = await start(c, sid, f"walk {walk} turn {t}", approvalMode="yolo")
                assert (await finish(c, rid))["type"] == "run_completed"
                snap = await c.request("gg/session.get", {"sessionId": sid})
                user = [n for n in snap["tree"] if n["role"] == "user"][-1]
                last = snap["tree"][-1]
                expected[user["id"]] = before  # a user message: the files its turn started from
                expected[last["id"]] = state(workspace)  # the answer: the files after the turn
            for node in rng.sample(sorted(expected), 4):
                res = await c.request("gg/session.restore", {"sessionId": sid, "nodeId": node})
                assert res["applied"] and res["conflicts"] == []
                assert state(workspace) == expected[node], f"walk {walk} node {node}"
                assert tree_bytes(workspace / ".git") == git_before
                checked += 1
        assert checked == WALKS * 4
    finally:
        await c.close()
