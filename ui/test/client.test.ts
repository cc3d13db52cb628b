import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RunEvent, RunStatus, Snapshot } from "../src/protocol";
import { GgClient } from "../src/rpc/client";
import { WebSocketTransport } from "../src/rpc/websocket";
import { SessionController } from "../src/state/session";
import { DaemonError, flush, runEvent, socketFactory, type FakeSocket, type WireRequest } from "./fakes";

function setup() {
  const factory = socketFactory();
  const transport = new WebSocketTransport({
    url: "ws://127.0.0.1:1/ws",
    token: "t",
    createSocket: factory.create,
    backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 },
  });
  const client = new GgClient(transport);
  return { factory, transport, client };
}

function connect(socket: FakeSocket, responder: (req: WireRequest) => unknown): void {
  socket.responder = responder;
  socket.open();
  socket.acceptInitialize();
}

function pushEvent(socket: FakeSocket, event: ReturnType<typeof runEvent>): void {
  socket.receive({ jsonrpc: "2.0", method: "gg/run.event", params: event });
}

async function reconnect(factory: ReturnType<typeof socketFactory>, responder: (req: WireRequest) => unknown) {
  factory.last().drop();
  await flush();
  vi.advanceTimersByTime(100);
  connect(factory.last(), responder);
  await flush();
}

describe("GgClient", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("resumes a run after the last sequence seen and drops replayed duplicates", async () => {
    const { factory, client } = setup();
    connect(factory.last(), () => ({}));
    const seen: number[] = [];
    client.onRunEvent((e) => seen.push(e.sequence));
    await client.subscribeRun("r1", 0);
    for (const n of [1, 2, 3]) pushEvent(factory.last(), runEvent(n, "text_delta", { text: `${n}` }));
    expect(client.lastSequence("r1")).toBe(3);

    await reconnect(factory, () => ({}));
    const resub = factory.last().requests("gg/run.subscribe");
    expect(resub.map((r) => r.params)).toEqual([{ runId: "r1", afterSequence: 3 }]);
    // The daemon replays with overlap: only 4 is new.
    for (const n of [2, 3, 4]) pushEvent(factory.last(), runEvent(n, "text_delta", { text: `${n}` }));
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("resubscribes sessions on reconnect and tells resume listeners", async () => {
    const { factory, client } = setup();
    connect(factory.last(), () => ({}));
    await client.subscribeSession("s1");
    await client.subscribeSession("s1");
    expect(factory.last().requests("gg/session.subscribe")).toHaveLength(1);
    const resumed = vi.fn();
    client.onResume(resumed);
    await reconnect(factory, () => ({}));
    expect(
      factory
        .last()
        .requests("gg/session.subscribe")
        .map((r) => r.params),
    ).toEqual([{ sessionId: "s1" }]);
    expect(resumed).toHaveBeenCalledOnce();
  });

  it("does not resubscribe runs that finished", async () => {
    const { factory, client } = setup();
    connect(factory.last(), () => ({}));
    await client.subscribeRun("r1", 0);
    pushEvent(factory.last(), runEvent(1, "run_completed", { content: "ok" }));
    await reconnect(factory, () => ({}));
    expect(factory.last().requests("gg/run.subscribe")).toHaveLength(0);
  });

  it("reports event_history_expired on resubscribe", async () => {
    const { factory, client } = setup();
    connect(factory.last(), () => ({}));
    await client.subscribeRun("r1", 0);
    pushEvent(factory.last(), runEvent(1, "run_started"));
    const expired = vi.fn();
    client.onExpired(expired);
    await reconnect(factory, (req) =>
      req.method === "gg/run.subscribe" ? new DaemonError(-32005, "History expired.", "event_history_expired") : {},
    );
    await flush();
    expect(expired).toHaveBeenCalledWith("r1");
  });
});

describe("SessionController", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const approval = {
    id: "a1",
    toolCallId: "c1",
    toolName: "write",
    summary: "write notes.md",
    risk: "normal" as const,
  };

  function daemon(state: { snapshot: Snapshot; status: RunStatus; expire: boolean }) {
    return (req: WireRequest): unknown => {
      switch (req.method) {
        case "gg/session.open":
        case "gg/session.get":
          return state.snapshot;
        case "gg/run.get":
          return state.status;
        case "gg/run.subscribe":
          if (!state.expire) return {};
          state.expire = false;
          return new DaemonError(-32005, "History expired.", "event_history_expired");
        default:
          return {};
      }
    };
  }

  it("reattaches to a live run with its pending approval, and reloads on expiry", async () => {
    const { factory, client } = setup();
    const state = {
      snapshot: {
        sessionId: "s1",
        name: "demo",
        model: "fake:m",
        messages: [
          { id: "e1", role: "user" as const, content: "write notes", timestamp: 1 },
          {
            id: "e2",
            role: "assistant" as const,
            content: "",
            toolCalls: [{ id: "c1", name: "write", arguments: { path: "notes.md" } }],
            timestamp: 2,
          },
        ],
        tree: [],
        activeRunId: "r1",
      },
      status: {
        id: "r1",
        sessionId: "s1",
        status: "waiting_approval" as RunStatus["status"],
        startedAt: 1,
        firstSequence: 1,
        lastSequence: 7,
        pendingApprovals: [approval],
      },
      expire: false,
    };
    connect(factory.last(), daemon(state));
    const controller = new SessionController(client);
    await controller.open("s1");
    await flush();
    let view = controller.store.get();
    expect(view.conversation.phase).toBe("waiting_approval");
    expect(view.conversation.approvals.map((a) => a.id)).toEqual(["a1"]);
    expect(view.conversation.items.map((i) => i.kind)).toEqual(["user", "tool"]);
    expect(factory.last().requests("gg/run.subscribe").at(-1)?.params).toEqual({ runId: "r1", afterSequence: 7 });

    // The connection drops; meanwhile the approval was answered elsewhere and the ring moved on.
    state.expire = true;
    state.status = { ...state.status, status: "running", lastSequence: 40, pendingApprovals: [] };
    await reconnect(factory, daemon(state));
    await flush();
    await flush();
    view = controller.store.get();
    const socket = factory.last();
    expect(socket.requests("gg/session.get")).toHaveLength(1);
    expect(socket.requests("gg/run.get")).toHaveLength(1);
    expect(socket.requests("gg/run.subscribe").at(-1)?.params).toEqual({ runId: "r1", afterSequence: 40 });
    expect(view.conversation.approvals).toEqual([]);
    expect(view.conversation.phase).toBe("running");
    pushEvent(
      socket,
      runEvent(41, "tool_call_finish", { toolCallId: "c1", toolName: "write", isError: false, output: "ok" }),
    );
    expect(controller.store.get().conversation.items.at(-1)).toMatchObject({ kind: "tool", status: "done" });
  });

  it("sends a prompt as an interactive run and follows it from sequence 0", async () => {
    const { factory, client } = setup();
    const snapshot: Snapshot = { sessionId: "s1", name: "n", model: "m", messages: [], tree: [] };
    connect(factory.last(), (req) => {
      if (req.method === "gg/session.open" || req.method === "gg/session.get") return snapshot;
      if (req.method === "gg/run.start") return { runId: "r9" };
      return {};
    });
    const controller = new SessionController(client);
    await controller.open("s1");
    await controller.send("hello", "fake:m");
    const socket = factory.last();
    expect(socket.requests("gg/run.start")[0].params).toMatchObject({
      sessionId: "s1",
      prompt: "hello",
      interactive: true,
      model: "fake:m",
    });
    expect(socket.requests("gg/run.subscribe")[0].params).toEqual({ runId: "r9", afterSequence: 0 });
    expect(controller.store.get().conversation.items).toMatchObject([{ kind: "user", text: "hello", pending: true }]);
    const events: RunEvent[] = [
      runEvent(1, "run_started", { prompt: "hello" }, "r9") as RunEvent,
      runEvent(2, "text_delta", { text: "Hi " }, "r9") as RunEvent,
      runEvent(3, "text_delta", { text: "there" }, "r9") as RunEvent,
    ];
    for (const e of events) socket.receive({ jsonrpc: "2.0", method: "gg/run.event", params: e });
    const items = controller.store.get().conversation.items;
    expect(items).toMatchObject([
      { kind: "user", text: "hello", pending: false },
      { kind: "assistant", text: "Hi there", streaming: true },
    ]);
  });

  it("puts a fork's draft into the composer and switches to the new session", async () => {
    const { factory, client } = setup();
    const base: Snapshot = {
      sessionId: "s1",
      name: "n",
      model: "m",
      messages: [{ id: "u1", role: "user", content: "first", timestamp: 1 }],
      tree: [],
    };
    const forked = { ...base, sessionId: "s2", messages: [], action: "fork" as const, draft: "first" };
    connect(factory.last(), (req) => {
      if (req.method === "gg/session.open")
        return (req.params as { sessionId: string }).sessionId === "s2" ? forked : base;
      if (req.method === "gg/session.action") return forked;
      return {};
    });
    const controller = new SessionController(client);
    const switched = vi.fn();
    controller.onSwitch = switched;
    await controller.open("s1");
    await controller.action("fork", "u1");
    const view = controller.store.get();
    expect(factory.last().requests("gg/session.action")[0].params).toEqual({
      sessionId: "s1",
      action: "fork",
      nodeId: "u1",
    });
    expect(view.snapshot?.sessionId).toBe("s2");
    expect(view.draft?.text).toBe("first");
    expect(switched).toHaveBeenCalledOnce();
  });
});

describe("SessionController.open", () => {
  it("shows the session clicked last when two opens race", async () => {
    const { factory, client } = setup();
    const socket = factory.last();
    socket.open();
    socket.acceptInitialize();
    const controller = new SessionController(client);
    const first = controller.open("s1");
    const second = controller.open("s2");
    await flush();
    const opens = socket.requests("gg/session.open");
    const snap = (id: string) => ({ sessionId: id, name: id, model: "m", messages: [], tree: [] });
    // The daemon answers the second request first.
    socket.reply(opens[1].id, snap("s2"));
    await flush();
    socket.reply(socket.requests("gg/session.subscribe")[0].id, {});
    await flush();
    socket.reply(opens[0].id, snap("s1"));
    await flush();
    for (const r of socket.requests("gg/session.subscribe").slice(1)) socket.reply(r.id, {});
    await Promise.all([first, second]);
    expect(controller.sessionId).toBe("s2");
  });
});
