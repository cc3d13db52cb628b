import { createContext, useContext, useEffect, useState } from "react";
import type { Message } from "../protocol";
import { itemsFromMessages, type ChildRun, type ConvItem } from "../state/conversation";
import { Markdown } from "./Markdown";

/** Loads a child session's messages (gg/session.get); provided by the app, absent in isolated renders. */
export type TranscriptLoader = (sessionId: string) => Promise<Message[]>;
export const TranscriptContext = createContext<TranscriptLoader | null>(null);
/** Opens a session in the main view (a child session, to continue or fork it). */
export const OpenSessionContext = createContext<((sessionId: string) => void) | null>(null);

const STATUS: Record<ChildRun["status"], string> = {
  running: "running",
  completed: "done",
  failed: "failed",
  canceled: "canceled",
};

/** One row of a child's transcript: compact, since it sits inside its parent's task card. */
function TranscriptRow({ item }: { item: ConvItem }) {
  if (item.kind === "user") return <div className="child-msg child-user">{item.text}</div>;
  if (item.kind === "assistant")
    return (
      <div className="child-msg child-assistant">
        <Markdown text={item.text} />
      </div>
    );
  const state = item.status === "error" ? "error" : item.status === "done" ? "done" : item.status.replace("_", " ");
  return (
    <div className={`child-msg child-tool tool-${item.status}`}>
      <span className="tool-name">{item.toolName}</span> <span className="child-tool-summary">{item.summary}</span>{" "}
      <span className="child-tool-state">{state}</span>
    </div>
  );
}

/**
 * A subagent under its `task` card: agent, state and its latest progress while it runs; its whole
 * transcript (the child session, an ordinary session) on demand, refreshed as the child moves on.
 */
export function ChildRunView({ child }: { child: ChildRun }) {
  const load = useContext(TranscriptContext);
  const openSession = useContext(OpenSessionContext);
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<ConvItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const progress = `${child.turns}/${child.toolCalls}/${child.status}/${child.lines.length}`;
  useEffect(() => {
    if (!open || !load) return;
    let live = true;
    load(child.sessionId).then(
      (messages) => live && setItems(itemsFromMessages(messages)),
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, [open, load, child.sessionId, progress]);
  const label = STATUS[child.status];
  return (
    <div className={`child-run child-${child.status}`} data-testid="child-run" data-status={label}>
      <div className="child-head">
        <span className="child-agent">{child.agent}</span>
        {child.description ? <span className="child-description">{child.description}</span> : null}
        {child.turns !== undefined ? (
          <span className="child-counts">
            {child.turns} turns · {child.toolCalls ?? 0} tools
          </span>
        ) : null}
        <span className={`tool-status status-${label}`} aria-label={`Subagent ${label}`}>
          {child.status === "running" ? <span className="spinner" aria-hidden="true" /> : null}
          {label}
        </span>
      </div>
      {child.status === "running" && child.lines.length > 0 ? (
        <ul className="child-lines" aria-label={`${child.agent} progress`}>
          {child.lines.map((line, i) => (
            <li key={`${i}-${line}`}>{line}</li>
          ))}
        </ul>
      ) : null}
      {child.error ? <div className="child-error">{child.error}</div> : null}
      <details className="child-transcript" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
        <summary>Transcript</summary>
        {openSession ? (
          <button type="button" className="btn small ghost" onClick={() => openSession(child.sessionId)}>
            Open session
          </button>
        ) : null}
        {error ? <div className="child-error">{error}</div> : null}
        {items ? (
          <div className="child-items" data-testid="child-transcript">
            {items.map((item) => (
              <TranscriptRow key={item.key} item={item} />
            ))}
          </div>
        ) : !error ? (
          <div className="child-loading">Loading…</div>
        ) : null}
      </details>
    </div>
  );
}
