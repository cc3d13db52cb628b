import { describe, expect, it } from "vitest";
import type { Approval, RunEvent, Snapshot } from "../src/protocol";
import {
  conversationReducer,
  initialConversation,
  isBusy,
  itemsFromMessages,
  missingChildren,
  withChildren,
  type ConversationAction,
  type ConversationState,
} from "../src/state/conversation";
import { runEvent } from "./fakes";

function ev(sequence: number, type: string, fields: Record<string, unknown> = {}): ConversationAction {
  return { type: "event", event: runEvent(sequence, type, fields) as RunEvent };
}

function run(actions: ConversationAction[], from: ConversationState = initialConversation): ConversationState {
  return actions.reduce(conversationReducer, from);
}

const approval: Approval = {
  id: "a1",
  toolCallId: "c2",
  toolName: "edit",
  summary: "edit app.py",
  risk: "normal",
  details: "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x\n+y\n",
};

describe("conversationReducer", () => {
  it("streams text deltas into one assistant message", () => {
    const s = run([
      ev(1, "run_started"),
      ev(2, "text_delta", { text: "Hel" }),
      ev(3, "text_delta", { text: "lo **you**" }),
    ]);
    expect(s.phase).toBe("running");
    expect(isBusy(s)).toBe(true);
    expect(s.items).toEqual([expect.objectContaining({ kind: "assistant", text: "Hello **you**", streaming: true })]);
  });

  it("ignores replayed or old sequences", () => {
    const s = run([
      ev(1, "text_delta", { text: "a" }),
      ev(2, "text_delta", { text: "b" }),
      ev(2, "text_delta", { text: "b" }),
      ev(1, "text_delta", { text: "a" }),
    ]);
    expect(s.items).toMatchObject([{ kind: "assistant", text: "ab" }]);
    expect(s.lastSequence).toBe(2);
  });

  it("keeps thinking apart from the answer", () => {
    const s = run([ev(1, "thinking_delta", { text: "hmm" }), ev(2, "text_delta", { text: "Yes" })]);
    expect(s.items).toMatchObject([{ kind: "assistant", thinking: "hmm", text: "Yes" }]);
  });

  it("turns tool calls into cards: running, then done with a diff, or error", () => {
    const s = run([
      ev(1, "text_delta", { text: "Let me look." }),
      ev(2, "tool_call_start", { toolCallId: "c1", toolName: "read", summary: "read app.py" }),
      ev(3, "tool_call_start", { toolCallId: "c2", toolName: "edit", summary: "edit app.py" }),
    ]);
    expect(s.items.map((i) => i.kind)).toEqual(["assistant", "tool", "tool"]);
    expect(s.items[0]).toMatchObject({ streaming: false });
    expect(s.items[1]).toMatchObject({ toolName: "read", summary: "read app.py", status: "running" });
    const t = run(
      [
        ev(4, "tool_call_finish", { toolCallId: "c1", toolName: "read", isError: true, output: "no such file" }),
        ev(5, "tool_call_finish", {
          toolCallId: "c2",
          toolName: "edit",
          isError: false,
          output: "edited",
          details: { diff: "@@ -1 +1 @@\n-x\n+y" },
        }),
        ev(6, "text_delta", { text: "Done." }),
      ],
      s,
    );
    expect(t.items[1]).toMatchObject({ status: "error", output: "no such file" });
    expect(t.items[2]).toMatchObject({ status: "done", diff: "@@ -1 +1 @@\n-x\n+y" });
    expect(t.items[3]).toMatchObject({ kind: "assistant", text: "Done.", streaming: true });
  });

  it("tracks approvals: requested pauses, allowed resumes, denied marks the card", () => {
    const s = run([
      ev(1, "tool_call_start", { toolCallId: "c2", toolName: "edit", summary: "edit app.py" }),
      ev(2, "approval_requested", { approval }),
      ev(3, "approval_requested", { approval }),
    ]);
    expect(s.phase).toBe("waiting_approval");
    expect(s.approvals).toHaveLength(1);
    const denied = run([ev(4, "approval_resolved", { approvalId: "a1", allow: false, by: "user" })], s);
    expect(denied.approvals).toEqual([]);
    expect(denied.phase).toBe("running");
    expect(denied.items[0]).toMatchObject({ denied: true });
    const allowed = run(
      [ev(4, "approval_resolved", { approvalId: "a1", allow: true, by: "user", scope: "session" })],
      s,
    );
    expect(allowed.items[0]).not.toHaveProperty("denied", true);
  });

  it("marks a denied tool whose card comes after the denial", () => {
    const s = run([
      ev(1, "approval_requested", { approval }),
      ev(2, "approval_resolved", { approvalId: "a1", allow: false, by: "user" }),
      ev(3, "tool_call_start", { toolCallId: "c2", toolName: "edit", summary: "edit app.py" }),
      ev(4, "tool_call_finish", { toolCallId: "c2", toolName: "edit", isError: true, output: "denied" }),
    ]);
    expect(s.items).toMatchObject([{ kind: "tool", status: "error", denied: true }]);
  });

  it("completes: stops streaming, clears approvals, keeps usage", () => {
    const s = run([
      ev(1, "text_delta", { text: "ok" }),
      ev(2, "usage", {
        promptTokens: 100,
        completionTokens: 20,
        totalTokens: 120,
        contextTokens: 100,
        contextWindow: 1000,
      }),
      ev(3, "run_completed", { content: "ok", usage: { totalTokens: 130 } }),
    ]);
    expect(s.phase).toBe("completed");
    expect(isBusy(s)).toBe(false);
    expect(s.items[0]).toMatchObject({ streaming: false });
    expect(s.usage).toMatchObject({ totalTokens: 130, contextWindow: 1000 });
  });

  it("keeps the run's and the session's cost and cache totals from usage events", () => {
    const totals = { promptTokens: 2200, completionTokens: 150, totalTokens: 2350, cacheReadTokens: 1800 };
    const s = run([
      ev(1, "usage", {
        promptTokens: 1200,
        completionTokens: 50,
        totalTokens: 1250,
        contextTokens: 1200,
        contextWindow: 8000,
        costUsd: 0.0013,
        run: { ...totals, costUsd: 0.0029, requests: 2 },
        session: { ...totals, costUsd: 0.0101, requests: 5 },
      }),
    ]);
    expect(s.usage).toMatchObject({ totalTokens: 2350, cacheReadTokens: 1800, costUsd: 0.0029, contextWindow: 8000 });
    expect(s.sessionUsage).toMatchObject({ costUsd: 0.0101, requests: 5 });
  });

  it("says a budget stopped the run", () => {
    const s = run([
      ev(1, "run_failed", {
        error: "run budget reached: 2350 tokens of maxTokens 1500; raise it with ...",
        errorCode: "budget_exceeded",
        usage: { totalTokens: 2350, costUsd: 0.0029 },
      }),
    ]);
    expect(s.notice?.text).toBe(
      "Stopped at its budget: run budget reached: 2350 tokens of maxTokens 1500; raise it with ...",
    );
    expect(s.usage).toMatchObject({ costUsd: 0.0029 });
  });

  it("fails with a notice", () => {
    const s = run([
      ev(1, "text_delta", { text: "x" }),
      ev(2, "approval_requested", { approval }),
      ev(3, "run_failed", { error: "model unreachable", retryable: true }),
    ]);
    expect(s.phase).toBe("failed");
    expect(s.approvals).toEqual([]);
    expect(s.notice).toEqual({ tone: "error", text: "The run failed: model unreachable (you can try again)" });
  });

  it("cancels with a notice", () => {
    const s = run([ev(1, "text_delta", { text: "x" }), ev(2, "run_canceled")]);
    expect(s.phase).toBe("canceled");
    expect(s.notice?.text).toBe("Stopped.");
    expect(s.items[0]).toMatchObject({ streaming: false });
  });

  it("shows steering messages and a new run starts numbering again", () => {
    const s = run([
      ev(1, "text_delta", { text: "a" }),
      ev(2, "user_message", { text: "use tabs" }),
      ev(3, "run_completed", { content: "a" }),
    ]);
    expect(s.items.map((i) => i.kind)).toEqual(["assistant", "user"]);
    const next = conversationReducer(s, {
      type: "event",
      event: runEvent(1, "run_started", { prompt: "again" }, "r2") as RunEvent,
    });
    expect(next.runId).toBe("r2");
    expect(next.phase).toBe("running");
    expect(next.items.at(-1)).toMatchObject({ kind: "user", text: "again" });
  });

  it("confirms an optimistic prompt instead of repeating it", () => {
    const s = run([{ type: "local_prompt", text: "hi" }, ev(1, "run_started", { prompt: "hi" })]);
    expect(s.items).toMatchObject([{ kind: "user", text: "hi", pending: false }]);
    expect(s.items).toHaveLength(1);
  });

  it("builds rows from a snapshot, folding tool results into cards", () => {
    const items = itemsFromMessages([
      { id: "u1", role: "user", content: "fix it", timestamp: 1 },
      {
        id: "m2",
        role: "assistant",
        content: "Looking",
        toolCalls: [{ id: "c1", name: "bash", arguments: { command: "ls" } }],
        timestamp: 2,
      },
      { id: "m3", role: "tool", toolCallId: "c1", toolName: "bash", content: "a.py", isError: false, timestamp: 3 },
      { id: "m4", role: "assistant", content: "Fixed.", timestamp: 4 },
      { id: "m5", role: "assistant", content: "", stopReason: "error", error: "HTTP 400", timestamp: 5 },
    ]);
    expect(items).toMatchObject([
      { kind: "user", entryId: "u1", text: "fix it" },
      { kind: "assistant", text: "Looking" },
      { kind: "tool", toolName: "bash", summary: "ls", status: "done", output: "a.py" },
      { kind: "assistant", text: "Fixed." },
    ]);
  });

  it("keeps live rows when a snapshot arrives mid-run, and attaches to a run status", () => {
    const attached = conversationReducer(initialConversation, {
      type: "attach",
      status: {
        id: "r1",
        sessionId: "s1",
        status: "running",
        startedAt: 1,
        firstSequence: 1,
        lastSequence: 4,
        pendingApprovals: [approval],
      },
    });
    expect(attached).toMatchObject({ runId: "r1", phase: "running", lastSequence: 4, approvals: [approval] });
    const live = run(
      [
        ev(5, "tool_call_start", { toolCallId: "c9", toolName: "bash", summary: "make" }),
        ev(6, "text_delta", { text: "streaming" }),
      ],
      attached,
    );
    const snapshot: Snapshot = {
      sessionId: "s1",
      name: "n",
      model: "m",
      messages: [{ id: "u1", role: "user", content: "go", timestamp: 1 }],
      tree: [],
      activeRunId: "r1",
    };
    const merged = conversationReducer(live, { type: "snapshot", snapshot });
    expect(merged.items.map((i) => i.kind)).toEqual(["user", "tool", "assistant"]);
    const after = conversationReducer(
      { ...merged, phase: "completed" },
      { type: "snapshot", snapshot: { ...snapshot, activeRunId: null } },
    );
    expect(after.items.map((i) => i.kind)).toEqual(["user"]);
  });
});

describe("snapshot after a run", () => {
  it("keeps the diff and denial the events showed", () => {
    const live = run([
      ev(1, "tool_call_start", { toolCallId: "c1", toolName: "edit", summary: "edit a" }),
      ev(2, "tool_call_finish", {
        toolCallId: "c1",
        toolName: "edit",
        isError: false,
        output: "ok",
        details: { diff: "+x" },
      }),
      ev(3, "run_completed", { content: "" }),
    ]);
    const snapshot: Snapshot = {
      sessionId: "s1",
      name: "n",
      model: "m",
      messages: [
        {
          id: "m1",
          role: "assistant",
          toolCalls: [{ id: "c1", name: "edit", arguments: { path: "a" } }],
          timestamp: 1,
        },
        { id: "m2", role: "tool", toolCallId: "c1", toolName: "edit", content: "ok", timestamp: 2 },
      ],
      tree: [],
    };
    const after = conversationReducer(live, { type: "snapshot", snapshot });
    expect(after.items).toMatchObject([{ kind: "tool", status: "done", diff: "+x", entryId: "m1" }]);
  });

  it("says when a hook failed and keeps the run going", () => {
    const s = run([
      ev(1, "run_started"),
      ev(2, "hook_failed", { hookEvent: "PreToolUse", command: "./check.sh", error: "timed out after 60 s" }),
    ]);
    expect(s.phase).toBe("running");
    expect(s.notice).toEqual({ tone: "error", text: "A PreToolUse hook failed (timed out after 60 s): ./check.sh" });
  });

  it("summarises a todo_write call from history as its count done", () => {
    const snapshot: Snapshot = {
      sessionId: "s1",
      name: "n",
      model: "m",
      messages: [
        {
          id: "m1",
          role: "assistant",
          toolCalls: [
            {
              id: "c1",
              name: "todo_write",
              arguments: {
                todos: [
                  { content: "a", status: "completed" },
                  { content: "b", status: "pending" },
                ],
              },
            },
          ],
          timestamp: 1,
        },
      ],
      tree: [],
    };
    const s = conversationReducer(initialConversation, { type: "snapshot", snapshot });
    expect(s.items).toMatchObject([{ kind: "tool", toolName: "todo_write", summary: "1/2 done" }]);
  });
});

describe("images of a user message", () => {
  const image = { id: "img_" + "a".repeat(64), mimeType: "image/png", width: 40, height: 30, size: 99 };

  it("keeps the page's previews until run_started brings the stored refs", () => {
    const sent = run([{ type: "local_prompt", text: "look", previews: ["blob:x"] }]);
    expect(sent.items[0]).toMatchObject({ kind: "user", pending: true, previews: ["blob:x"] });
    const started = run([ev(1, "run_started", { prompt: "look", images: [image] })], sent);
    expect(started.items[0]).toMatchObject({ kind: "user", pending: false, images: [image], previews: ["blob:x"] });
  });

  it("takes a prompt's images from run_started and from stored messages", () => {
    const live = run([ev(1, "run_started", { prompt: "look", images: [image] })]);
    expect(live.items[0]).toMatchObject({ kind: "user", text: "look", images: [image] });
    const items = itemsFromMessages([{ role: "user", content: "look", timestamp: 1, id: "e1", images: [image] }]);
    expect(items[0]).toMatchObject({ kind: "user", images: [image] });
    const plain = itemsFromMessages([{ role: "user", content: "hi", timestamp: 1, id: "e2" }]);
    expect(plain[0]).not.toHaveProperty("images");
  });
});

describe("itemsFromMessages reasoning", () => {
  it("brings stored reasoning back apart from its answer", () => {
    const items = itemsFromMessages([
      { id: "u1", role: "user", content: "hi", timestamp: 1 },
      { id: "a1", role: "assistant", content: "Hello.", thinking: "They greet me.", timestamp: 2 },
    ]);
    expect(items[1]).toMatchObject({ kind: "assistant", text: "Hello.", thinking: "They greet me." });
  });
});

describe("subagents under their task card", () => {
  const started = { toolCallId: "t1", childRunId: "r_c", childSessionId: "s_c", agent: "explore", description: "look" };
  it("nests a child's start, latest progress lines and end in the task's tool item", () => {
    const progress = [1, 2, 3, 4, 5].map((i) =>
      ev(3 + i, "child_run_progress", {
        toolCallId: "t1",
        childRunId: "r_c",
        agent: "explore",
        text: `read f${i}`,
        turns: i,
        toolCalls: i,
      }),
    );
    const s = run([
      ev(1, "run_started"),
      ev(2, "tool_call_start", { toolCallId: "t1", toolName: "task", summary: "task explore: look" }),
      ev(3, "child_run_started", started),
      ...progress,
    ]);
    const tool = s.items[s.items.length - 1];
    expect(tool).toMatchObject({
      kind: "tool",
      child: { agent: "explore", status: "running", turns: 5, toolCalls: 5 },
    });
    if (tool?.kind !== "tool" || !tool.child) throw new Error("no child");
    expect(tool.child.lines).toEqual(["read f2", "read f3", "read f4", "read f5"]);
    const done = run(
      [ev(9, "child_run_finished", { ...started, status: "failed", error: "boom", turns: 6, toolCalls: 5 })],
      s,
    );
    expect(done.items[done.items.length - 1]).toMatchObject({ child: { status: "failed", error: "boom", turns: 6 } });
  });
  it("keeps the child after the snapshot that follows the run", () => {
    const s = run([
      ev(1, "run_started"),
      ev(2, "tool_call_start", { toolCallId: "t1", toolName: "task", summary: "task explore: look" }),
      ev(3, "child_run_started", started),
      ev(4, "run_completed", { content: "ok" }),
    ]);
    const snapshot = {
      sessionId: "s",
      name: "n",
      model: "m",
      messages: [
        { role: "user", content: "go", timestamp: 1 },
        { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "task", arguments: {} }], timestamp: 2 },
        { role: "tool", toolCallId: "t1", toolName: "task", content: "answer", timestamp: 3 },
      ],
      tree: [],
    } as unknown as Snapshot;
    const after = run([{ type: "snapshot", snapshot }], s);
    expect(after.items.find((i) => i.kind === "tool")).toMatchObject({ status: "done", child: { runId: "r_c" } });
  });
});

describe("a reopened session's subagents", () => {
  it("nest under their task cards again from the session list", () => {
    const items = itemsFromMessages([
      { role: "user", content: "go", timestamp: 1 },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "t1", name: "task", arguments: { agent: "explore", prompt: "p" } },
          { id: "t2", name: "task", arguments: { agent: "general", prompt: "q" } },
        ],
        timestamp: 2,
      },
      { role: "tool", toolCallId: "t1", toolName: "task", content: "a", timestamp: 3 },
      { role: "tool", toolCallId: "t2", toolName: "task", content: "failed", isError: true, timestamp: 4 },
    ] as never);
    expect(missingChildren(items)).toBe(true);
    const rows = [
      { id: "s_1", name: "x", updatedAt: 1, messageCount: 2, preview: "", toolCallId: "t1", agent: "explore" },
      { id: "s_2", name: "y", updatedAt: 1, messageCount: 2, preview: "", toolCallId: "t2", agent: "general" },
    ];
    const nested = withChildren(items, rows as never);
    expect(missingChildren(nested)).toBe(false);
    const tools = nested.filter((i) => i.kind === "tool");
    expect(tools.map((t) => t.kind === "tool" && t.child?.status)).toEqual(["completed", "failed"]);
    expect(tools[0]).toMatchObject({ child: { sessionId: "s_1", agent: "explore" } });
    expect(tools[0]?.kind === "tool" && "turns" in (tools[0].child ?? {})).toBe(false);
  });
});
