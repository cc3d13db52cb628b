import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CONNECTION_LOST, RpcError, type TransportState } from "../src/rpc/transport";
import { WebSocketTransport, backoffDelay, type AuthProbe } from "../src/rpc/websocket";
import { flush, socketFactory } from "./fakes";

function makeTransport(extra: { checkAuth?: () => Promise<AuthProbe>; workspaceId?: string } = {}) {
  const factory = socketFactory();
  const states: TransportState[] = [];
  const transport = new WebSocketTransport({
    url: "ws://127.0.0.1:1/ws",
    token: "T0K",
    createSocket: factory.create,
    backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 },
    random: () => 0,
    ...extra,
  });
  transport.onStateChange((s) => states.push(s));
  return { transport, factory, states };
}

describe("WebSocketTransport", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("authenticates with subprotocols, initializes, then sends queued requests", async () => {
    const { transport, factory, states } = makeTransport({ workspaceId: "w9" });
    const socket = factory.last();
    expect(socket.protocols).toEqual(["gg.v1", "gg-token.T0K"]);
    const answer = transport.request<{ ok: boolean }>("gg/system.info", {});
    socket.open();
    const init = socket.requests("initialize")[0];
    expect(init.params).toMatchObject({ capabilities: {}, initializationOptions: { workspaceId: "w9" } });
    // Nothing else goes out before initialize is answered.
    expect(socket.requests("gg/system.info")).toHaveLength(0);
    socket.acceptInitialize("1.3");
    expect(socket.sent.some((m) => m.method === "initialized" && m.id === undefined)).toBe(true);
    const call = socket.requests("gg/system.info")[0];
    socket.reply(call.id, { ok: true });
    await expect(answer).resolves.toEqual({ ok: true });
    const open = states.at(-1);
    expect(open?.status).toBe("open");
    expect(open?.server?.gg.workspace).toEqual({ id: "w1", name: "demo" });
    expect(open?.resumed).toBe(false);
  });

  it("refuses a daemon with another protocol major and does not reconnect", async () => {
    const { transport, factory, states } = makeTransport();
    const pending = transport.request("gg/session.list", {});
    factory.last().open();
    factory.last().acceptInitialize("2.0");
    const last = states.at(-1);
    expect(last?.status).toBe("failed");
    expect(last?.failure).toBe("version");
    expect(last?.error).toMatch(/protocol 2\.0.*speaks 1\.0/);
    await expect(pending).rejects.toBeInstanceOf(RpcError);
    vi.advanceTimersByTime(60_000);
    expect(factory.sockets).toHaveLength(1);
  });

  it("reconnects with exponential backoff, capped, and resets after a good connection", async () => {
    const { factory, states } = makeTransport();
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      factory.last().drop();
      await flush();
      const s = states.at(-1);
      expect(s?.status).toBe("reconnecting");
      delays.push(s?.retryInMs ?? -1);
      const before = factory.sockets.length;
      vi.advanceTimersByTime((s?.retryInMs ?? 0) - 1);
      expect(factory.sockets).toHaveLength(before);
      vi.advanceTimersByTime(1);
      expect(factory.sockets).toHaveLength(before + 1);
    }
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
    factory.last().open();
    factory.last().acceptInitialize();
    expect(states.at(-1)).toMatchObject({ status: "open", resumed: false, attempt: 0 });
    factory.last().drop();
    await flush();
    expect(states.at(-1)).toMatchObject({
      status: "reconnecting",
      retryInMs: 100,
      error: expect.stringMatching(/lost/),
    });
    vi.advanceTimersByTime(100);
    factory.last().open();
    factory.last().acceptInitialize();
    expect(states.at(-1)).toMatchObject({ status: "open", resumed: true });
  });

  it("applies jitter to the delay", async () => {
    const factory = socketFactory();
    const states: TransportState[] = [];
    const transport = new WebSocketTransport({
      url: "ws://x/ws",
      token: "t",
      createSocket: factory.create,
      backoff: { initialMs: 1000, maxMs: 10_000, factor: 2, jitter: 0.5 },
      random: () => 1,
    });
    transport.onStateChange((s) => states.push(s));
    factory.last().drop();
    await flush();
    expect(states.at(-1)?.retryInMs).toBe(500);
    expect(backoffDelay(3, { initialMs: 1000, maxMs: 10_000, factor: 2, jitter: 0 })).toBe(4000);
    transport.close();
  });

  it("stops with a clear message when the daemon refuses the token", async () => {
    const checkAuth = vi.fn(async (): Promise<AuthProbe> => "unauthorized");
    const { factory, states } = makeTransport({ checkAuth });
    factory.last().drop();
    await flush();
    expect(checkAuth).toHaveBeenCalledOnce();
    expect(states.at(-1)).toMatchObject({ status: "failed", failure: "unauthorized" });
    expect(states.at(-1)?.error).toMatch(/refused the access token/);
    vi.advanceTimersByTime(60_000);
    expect(factory.sockets).toHaveLength(1);
  });

  it("keeps retrying when the daemon is merely unreachable", async () => {
    const { factory, states } = makeTransport({ checkAuth: async () => "unknown" });
    factory.last().drop();
    await flush();
    expect(states.at(-1)).toMatchObject({ status: "reconnecting", error: "Cannot reach the daemon." });
  });

  it("rejects requests in flight when the connection drops, retryable", async () => {
    const { transport, factory } = makeTransport();
    factory.last().open();
    factory.last().acceptInitialize();
    const pending = transport.request("gg/run.get", { runId: "r" });
    factory.last().drop();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(CONNECTION_LOST);
    expect((error as RpcError).retryable).toBe(true);
  });

  it("delivers notifications, maps errors, and answers server requests", async () => {
    const { transport, factory } = makeTransport();
    const seen: Array<[string, unknown]> = [];
    transport.onNotification((method, params) => seen.push([method, params]));
    const socket = factory.last();
    socket.open();
    socket.acceptInitialize();
    socket.receive({ jsonrpc: "2.0", method: "gg/run.event", params: { sequence: 1 } });
    expect(seen).toEqual([["gg/run.event", { sequence: 1 }]]);
    const pending = transport.request("gg/session.open", { sessionId: "nope" });
    const req = socket.requests("gg/session.open")[0];
    socket.replyError(req.id, -32001, "Session not found.", "session_not_found");
    await expect(pending).rejects.toMatchObject({ code: -32001, data: { code: "session_not_found" } });
    socket.receive({ jsonrpc: "2.0", id: 77, method: "window/showMessageRequest", params: {} });
    expect(socket.sent.at(-1)).toMatchObject({ id: 77, error: { code: -32601 } });
  });

  it("asks for batched frames and handles every message of an array in order", async () => {
    const { transport, factory } = makeTransport({ workspaceId: "w9" });
    const seen: Array<[string, unknown]> = [];
    transport.onNotification((method, params) => seen.push([method, params]));
    const socket = factory.last();
    socket.open();
    expect(socket.requests("initialize")[0].params).toMatchObject({
      initializationOptions: { batchFrames: true, workspaceId: "w9" },
    });
    socket.acceptInitialize();
    const pending = transport.request<{ ok: boolean }>("gg/run.subscribe", {});
    const req = socket.requests("gg/run.subscribe")[0];
    socket.receive([
      { jsonrpc: "2.0", method: "gg/run.event", params: { sequence: 1 } },
      { jsonrpc: "2.0", method: "gg/run.event", params: { sequence: 2 } },
      { jsonrpc: "2.0", id: req.id, result: { ok: true } },
      { jsonrpc: "2.0", method: "gg/run.event", params: { sequence: 3 } },
    ]);
    expect(seen).toEqual([
      ["gg/run.event", { sequence: 1 }],
      ["gg/run.event", { sequence: 2 }],
      ["gg/run.event", { sequence: 3 }],
    ]);
    await expect(pending).resolves.toEqual({ ok: true });
  });

  it("close() sends exit, closes the socket and never reconnects", () => {
    const { transport, factory, states } = makeTransport();
    factory.last().open();
    factory.last().acceptInitialize();
    transport.close();
    expect(factory.last().sent.at(-1)?.method).toBe("exit");
    expect(factory.last().closed).toBe(true);
    expect(states.at(-1)?.status).toBe("closed");
    vi.advanceTimersByTime(60_000);
    expect(factory.sockets).toHaveLength(1);
  });
});
