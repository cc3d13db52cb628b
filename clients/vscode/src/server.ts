// How the extension reaches ggd: `gg bridge` (the shared user daemon) or a private `ggd --stdio`.
// No vscode import.

/** The settings that decide the server command. */
export interface ServerSettings {
  server: "bridge" | "stdio";
  ggPath: string;
  ggdPath: string;
}

/** The process the language client spawns. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** The command for the settings; workspace is the folder a private ggd serves. */
export function serverCommand(s: ServerSettings, workspace: string | undefined): ServerCommand {
  if (s.server === "stdio") {
    const args = ["--stdio", "--exit-on-stdin-eof"];
    if (workspace) args.push("--workspace", workspace);
    return { command: s.ggdPath || "ggd", args };
  }
  return { command: s.ggPath || "gg", args: ["bridge"] };
}

/** Read settings with defaults from a getter (vscode.WorkspaceConfiguration.get in the extension). */
export function readSettings(get: <T>(key: string) => T | undefined): ServerSettings {
  return {
    server: get<string>("server") === "stdio" ? "stdio" : "bridge",
    ggPath: get<string>("ggPath") || "gg",
    ggdPath: get<string>("ggdPath") || "ggd",
  };
}

/** The protocol major this extension speaks; a daemon with another one is refused. */
export const PROTOCOL_MAJOR = "1";

/** An error message when the daemon's protocol is not ours, else undefined. */
export function checkProtocol(initializeResult: unknown): string | undefined {
  const caps = (initializeResult as { capabilities?: { experimental?: { gg?: { protocolVersion?: unknown } } } } | undefined)?.capabilities;
  const version = caps?.experimental?.gg?.protocolVersion;
  if (typeof version !== "string") return "The server is not ggd (no gg protocol in its capabilities).";
  if (version.split(".", 1)[0] !== PROTOCOL_MAJOR) return `ggd speaks gg protocol ${version}; this extension needs ${PROTOCOL_MAJOR}.x. Update one of them.`;
  return undefined;
}
