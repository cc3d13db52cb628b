import type { MessageSource } from "./postMessage";

/**
 * Extension-only commands a webview host sends beside the RPC envelopes:
 * `{gg: "host", command: "openSession", sessionId}` after "gg: Ask" and "gg: Open Sessions".
 */
export interface HostCommand {
  command: "openSession";
  sessionId: string;
}

export type HostCommandListener = (command: HostCommand) => void;

/** The command in a host message, or null for anything else (RPC envelopes, unknown commands). */
export function parseHostCommand(data: unknown): HostCommand | null {
  if (typeof data !== "object" || data === null) return null;
  const message = data as Record<string, unknown>;
  if (message.gg !== "host" || message.command !== "openSession") return null;
  if (typeof message.sessionId !== "string" || !message.sessionId) return null;
  return { command: "openSession", sessionId: message.sessionId };
}

/**
 * Listens for host commands from the moment the page script runs: the host may post before React
 * has mounted, and it does not repeat itself. The latest `openSession` is kept as the state "the
 * session the host wants shown" and given to every new listener (a new app controller shows it too).
 */
export class HostCommands {
  private readonly source: MessageSource;
  private readonly listeners = new Set<HostCommandListener>();
  private latest: HostCommand | null = null;
  private readonly onMessage = (event: MessageEvent) => {
    const command = parseHostCommand(event.data);
    if (!command) return;
    this.latest = command;
    for (const listener of [...this.listeners]) listener(command);
  };

  constructor(source: MessageSource) {
    this.source = source;
    source.addEventListener("message", this.onMessage);
  }

  /** Listen; the latest command seen so far (if any) is delivered at once. */
  listen(listener: HostCommandListener): () => void {
    this.listeners.add(listener);
    if (this.latest) listener(this.latest);
    return () => this.listeners.delete(listener);
  }

  /** Stop listening to the source. */
  dispose(): void {
    this.source.removeEventListener("message", this.onMessage);
    this.listeners.clear();
  }
}
