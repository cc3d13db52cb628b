import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocketTransport } from "../src/rpc/websocket";
import { AppController } from "../src/state/app";
import { flush, socketFactory, type FakeSocket, type WireRequest } from "./fakes";

const sessions = [
  { id: "s1", name: "one", updatedAt: 1, messageCount: 0, preview: "" },
  { id: "s2", name: "two", updatedAt: 2, messageCount: 0, preview: "" },
];

function daemon(req: WireRequest): unknown {
  switch (req.method) {
    case "gg/system.info":
      return {
        protocolVersion: "1.0",
        serverVersion: "x",
        capabilities: ["sessions"],
        workspace: { id: "w1", name: "demo" },
        demo: true,
        models: ["a:b"],
      };
    case "gg/workspace.list":
      return {
        workspaces: [
          { id: "w1", name: "demo" },
          { id: "w2", name: "other" },
        ],
      };
    case "gg/session.list":
      return (req.params as { cursor?: string }).cursor
        ? { sessions: [{ id: "s0", name: "old", updatedAt: 0, messageCount: 0, preview: "" }] }
        : { sessions, nextCursor: "c2" };
    case "gg/session.open":
      return {
        sessionId: (req.params as { sessionId: string }).sessionId,
        name: "one",
        model: "a:b",
        messages: [],
        tree: [],
      };
    default:
      return {};
  }
}

function setup(resume?: string) {
  const factory = socketFactory();
  const workspaces: Array<string | undefined> = [];
  const app = new AppController(
    (workspaceId) => {
      workspaces.push(workspaceId);
      return new WebSocketTransport({ url: "ws://x/ws", token: "t", workspaceId, createSocket: factory.create });
    },
    undefined,
    resume,
  );
  const connect = async (socket: FakeSocket) => {
    socket.responder = daemon;
    socket.open();
    socket.acceptInitialize();
    for (let i = 0; i < 5; i++) await flush();
  };
  return { factory, app, workspaces, connect };
}

describe("AppController", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("loads info, workspaces and sessions, subscribes to each, and reopens the tab's session", async () => {
    const { factory, app, connect } = setup("s1");
    await connect(factory.last());
    const view = app.store.get();
    expect(view.info?.demo).toBe(true);
    expect(view.workspaces.map((w) => w.id)).toEqual(["w1", "w2"]);
    expect(view.sessions.map((s) => s.id)).toEqual(["s2", "s1"]);
    const subscribed = factory
      .last()
      .requests("gg/session.subscribe")
      .map((r) => (r.params as { sessionId: string }).sessionId);
    expect(new Set(subscribed)).toEqual(new Set(["s1", "s2"]));
    expect(factory.last().requests("gg/session.open")).toHaveLength(1);
    expect(app.session.sessionId).toBe("s1");
    await app.loadMoreSessions();
    expect(app.store.get().sessions.map((s) => s.id)).toEqual(["s2", "s1", "s0"]);
    expect(app.store.get().nextCursor).toBeNull();
  });

  it("reuses an untouched new session instead of making another empty one", async () => {
    const { factory, app, connect } = setup();
    await connect(factory.last());
    const socket = factory.last();
    socket.responder = (req) =>
      req.method === "gg/session.create"
        ? { sessionId: "s9", name: "", model: "a:b", messages: [], tree: [] }
        : daemon(req);
    await app.newSession();
    for (let i = 0; i < 3; i++) await flush();
    expect(app.session.sessionId).toBe("s9");
    await app.newSession();
    expect(socket.requests("gg/session.create")).toHaveLength(1);
  });

  it("badges another session waiting for approval and clears it when its run ends", async () => {
    const { factory, app, connect } = setup();
    await connect(factory.last());
    const socket = factory.last();
    const event = (params: Record<string, unknown>) =>
      socket.receive({ jsonrpc: "2.0", method: "gg/session.event", params });
    event({ sessionId: "s2", type: "approval_pending", runId: "r1", count: 1 });
    expect(app.store.get().badges).toEqual({ s2: 1 });
    // Events refresh the list once, after a short pause.
    const before = socket.requests("gg/session.list").length;
    event({ sessionId: "s2", type: "run_finished", runId: "r1", status: "completed" });
    expect(app.store.get().badges).toEqual({});
    vi.advanceTimersByTime(200);
    await flush();
    expect(socket.requests("gg/session.list").length).toBe(before + 1);
  });

  it("names a session from its renamed event and keeps that over a list answer sent before it", async () => {
    const { factory, app, connect } = setup();
    await connect(factory.last());
    const socket = factory.last();
    socket.responder = null;
    const refreshing = app.refreshSessions();
    const request = socket.requests("gg/session.list").at(-1);
    // The first prompt named s1 while the list was on its way.
    socket.receive({
      jsonrpc: "2.0",
      method: "gg/session.event",
      params: { sessionId: "s1", type: "renamed", name: "fix the calc" },
    });
    expect(app.store.get().sessions.find((s) => s.id === "s1")?.name).toBe("fix the calc");
    socket.reply(request?.id, { sessions: [{ id: "s1", name: "", updatedAt: 1, messageCount: 0, preview: "" }] });
    await flush();
    expect(app.store.get().sessions.find((s) => s.id === "s1")?.name).toBe("fix the calc");
    // The refresh the event scheduled applies.
    socket.responder = (req) =>
      req.method === "gg/session.list"
        ? { sessions: [{ id: "s1", name: "fix the calc", updatedAt: 3, messageCount: 2, preview: "fix the calc" }] }
        : {};
    vi.advanceTimersByTime(200);
    await flush();
    expect(app.store.get().sessions.map((s) => [s.id, s.name, s.messageCount])).toEqual([["s1", "fix the calc", 2]]);
    void refreshing;
  });

  it("switches workspace by reconnecting with initializationOptions.workspaceId", async () => {
    const { factory, app, workspaces, connect } = setup();
    await connect(factory.last());
    const first = factory.last();
    app.switchWorkspace("w2");
    expect(first.closed).toBe(true);
    expect(workspaces).toEqual([undefined, "w2"]);
    factory.last().open();
    expect(factory.last().requests("initialize")[0].params).toMatchObject({
      initializationOptions: { workspaceId: "w2" },
    });
  });
});
