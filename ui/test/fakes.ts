import type { WebSocketFactory, WebSocketLike } from "../src/rpc/websocket";

export interface WireRequest {
  jsonrpc: "2.0";
  id?: number;
  method: string;
  params?: unknown;
}

/** A WebSocket double: the test plays the daemon by reading `sent` and calling the helpers. */
export class FakeSocket implements WebSocketLike {
  onopen: ((ev: Event) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  readonly sent: WireRequest[] = [];
  closed = false;

  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {}

  /** When set, plays the daemon: answers every request (after initialize) on a microtask. */
  responder: ((request: WireRequest) => unknown) | null = null;

  send(data: string): void {
    const message = JSON.parse(data) as WireRequest;
    this.sent.push(message);
    const responder = this.responder;
    if (responder && message.id !== undefined && message.method !== "initialize") {
      queueMicrotask(() => {
        const answer = responder(message);
        if (answer instanceof DaemonError) this.replyError(message.id, answer.code, answer.message, answer.symbol);
        else this.reply(message.id, answer ?? {});
      });
    }
  }

  close(): void {
    this.closed = true;
  }

  /** The server accepted the upgrade. */
  open(): void {
    this.onopen?.(new Event("open"));
  }

  /** The server sent one JSON-RPC message. */
  receive(message: unknown): void {
    this.onmessage?.(new MessageEvent("message", { data: JSON.stringify(message) }));
  }

  /** The connection dropped (or the upgrade was refused). */
  drop(): void {
    this.onerror?.(new Event("error"));
    this.onclose?.({ code: 1006, reason: "", wasClean: false } as CloseEvent);
  }

  /** Requests (with an id) sent so far for a method. */
  requests(method: string): WireRequest[] {
    return this.sent.filter((m) => m.method === method && m.id !== undefined);
  }

  /** Answer the initialize request with a gg protocol version. */
  acceptInitialize(protocolVersion = "1.0", workspace = { id: "w1", name: "demo" }): void {
    const init = this.requests("initialize").at(-1);
    if (!init) throw new Error("no initialize sent");
    this.receive({
      jsonrpc: "2.0",
      id: init.id,
      result: {
        serverInfo: { name: "ggd", version: "0.1.0" },
        capabilities: { experimental: { gg: { protocolVersion, capabilities: ["sessions", "runs"], workspace } } },
      },
    });
  }

  /** Answer a request by id. */
  reply(id: number | undefined, result: unknown): void {
    this.receive({ jsonrpc: "2.0", id, result });
  }

  /** Answer a request by id with an error. */
  replyError(id: number | undefined, code: number, message: string, symbol: string): void {
    this.receive({ jsonrpc: "2.0", id, error: { code, message, data: { code: symbol, retryable: false } } });
  }
}

/** Returned by a responder to answer with a JSON-RPC error. */
export class DaemonError {
  constructor(
    readonly code: number,
    readonly message: string,
    readonly symbol: string,
  ) {}
}

/** A socket factory that records every socket it made. */
export function socketFactory(): { create: WebSocketFactory; sockets: FakeSocket[]; last: () => FakeSocket } {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    create: (url, protocols) => {
      const socket = new FakeSocket(url, protocols);
      sockets.push(socket);
      return socket;
    },
    last: () => {
      const socket = sockets.at(-1);
      if (!socket) throw new Error("no socket created");
      return socket;
    },
  };
}

/** Let pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A run event envelope for tests. */
export function runEvent<T extends Record<string, unknown>>(
  sequence: number,
  type: string,
  fields: T = {} as T,
  runId = "r1",
  sessionId = "s1",
) {
  return { runId, sessionId, sequence, timestamp: 1_700_000_000_000 + sequence, type, ...fields };
}
