// Wire types come from the generated declarations (protocol/gg-protocol.d.ts, produced from
// ggd.protocol). A .d.ts has no runtime values, so the few constants the UI needs at run time are
// repeated here; test/protocol.test.ts keeps them equal to the generated file.
export type * from "../../protocol/gg-protocol";
import type { GgMethods } from "../../protocol/gg-protocol";

/** The protocol version this UI speaks; a daemon with another major is refused. */
export const PROTOCOL_VERSION = "1.0";

/** JSON-RPC error codes the UI reacts to (PROTOCOL.md "Errors"). */
export const ErrorCode = {
  sessionNotFound: -32001,
  runNotFound: -32002,
  runConflict: -32003,
  approvalExpired: -32004,
  eventHistoryExpired: -32005,
  sessionConflict: -32006,
  invalidAction: -32007,
  workspaceMismatch: -32008,
  runCapacity: -32009,
  runtimeClosed: -32010,
} as const;

/** Request methods (client -> daemon) of the table. */
export type RequestMethod = {
  [M in keyof GgMethods]: GgMethods[M]["result"] extends void ? never : M;
}[keyof GgMethods];

export type ParamsOf<M extends keyof GgMethods> = GgMethods[M]["params"];
export type ResultOf<M extends keyof GgMethods> = GgMethods[M]["result"];

/** The experimental.gg block of the initialize result. */
export interface GgServerCapabilities {
  protocolVersion: string;
  capabilities: string[];
  workspace?: { id: string; name: string } | null;
  /** Granted initializationOptions.batchFrames: frames may hold a JSON array of messages. */
  batchFrames?: boolean;
}

/** What a transport learned from `initialize`. */
export interface ServerHello {
  name: string;
  version: string;
  gg: GgServerCapabilities;
}

/** The major part of a "MAJOR.MINOR" version string. */
export function majorOf(version: string): string {
  return version.split(".", 1)[0] ?? "";
}
