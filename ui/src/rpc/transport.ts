import type { ServerHello } from "../protocol";

/** Connection phases a client can show. */
export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "failed" | "closed";

/** A snapshot of the connection, passed to onStateChange listeners. */
export interface TransportState {
  status: ConnectionStatus;
  /** Consecutive failed attempts since the last open connection. */
  attempt: number;
  /** Milliseconds until the next attempt (status "reconnecting"). */
  retryInMs?: number;
  /** A message for the user (status "failed", or why the last attempt failed). */
  error?: string;
  /** What the daemon said in `initialize` (status "open"). */
  server?: ServerHello;
  /** Why a "failed" transport gave up: a refused token can be fixed by entering another one. */
  failure?: "unauthorized" | "version" | "other";
  /** True once this transport has been open before: listeners resubscribe on a later "open". */
  resumed?: boolean;
}

export type NotificationListener = (method: string, params: unknown) => void;
export type StateListener = (state: TransportState) => void;

/**
 * The one seam between the UI and a daemon. WebSocketTransport speaks to ggd directly; a VS Code
 * webview can implement the same five members over postMessage.
 */
export interface Transport {
  /** Send a JSON-RPC request; resolves with the result or rejects with an RpcError. */
  request<T>(method: string, params?: unknown): Promise<T>;
  /** Send a JSON-RPC notification. */
  notify(method: string, params?: unknown): void;
  /** Listen to server notifications; returns an unsubscribe function. */
  onNotification(listener: NotificationListener): () => void;
  /** Listen to connection state changes (called at once with the current state). */
  onStateChange(listener: StateListener): () => void;
  /** Close for good: no reconnect. */
  close(): void;
}

/** Symbolic error data the daemon puts in `error.data`. */
/**
 * The listener bookkeeping every Transport shares: the current state, state listeners and
 * notification listeners. Subclasses move the state with setState and hand notifications to emit.
 */
export abstract class ListenerTransport implements Transport {
  protected state: TransportState = { status: "connecting", attempt: 0 };
  private readonly notificationListeners = new Set<NotificationListener>();
  private readonly stateListeners = new Set<StateListener>();

  abstract request<T>(method: string, params?: unknown): Promise<T>;
  abstract notify(method: string, params?: unknown): void;
  abstract close(): void;

  onNotification(listener: NotificationListener): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  onStateChange(listener: StateListener): () => void {
    this.stateListeners.add(listener);
    listener(this.state);
    return () => this.stateListeners.delete(listener);
  }

  protected setState(state: TransportState): void {
    this.state = state;
    for (const listener of [...this.stateListeners]) listener(state);
  }

  protected emitNotification(method: string, params: unknown): void {
    for (const listener of [...this.notificationListeners]) listener(method, params);
  }
}

export interface RpcErrorData {
  code?: string;
  retryable?: boolean;
}

/** A JSON-RPC error answer, or a local failure shaped like one. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: RpcErrorData;

  constructor(code: number, message: string, data: RpcErrorData = {}) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }

  /** True when trying again may help. */
  get retryable(): boolean {
    return this.data.retryable === true;
  }
}

/** Local code for "the connection dropped before an answer came". */
export const CONNECTION_LOST = -32099;
