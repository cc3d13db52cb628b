// The webview bridge end to end in Node: the host's WebviewBridge and the web UI's own
// PostMessageTransport (ui/src/rpc/postMessage.ts), joined by a channel that clones like postMessage.
import assert from "node:assert/strict";
import test from "node:test";
import { PostMessageTransport, type MessageSource } from "../../../ui/src/rpc/postMessage";
import { CONNECTION_LOST as UI_CONNECTION_LOST, RpcError, type TransportState } from "../../../ui/src/rpc/transport";
import { type RpcPort, toBridgeError, WebviewBridge, type WebviewPort } from "../src/bridge";
import { type BridgeState, CONNECTION_LOST, isToHost, type ToWebview } from "../src/bridgeProtocol";

/** Let queued immediates (the channel's deliveries) run. */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
};

const HELLO = { name: "ggd", version: "0.1.0", gg: { protocolVersion: "1.0", capabilities: ["sessions"], workspace: { id: "w", name: "w" } } };

type PageListener = (event: MessageEvent) => void;

class Channel {
  toHost: Array<(m: unknown) => void> = [];
  toPage: PageListener[] = [];
  posted: ToWebview[] = [];
  fromPage: unknown[] = [];
  hostPort: WebviewPort = {
    postMessage: (m) => {
      this.posted.push(m);
      const copy = structuredClone(m);
      setImmediate(() => this.toPage.forEach((l) => l({ data: copy } as MessageEvent)));
      return true;
    },
    onDidReceiveMessage: (l) => {
      this.toHost.push(l);
      return { dispose: () => (this.toHost = this.toHost.filter((x) => x !== l)) };
    },
  };
  page = {
    postMessage: (m: unknown) => {
      this.fromPage.push(m);
      const copy = structuredClone(m);
      setImmediate(() => this.toHost.forEach((l) => l(copy)));
    },
  };
  source: MessageSource = {
    addEventListener: (_t: "message", l: PageListener) => void this.toPage.push(l),
    removeEventListener: (_t: "message", l: PageListener) => void (this.toPage = this.toPage.filter((x) => x !== l)),
  };
  /** Send a raw message to the host as the page would. */
  sendToHost(m: unknown): void {
    this.toHost.forEach((l) => l(m));
  }
}

class FakeRpc implements RpcPort {
  requests: Array<{ method: string; params: unknown }> = [];
  notifications: Array<{ method: string; params: unknown }> = [];
  answers = new Map<string, (params: unknown) => unknown>();
  sendRequest(method: string, params: unknown): Promise<unknown> {
    this.requests.push({ method, params });
    const answer = this.answers.get(method);
    if (!answer) return Promise.reject({ code: -32601, message: `Unknown method ${method}` });
    try {
      return Promise.resolve(answer(params));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  sendNotification(method: string, params: unknown): void {
    this.notifications.push({ method, params });
  }
}

function setup(initial: BridgeState = { status: "open", attempt: 0, server: HELLO }) {
  const ch = new Channel();
  const rpc = new FakeRpc();
  const logs: string[] = [];
  const bridge = new WebviewBridge(ch.hostPort, rpc, (l) => logs.push(l));
  bridge.setState(initial);
  const transport = new PostMessageTransport(ch.page, ch.source);
  const states: TransportState[] = [];
  transport.onStateChange((s) => states.push(s));
  return { ch, rpc, bridge, transport, states, logs };
}

const isRpcError = (code: number) => (err: unknown) => err instanceof RpcError && err.code === code;

test("the page's hello gets the current state with the server hello", async () => {
  const { states, ch, bridge } = setup();
  assert.deepEqual(ch.fromPage[0], { gg: "hello" });
  assert.equal(bridge.ready, false, "not ready before the page said hello");
  await flush();
  assert.equal(bridge.ready, true);
  const last = states.at(-1);
  assert.equal(last?.status, "open");
  assert.deepEqual(last?.server, HELLO);
});

test("a request round-trips to the connection and back", async () => {
  const { rpc, transport } = setup();
  await flush();
  rpc.answers.set("gg/session.create", (p) => ({ sessionId: "s1", echo: p }));
  const res = await transport.request<{ sessionId: string; echo: unknown }>("gg/session.create", { name: "x" });
  assert.deepEqual(res, { sessionId: "s1", echo: { name: "x" } });
  assert.deepEqual(rpc.requests, [{ method: "gg/session.create", params: { name: "x" } }]);
});

test("concurrent requests are matched by id, whatever the answer order", async () => {
  const { rpc, transport } = setup();
  await flush();
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  rpc.answers.set("gg/run.wait", () => gate.then(() => ({ events: [], done: true })));
  rpc.answers.set("gg/run.approve", () => ({}));
  const wait = transport.request("gg/run.wait", { runId: "r1", afterSequence: 0 });
  const approve = await transport.request("gg/run.approve", { runId: "r1", approvalId: "a", allow: true });
  assert.deepEqual(approve, {}, "an approval is never blocked by a pending long-poll");
  release();
  assert.deepEqual(await wait, { events: [], done: true });
});

test("daemon errors keep code, message and symbolic data", async () => {
  const { rpc, transport } = setup();
  await flush();
  rpc.answers.set("gg/run.start", () => {
    throw { code: -32003, message: "The session is busy.", data: { code: "run_conflict", retryable: true } };
  });
  await assert.rejects(transport.request("gg/run.start", { sessionId: "s", prompt: "p" }), (err: unknown) => {
    assert.ok(err instanceof RpcError);
    assert.equal(err.code, -32003);
    assert.equal(err.data.code, "run_conflict");
    assert.equal(err.retryable, true);
    return true;
  });
});

test("lifecycle methods are the host's: the page cannot call them", async () => {
  const { rpc, transport } = setup();
  await flush();
  for (const method of ["initialize", "shutdown", "exit", "workspace/executeCommand"]) {
    await assert.rejects(transport.request(method, {}), isRpcError(-32601));
  }
  transport.notify("exit");
  transport.notify("gg/run.steer", { sessionId: "s", text: "x" });
  await flush();
  assert.equal(rpc.requests.length, 0);
  assert.deepEqual(rpc.notifications, [{ method: "gg/run.steer", params: { sessionId: "s", text: "x" } }]);
});

test("only gg notifications are forwarded to the page", async () => {
  const { bridge, transport } = setup();
  const got: Array<[string, unknown]> = [];
  transport.onNotification((m, p) => got.push([m, p]));
  const ev = { runId: "r", sessionId: "s", sequence: 1, timestamp: 0, type: "text_delta", text: "hi" };
  bridge.forward("gg/run.event", ev);
  bridge.forward("window/logMessage", { message: "internal" });
  bridge.forward("gg/session.event", { sessionId: "s", type: "renamed", name: "n" });
  await flush();
  assert.deepEqual(got, [["gg/run.event", ev], ["gg/session.event", { sessionId: "s", type: "renamed", name: "n" }]]);
});

test("a request sent while the host connects waits for the connection, then goes through", async () => {
  const ch = new Channel();
  const rpc = new FakeRpc();
  const bridge = new WebviewBridge(ch.hostPort, rpc);
  bridge.setState({ status: "connecting", attempt: 0 });
  rpc.answers.set("gg/session.list", () => ({ sessions: [] }));
  // Raw envelope: the UI's transport only sends once it is open, but a page may race the host.
  ch.sendToHost({ gg: "rpc", message: { jsonrpc: "2.0", id: 7, method: "gg/session.list", params: {} } });
  await flush();
  assert.equal(rpc.requests.length, 0, "nothing is sent before the connection is open");
  bridge.setState({ status: "open", attempt: 0, server: HELLO });
  await flush();
  assert.deepEqual(ch.posted.at(-1), { gg: "rpc", message: { jsonrpc: "2.0", id: 7, result: { sessions: [] } } });
});

test("a failed connection: the page sees the error state and requests fail with CONNECTION_LOST", async () => {
  const { bridge, transport, states, ch } = setup({ status: "connecting", attempt: 0 });
  ch.sendToHost({ gg: "rpc", message: { jsonrpc: "2.0", id: 99, method: "gg/session.list" } });
  await flush();
  bridge.setState({ status: "failed", attempt: 1, error: "ggd is not installed" });
  await flush();
  assert.equal(states.at(-1)?.status, "failed");
  assert.equal(states.at(-1)?.error, "ggd is not installed");
  assert.deepEqual(ch.posted.at(-1), { gg: "rpc", message: { jsonrpc: "2.0", id: 99, error: { code: CONNECTION_LOST, message: "The connection to gg was lost; try again." } } });
  await assert.rejects(transport.request("gg/session.list", {}), isRpcError(UI_CONNECTION_LOST));
  assert.equal(CONNECTION_LOST, UI_CONNECTION_LOST, "both ends agree on the local code");
});

test("a reconnect is announced with resumed so the UI resubscribes", async () => {
  const { bridge, states } = setup();
  await flush();
  bridge.setState({ status: "reconnecting", attempt: 1 });
  bridge.setState({ status: "open", attempt: 0, server: HELLO, resumed: true });
  await flush();
  assert.deepEqual(states.slice(-2).map((s) => [s.status, s.resumed]), [["reconnecting", undefined], ["open", true]]);
});

test("openSession is an extra envelope the UI's transport safely ignores", async () => {
  const { bridge, ch, transport, states } = setup();
  await flush();
  const before = states.length;
  bridge.openSession("s42");
  await flush();
  assert.deepEqual(ch.posted.at(-1), { gg: "host", command: "openSession", sessionId: "s42" });
  assert.equal(states.length, before, "no state change");
  transport.close();
});

test("the last openSession is posted again when the page says hello", async () => {
  const { bridge, ch, transport } = setup();
  await flush();
  bridge.openSession("s7");
  ch.sendToHost({ gg: "hello" }); // e.g. the view was reloaded and lost the first post
  await flush();
  const opens = ch.posted.filter((m) => m.gg === "host");
  assert.deepEqual(opens.at(-1), { gg: "host", command: "openSession", sessionId: "s7" });
  assert.equal(opens.length, 2);
  transport.close();
});

test("foreign and malformed messages are ignored by the host", async () => {
  const { ch, rpc } = setup();
  await flush();
  ch.sendToHost({ kind: "request", id: 1, method: "gg/session.list" }); // not an envelope
  ch.sendToHost({ gg: "rpc", message: { id: "1", method: "gg/session.list" } }); // id not a number
  ch.sendToHost({ gg: "rpc", message: { id: 1.5, method: "gg/session.list" } });
  ch.sendToHost({ gg: "rpc" });
  ch.sendToHost("hello");
  ch.sendToHost(null);
  await flush();
  assert.equal(rpc.requests.length, 0);
  assert.equal(isToHost({ gg: "rpc", message: { jsonrpc: "2.0", method: "gg/x" } }), true);
  assert.equal(isToHost({ gg: "hello" }), true);
});

test("the bridge knows which sessions the page follows", async () => {
  const { bridge, rpc, transport } = setup();
  await flush();
  rpc.answers.set("gg/session.subscribe", () => ({}));
  rpc.answers.set("gg/session.unsubscribe", () => ({}));
  assert.equal(bridge.watches("s1"), false);
  await transport.request("gg/session.subscribe", { sessionId: "s1" });
  await transport.request("gg/session.subscribe", { sessionId: "s2" });
  assert.equal(bridge.watches("s1"), true);
  await transport.request("gg/session.unsubscribe", { sessionId: "s1" });
  assert.equal(bridge.watches("s1"), false);
  assert.equal(bridge.watches("s2"), true);
  bridge.dispose();
  assert.equal(bridge.watches("s2"), false, "a disposed view shows nothing");
});

test("a disposed bridge stops relaying", async () => {
  const { ch, bridge } = setup();
  await flush();
  bridge.dispose();
  assert.equal(ch.toHost.length, 0);
  assert.equal(bridge.ready, false);
  const before = ch.posted.length;
  bridge.forward("gg/run.event", {});
  bridge.setState({ status: "open", attempt: 0, server: HELLO });
  assert.equal(ch.posted.length, before);
});

test("toBridgeError never leaks local exception text", () => {
  assert.deepEqual(toBridgeError(new Error("EPIPE /home/user/.gg/run/ggd.sock")), { code: CONNECTION_LOST, message: "The connection to gg was lost; try again." });
  assert.deepEqual(toBridgeError({ code: -32001, message: "Session not found.", data: { code: "session_not_found", retryable: false } }), {
    code: -32001,
    message: "Session not found.",
    data: { code: "session_not_found", retryable: false },
  });
});
