// The host side of the webview bridge: relays the web UI's gg/* requests over the extension's one
// connection to ggd and forwards gg notifications back. No vscode import: it is unit-tested in Node.
import {
  type BridgeError,
  type BridgeState,
  CONNECTION_LOST,
  isToHost,
  METHOD_NOT_FOUND,
  type ToWebview,
} from "./bridgeProtocol";

/** The connection to ggd as the bridge needs it (a LanguageClient in the extension). */
export interface RpcPort {
  sendRequest(method: string, params: unknown): Promise<unknown>;
  sendNotification(method: string, params: unknown): Promise<void> | void;
}

/** The webview as the bridge needs it (vscode.Webview in the extension). */
export interface WebviewPort {
  postMessage(message: ToWebview): PromiseLike<boolean> | boolean;
  onDidReceiveMessage(listener: (message: unknown) => void): { dispose(): void };
}

/** Notifications the webview gets. */
const FORWARDED = new Set(["gg/run.event", "gg/session.event"]);

/** Map any rejection to a JSON-RPC error shape; ResponseError-like objects keep code and data. */
export function toBridgeError(err: unknown): BridgeError {
  if (typeof err === "object" && err !== null) {
    const e = err as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof e.code === "number" && typeof e.message === "string") {
      const out: BridgeError = { code: e.code, message: e.message };
      if (typeof e.data === "object" && e.data !== null) out.data = e.data as BridgeError["data"];
      return out;
    }
  }
  // Local failures (stopped client, closed pipe) say so without internals.
  return { code: CONNECTION_LOST, message: "The connection to gg was lost; try again." };
}

/** Relays one webview to the shared ggd connection. */
export class WebviewBridge {
  private state: BridgeState = { status: "connecting", attempt: 0 };
  private readonly waiting: Array<() => void> = [];
  private readonly subscription: { dispose(): void };
  private disposed = false;
  private pageReady = false;
  private lastOpen: string | null = null;
  // Sessions the page follows (from its own gg/session.subscribe / unsubscribe requests).
  private readonly watched = new Set<string>();

  constructor(
    private readonly webview: WebviewPort,
    private readonly rpc: RpcPort,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.subscription = webview.onDidReceiveMessage((m) => this.receive(m));
  }

  /** True once the page has spoken the bridge protocol (a UI build without it never does). */
  get ready(): boolean {
    return this.pageReady && !this.disposed;
  }

  /** True when the page follows this session (so it shows that session's approvals itself). */
  watches(sessionId: string): boolean {
    return this.ready && this.watched.has(sessionId);
  }

  /** Tell the bridge about the connection (open / reconnecting / failed ...); the webview is told too. */
  setState(state: BridgeState): void {
    this.state = state;
    this.post({ gg: "state", state });
    if (state.status === "open" || state.status === "failed" || state.status === "closed") {
      for (const wake of this.waiting.splice(0)) wake();
    }
  }

  /** Forward a daemon notification (only gg/run.event and gg/session.event cross). */
  forward(method: string, params: unknown): void {
    if (FORWARDED.has(method)) this.post({ gg: "rpc", message: { jsonrpc: "2.0", method, params } });
  }

  /** Ask the web UI to show a session. */
  openSession(sessionId: string): void {
    this.lastOpen = sessionId;
    this.post({ gg: "host", command: "openSession", sessionId });
  }

  /** Stop relaying (the view was disposed). */
  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
    for (const wake of this.waiting.splice(0)) wake();
  }

  private post(message: ToWebview): void {
    if (this.disposed) return;
    Promise.resolve(this.webview.postMessage(message)).catch(() => {
      // The view went away between the check and the post: nothing to deliver to.
    });
  }

  private receive(raw: unknown): void {
    if (this.disposed || !isToHost(raw)) return;
    if (raw.gg === "hello") {
      this.pageReady = true;
      this.post({ gg: "state", state: this.state });
      // A request posted before the page listened may have been dropped; the page ignores a
      // repeat for the session it already shows.
      if (this.lastOpen) this.post({ gg: "host", command: "openSession", sessionId: this.lastOpen });
      return;
    }
    const { id, method, params } = raw.message;
    this.track(method, params);
    if (id !== undefined) {
      void this.request(id, method, params);
    } else if (method.startsWith("gg/")) {
      void this.whenOpen().then((open) => {
        if (open) void this.rpc.sendNotification(method, params ?? {});
      });
    }
  }

  private track(method: string, params: unknown): void {
    const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
    if (typeof sessionId !== "string") return;
    if (method === "gg/session.subscribe") this.watched.add(sessionId);
    else if (method === "gg/session.unsubscribe") this.watched.delete(sessionId);
  }

  private respond(id: number, outcome: { result: unknown } | { error: BridgeError }): void {
    this.post({ gg: "rpc", message: { jsonrpc: "2.0", id, ...outcome } });
  }

  private async request(id: number, method: string, params: unknown): Promise<void> {
    // The connection's lifecycle (initialize, shutdown, exit) belongs to the host, never the page.
    if (!method.startsWith("gg/")) {
      this.respond(id, { error: { code: METHOD_NOT_FOUND, message: `${method} is not available in the VS Code view.` } });
      return;
    }
    if (!(await this.whenOpen())) {
      this.respond(id, { error: toBridgeError(null) });
      return;
    }
    try {
      const result = await this.rpc.sendRequest(method, params ?? {});
      this.respond(id, { result: result ?? null });
    } catch (err) {
      const error = toBridgeError(err);
      this.log(`${method} failed: ${error.message}`);
      this.respond(id, { error });
    }
  }

  /** Resolve true once open; false when the connection failed/closed or the bridge was disposed. */
  private whenOpen(): Promise<boolean> {
    const settled = (): boolean | undefined => {
      if (this.disposed) return false;
      if (this.state.status === "open") return true;
      if (this.state.status === "failed" || this.state.status === "closed") return false;
      return undefined;
    };
    const now = settled();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const wake = (): void => {
        const s = settled();
        if (s === undefined) this.waiting.push(wake);
        else resolve(s);
      };
      this.waiting.push(wake);
    });
  }
}
