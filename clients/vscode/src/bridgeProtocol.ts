// The envelopes between the chat webview (the gg web UI) and the extension host. The web UI defines
// them (ui/src/rpc/postMessage.ts, PostMessageTransport); this is the host's copy of that contract:
//   page -> host  {gg: "hello"}                      the page's transport is listening
//                 {gg: "rpc", message}                a JSON-RPC request (id) or notification (no id)
//   host -> page  {gg: "rpc", message}                a JSON-RPC response or a gg notification
//                 {gg: "state", state}                the connection state (TransportState)
//                 {gg: "host", command, sessionId}    extension-only: "openSession" (pages may ignore it)
// The host owns `initialize`; its "open" state carries the ServerHello.

/** Connection phases, as the web UI's Transport reports them. */
export type BridgeStatus = "connecting" | "open" | "reconnecting" | "failed" | "closed";

/** What the daemon said in `initialize` (the web UI's ServerHello). */
export interface BridgeHello {
  name: string;
  version: string;
  gg: { protocolVersion: string; capabilities: string[]; workspace?: { id: string; name: string } | null };
}

/** The connection state the page shows (the web UI's TransportState). */
export interface BridgeState {
  status: BridgeStatus;
  attempt: number;
  error?: string;
  server?: BridgeHello;
  resumed?: boolean;
}

/** A JSON-RPC error object. */
export interface BridgeError {
  code: number;
  message: string;
  data?: { code?: string; retryable?: boolean };
}

/** A JSON-RPC request (id) or notification (no id) from the page. */
export interface PageMessage {
  jsonrpc?: "2.0";
  id?: number;
  method: string;
  params?: unknown;
}

/** A JSON-RPC message to the page: a response or a notification. */
export type HostMessage =
  | { jsonrpc: "2.0"; id: number; result: unknown }
  | { jsonrpc: "2.0"; id: number; error: BridgeError }
  | { jsonrpc: "2.0"; method: string; params: unknown };

/** Page -> host. */
export type ToHost = { gg: "hello" } | { gg: "rpc"; message: PageMessage };

/** Host -> page. */
export type ToWebview =
  | { gg: "rpc"; message: HostMessage }
  | { gg: "state"; state: BridgeState }
  | { gg: "host"; command: "openSession"; sessionId: string };

/** Local error code for "the connection dropped before an answer came" (the web UI's CONNECTION_LOST). */
export const CONNECTION_LOST = -32099;

/** JSON-RPC "method not found". */
export const METHOD_NOT_FOUND = -32601;

/** JSON-RPC "invalid request". */
export const INVALID_REQUEST = -32600;

/** True when value is a well-formed page -> host envelope. */
export function isToHost(value: unknown): value is ToHost {
  if (typeof value !== "object" || value === null) return false;
  const m = value as Record<string, unknown>;
  if (m.gg === "hello") return true;
  if (m.gg !== "rpc" || typeof m.message !== "object" || m.message === null) return false;
  const msg = m.message as Record<string, unknown>;
  if (typeof msg.method !== "string") return false;
  return msg.id === undefined || (typeof msg.id === "number" && Number.isInteger(msg.id));
}
