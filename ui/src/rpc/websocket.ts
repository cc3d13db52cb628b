import { PROTOCOL_VERSION, majorOf, type GgServerCapabilities, type ServerHello } from "../protocol";
import { CONNECTION_LOST, ListenerTransport, RpcError, type TransportState } from "./transport";

/** The part of the browser WebSocket this transport uses (tests pass a fake). */
export interface WebSocketLike {
  onopen: ((ev: Event) => void) | null;
  onclose: ((ev: CloseEvent) => void) | null;
  onerror: ((ev: Event) => void) | null;
  onmessage: ((ev: MessageEvent) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketFactory = (url: string, protocols: string[]) => WebSocketLike;

/** Answer of an auth probe after a connection attempt failed before opening. */
export type AuthProbe = "ok" | "unauthorized" | "unknown";

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** 0..1: the share of each delay that is randomised away, so tabs don't reconnect in lockstep. */
  jitter: number;
}

export interface WebSocketTransportOptions {
  url: string;
  token: string;
  workspaceId?: string;
  clientName?: string;
  clientVersion?: string;
  createSocket?: WebSocketFactory;
  backoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** Called when an attempt failed before the socket opened: tells a bad token from a dead daemon. */
  checkAuth?: () => Promise<AuthProbe>;
}

const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 15_000, factor: 2, jitter: 0.2 };

interface Pending {
  method: string;
  params: unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  sent: boolean;
}

interface WireMessage {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { code?: string; retryable?: boolean } };
}

/** The delay before reconnect attempt `attempt` (1-based), before jitter. */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const raw = options.initialMs * options.factor ** Math.max(0, attempt - 1);
  return Math.min(options.maxMs, raw);
}

/** JSON-RPC over a browser WebSocket to ggd, with initialize, version check and reconnect. */
export class WebSocketTransport extends ListenerTransport {
  private readonly options: WebSocketTransportOptions;
  private readonly backoff: BackoffOptions;
  private readonly createSocket: WebSocketFactory;
  private readonly random: () => number;
  private socket: WebSocketLike | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private initializeId = -1;
  private everOpened = false;
  private stopped = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(options: WebSocketTransportOptions) {
    super();
    this.options = options;
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.createSocket = options.createSocket ?? ((url, protocols) => new WebSocket(url, protocols) as WebSocketLike);
    this.random = options.random ?? Math.random;
    this.connect();
  }

  request<T>(method: string, params?: unknown): Promise<T> {
    if (this.stopped) {
      return Promise.reject(new RpcError(CONNECTION_LOST, this.state.error ?? "The connection is closed."));
    }
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      const entry: Pending = {
        method,
        params,
        resolve: (value) => resolve(value as T),
        reject,
        sent: false,
      };
      this.pending.set(id, entry);
      // Requests made while (re)connecting wait for the next open connection.
      if (this.state.status === "open") this.sendRequest(id, entry);
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.state.status !== "open" || !this.socket) return;
    this.socket.send(JSON.stringify({ jsonrpc: "2.0", method, params: params ?? {} }));
  }

  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket && this.state.status === "open") {
      socket.send(JSON.stringify({ jsonrpc: "2.0", method: "exit" }));
    }
    socket?.close(1000, "client closed");
    this.rejectAll("The connection is closed.", false);
    this.setState({ status: "closed", attempt: this.state.attempt });
  }

  private connect(): void {
    let opened = false;
    const protocols = ["gg.v1", `gg-token.${this.options.token}`];
    let socket: WebSocketLike;
    try {
      socket = this.createSocket(this.options.url, protocols);
    } catch {
      this.fail("The daemon address is not valid.");
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      this.sendInitialize(socket);
    };
    socket.onmessage = (ev: MessageEvent) => {
      if (socket === this.socket && typeof ev.data === "string") this.receive(ev.data);
    };
    socket.onerror = () => {
      // The close event follows and carries the decision.
    };
    socket.onclose = () => {
      if (socket !== this.socket) return;
      this.socket = null;
      void this.handleDrop(opened);
    };
  }

  private sendInitialize(socket: WebSocketLike): void {
    const id = this.nextId++;
    this.initializeId = id;
    // batchFrames: the daemon may send several queued messages as one JSON array per frame.
    const initializationOptions: Record<string, unknown> = { batchFrames: true };
    if (this.options.workspaceId) initializationOptions.workspaceId = this.options.workspaceId;
    socket.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: {
          processId: null,
          clientInfo: {
            name: this.options.clientName ?? "gg-web",
            version: this.options.clientVersion ?? "0.1.0",
          },
          capabilities: {},
          initializationOptions,
        },
      }),
    );
  }

  private receive(text: string): void {
    let decoded: WireMessage | WireMessage[];
    try {
      decoded = JSON.parse(text) as WireMessage | WireMessage[];
    } catch {
      return;
    }
    if (Array.isArray(decoded)) {
      // A batched frame: whole messages, handled in order as if each had its own frame.
      for (const message of decoded) {
        if (message !== null && typeof message === "object") this.handle(message);
      }
      return;
    }
    this.handle(decoded);
  }

  private handle(message: WireMessage): void {
    if (message.method !== undefined) {
      if (message.id !== undefined && message.id !== null) {
        // The UI serves no server-to-client requests; answer so the daemon never waits.
        this.socket?.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32601, message: "Method not supported by the web UI." },
          }),
        );
        return;
      }
      this.emitNotification(message.method, message.params);
      return;
    }
    if (typeof message.id !== "number") return;
    if (message.id === this.initializeId) {
      this.handleInitialized(message);
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    if (message.error) {
      const { code, message: text2, data } = message.error;
      entry.reject(new RpcError(code, text2, data ?? {}));
    } else {
      entry.resolve(message.result);
    }
  }

  private handleInitialized(message: WireMessage): void {
    this.initializeId = -1;
    if (message.error) {
      this.fail(`The daemon refused to start a session: ${message.error.message}`);
      return;
    }
    const result = (message.result ?? {}) as {
      serverInfo?: { name?: string; version?: string };
      capabilities?: { experimental?: { gg?: GgServerCapabilities } };
    };
    const gg = result.capabilities?.experimental?.gg;
    if (!gg || typeof gg.protocolVersion !== "string") {
      this.fail("This server is not a gg daemon (no gg protocol in its answer).");
      return;
    }
    if (majorOf(gg.protocolVersion) !== majorOf(PROTOCOL_VERSION)) {
      this.fail(
        `Protocol version mismatch: the daemon speaks gg protocol ${gg.protocolVersion}, this page ` +
          `speaks ${PROTOCOL_VERSION}. Reload the page from the daemon, or update gg.`,
        "version",
      );
      return;
    }
    const server: ServerHello = {
      name: result.serverInfo?.name ?? "ggd",
      version: result.serverInfo?.version ?? "",
      gg,
    };
    this.notify0("initialized", {});
    const resumed = this.everOpened;
    this.everOpened = true;
    this.setState({ status: "open", attempt: 0, server, resumed });
    for (const [id, entry] of this.pending) {
      if (!entry.sent) this.sendRequest(id, entry);
    }
  }

  private notify0(method: string, params: unknown): void {
    this.socket?.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  private sendRequest(id: number, entry: Pending): void {
    entry.sent = true;
    this.socket?.send(JSON.stringify({ jsonrpc: "2.0", id, method: entry.method, params: entry.params ?? {} }));
  }

  private async handleDrop(opened: boolean): Promise<void> {
    if (this.stopped) return;
    // Requests already on the wire may or may not have run: let the caller decide.
    for (const [id, entry] of this.pending) {
      if (entry.sent) {
        this.pending.delete(id);
        entry.reject(new RpcError(CONNECTION_LOST, "The connection to the daemon was lost.", { retryable: true }));
      }
    }
    const attempt = this.state.attempt + 1;
    if (!opened && this.options.checkAuth) {
      const probe = await this.options.checkAuth().catch((): AuthProbe => "unknown");
      if (this.stopped) return;
      if (probe === "unauthorized") {
        this.fail(
          "The daemon refused the access token. Open the link that ggd printed " +
            "(http://127.0.0.1:PORT/#token=...) or paste the token again.",
          "unauthorized",
        );
        return;
      }
    }
    const base = backoffDelay(attempt, this.backoff);
    const delay = Math.round(base * (1 - this.backoff.jitter * this.random()));
    const error = opened ? "The connection to the daemon was lost." : "Cannot reach the daemon.";
    this.setState({ status: "reconnecting", attempt, retryInMs: delay, error });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) this.connect();
    }, delay);
  }

  private fail(error: string, failure: TransportState["failure"] = "other"): void {
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, "client refused");
    this.rejectAll(error, false);
    this.setState({ status: "failed", attempt: this.state.attempt, error, failure });
  }

  private rejectAll(message: string, retryable: boolean): void {
    for (const entry of this.pending.values()) {
      entry.reject(new RpcError(CONNECTION_LOST, message, { retryable }));
    }
    this.pending.clear();
  }
}

/** Ask GET /health with the token: 401 means the token is wrong, not that the daemon is down. */
export function httpAuthProbe(healthUrl: string, token: string): () => Promise<AuthProbe> {
  return async () => {
    try {
      const response = await fetch(healthUrl, { headers: { Authorization: `Bearer ${token}` } });
      if (response.status === 401 || response.status === 403) return "unauthorized";
      return response.ok ? "ok" : "unknown";
    } catch {
      return "unknown";
    }
  };
}
