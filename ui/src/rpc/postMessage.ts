import { CONNECTION_LOST, ListenerTransport, RpcError, type TransportState } from "./transport";

/** Where the webview posts to (VS Code's `acquireVsCodeApi()` result, or a parent window). */
export interface MessageTarget {
  postMessage(message: unknown): void;
}

/** Where the host's messages arrive (the webview's window). */
export interface MessageSource {
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  removeEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/**
 * Envelopes between the web UI and a host that owns the real ggd connection (a VS Code extension):
 * UI -> host `{gg: "rpc", message}` (a JSON-RPC request or notification); host -> UI
 * `{gg: "rpc", message}` (a response or notification) and `{gg: "state", state}` (TransportState).
 * The host does `initialize` itself; its "open" state carries the ServerHello.
 */
export type BridgeEnvelope = { gg: "rpc"; message: Record<string, unknown> } | { gg: "state"; state: TransportState };

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** A Transport over postMessage, for a webview whose host speaks to ggd. */
export class PostMessageTransport extends ListenerTransport {
  private readonly target: MessageTarget;
  private readonly source: MessageSource;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly onMessage = (event: MessageEvent) => this.receive(event.data);

  constructor(target: MessageTarget, source: MessageSource) {
    super();
    this.target = target;
    this.source = source;
    source.addEventListener("message", this.onMessage);
    target.postMessage({ gg: "hello" });
  }

  request<T>(method: string, params?: unknown): Promise<T> {
    if (this.state.status === "closed" || this.state.status === "failed") {
      return Promise.reject(new RpcError(CONNECTION_LOST, this.state.error ?? "The connection is closed."));
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (value) => resolve(value as T), reject });
      this.post({ jsonrpc: "2.0", id, method, params: params ?? {} });
    });
  }

  notify(method: string, params?: unknown): void {
    this.post({ jsonrpc: "2.0", method, params: params ?? {} });
  }

  close(): void {
    this.source.removeEventListener("message", this.onMessage);
    for (const entry of this.pending.values()) entry.reject(new RpcError(CONNECTION_LOST, "The connection is closed."));
    this.pending.clear();
    this.setState({ status: "closed", attempt: 0 });
  }

  private post(message: Record<string, unknown>): void {
    const envelope: BridgeEnvelope = { gg: "rpc", message };
    this.target.postMessage(envelope);
  }

  private receive(data: unknown): void {
    if (typeof data !== "object" || data === null) return;
    const envelope = data as Partial<BridgeEnvelope>;
    if (envelope.gg === "state" && envelope.state) {
      this.setState(envelope.state);
      if (envelope.state.status !== "open") {
        // Like a dropped socket: answers to requests in flight will not come.
        for (const entry of this.pending.values()) {
          entry.reject(new RpcError(CONNECTION_LOST, "The connection to the daemon was lost.", { retryable: true }));
        }
        this.pending.clear();
      }
      return;
    }
    if (envelope.gg !== "rpc" || !envelope.message) return;
    const message = envelope.message as {
      id?: number;
      method?: string;
      params?: unknown;
      result?: unknown;
      error?: { code: number; message: string; data?: { code?: string; retryable?: boolean } };
    };
    if (typeof message.method === "string" && message.id === undefined) {
      this.emitNotification(message.method, message.params);
      return;
    }
    if (typeof message.id !== "number") return;
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    if (message.error) entry.reject(new RpcError(message.error.code, message.error.message, message.error.data ?? {}));
    else entry.resolve(message.result);
  }
}
