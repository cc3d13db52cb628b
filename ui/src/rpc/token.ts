const TOKEN_KEY = "gg.token";
const WORKSPACE_KEY = "gg.workspace";
const SESSION_KEY = "gg.session";

/** Where the token and workspace choice live for this tab (sessionStorage, never the URL). */
export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * Take `#token=...` from the URL fragment into sessionStorage and strip it from the visible URL,
 * so it does not stay in the address bar, history or screenshots. Returns the token to use.
 */
export function takeToken(loc: Location, history: History, storage: TokenStorage): string | null {
  const params = new URLSearchParams(loc.hash.replace(/^#/, ""));
  const fromHash = params.get("token");
  if (fromHash) {
    storage.setItem(TOKEN_KEY, fromHash);
    params.delete("token");
    const rest = params.toString();
    history.replaceState(history.state, "", `${loc.pathname}${loc.search}${rest ? `#${rest}` : ""}`);
    return fromHash;
  }
  return storage.getItem(TOKEN_KEY);
}

/** Remember a token typed by the user. */
export function saveToken(storage: TokenStorage, token: string): void {
  storage.setItem(TOKEN_KEY, token);
}

/** The workspace this tab chose, if any. */
export function savedWorkspace(storage: TokenStorage): string | undefined {
  return storage.getItem(WORKSPACE_KEY) ?? undefined;
}

/** Remember the workspace this tab chose (a reload reconnects to it). */
export function saveWorkspace(storage: TokenStorage, workspaceId: string): void {
  storage.setItem(WORKSPACE_KEY, workspaceId);
}

/** The ws:// URL of the daemon that served this page. */
export function socketUrl(loc: Location): string {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/ws`;
}

/** The session this tab had open (a reload reopens it). */
export function savedSession(storage: TokenStorage): string | undefined {
  return storage.getItem(SESSION_KEY) ?? undefined;
}

/** Remember the open session of this tab. */
export function saveSession(storage: TokenStorage, sessionId: string): void {
  storage.setItem(SESSION_KEY, sessionId);
}
