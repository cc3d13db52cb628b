import { useMemo, useState } from "react";
import type { SessionSummary } from "../protocol";

export interface SessionListProps {
  sessions: SessionSummary[];
  currentId: string | null;
  badges: Record<string, number>;
  onOpen: (sessionId: string) => void;
  onNew: () => void;
  onMore?: () => void;
  /** The element id (the narrow layout's toggle controls it). */
  id?: string;
  /** Escape inside the list: close it (given while it is open over the conversation). */
  onEscape?: () => void;
}

function when(ms: number): string {
  const date = new Date(ms);
  const today = new Date();
  return date.toDateString() === today.toDateString()
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString();
}

/** Sessions of the workspace, newest first, with a search box and approval badges. */
export function SessionList({ sessions, currentId, badges, onOpen, onNew, onMore, id, onEscape }: SessionListProps) {
  const [query, setQuery] = useState("");
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    const matching = q
      ? sessions.filter((s) => s.name.toLowerCase().includes(q) || s.preview.toLowerCase().includes(q))
      : sessions;
    return [...matching].sort((a, b) => b.updatedAt - a.updatedAt);
  }, [sessions, query]);

  return (
    <nav
      className="session-list"
      aria-label="Sessions"
      id={id}
      onKeyDown={(event) => {
        if (event.key === "Escape" && onEscape) {
          event.preventDefault();
          onEscape();
        }
      }}
    >
      <div className="session-list-head">
        <button type="button" className="btn primary" onClick={onNew}>
          New session
        </button>
        <input
          type="search"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          placeholder="Search sessions"
          aria-label="Search sessions"
        />
      </div>
      <ul>
        {shown.map((session) => {
          const badge = badges[session.id];
          return (
            <li key={session.id}>
              <button
                type="button"
                className={`session-row${session.id === currentId ? " current" : ""}`}
                aria-current={session.id === currentId ? "true" : undefined}
                onClick={() => onOpen(session.id)}
                data-testid="session-row"
                data-session-id={session.id}
              >
                <span className="session-name">{session.name || session.preview || "Untitled"}</span>
                {badge ? (
                  <span
                    className="badge"
                    data-testid="approval-badge"
                    aria-label={`${badge} approval${badge > 1 ? "s" : ""} waiting`}
                  >
                    {badge}
                  </span>
                ) : null}
                {session.activeRunId ? <span className="running-dot" aria-label="running" /> : null}
                <span className="session-preview">
                  {session.name && session.preview !== session.name ? session.preview : ""}
                </span>
                <span className="session-time">{when(session.updatedAt)}</span>
              </button>
            </li>
          );
        })}
        {shown.length === 0 ? <li className="empty">{query ? "No session matches." : "No sessions yet."}</li> : null}
        {onMore ? (
          <li>
            <button type="button" className="btn small ghost more" onClick={onMore}>
              Load more sessions
            </button>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}
