import { useState, type ReactNode } from "react";
import type { FilesResult } from "../protocol";
import type { GgClient } from "../rpc/client";
import { errorText } from "../state/session";
import { Diff } from "./Diff";
import "./CheckpointsPanel.css";

type Kind = "undo" | "redo" | "restore" | "diff";

interface Shown {
  kind: Kind;
  nodeId?: string;
  result: FilesResult;
}

const MARK: Record<string, string> = { added: "A", modified: "M", deleted: "D", mode: "T" };
const TITLE: Record<Kind, string> = {
  undo: "Undo the last turn's files",
  redo: "Redo the files the last undo took back",
  restore: "Restore files to here",
  diff: "What this turn changed",
};

export interface CheckpointsPanelProps {
  client: GgClient;
  sessionId: string | null;
  busy: boolean;
  /** Check out a node with its files (the session's own path: the head and the draft follow). */
  checkoutWithFiles: (nodeId: string, confirmConflicts: boolean) => Promise<void>;
  /** The tree, given `open(kind, nodeId)` for its per-node buttons. */
  children: (open: (kind: "restore" | "diff", nodeId: string) => void) => ReactNode;
}

/** Undo, redo, restore-to-a-node and per-turn diffs of the workspace files, each previewed first. */
export function CheckpointsPanel({ client, sessionId, busy, checkoutWithFiles, children }: CheckpointsPanelProps) {
  const [shown, setShown] = useState<Shown | null>(null);
  const [overwrite, setOverwrite] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [working, setWorking] = useState(false);

  const open = async (kind: Kind, nodeId?: string) => {
    if (!sessionId) return;
    setError(null);
    setOverwrite(false);
    setWorking(true);
    try {
      let result: FilesResult;
      if (kind === "diff") {
        result = await client.call("gg/session.diff", { sessionId, nodeId: nodeId ?? null });
      } else if (kind === "restore") {
        result = await client.call("gg/session.restore", { sessionId, nodeId: nodeId ?? "", preview: true });
      } else {
        result = await client.call(`gg/session.${kind}`, { sessionId, preview: true });
      }
      setShown({ kind, nodeId, result });
    } catch (e) {
      setShown(null);
      setError(errorText(e));
    } finally {
      setWorking(false);
    }
  };

  const apply = async () => {
    if (!sessionId || !shown) return;
    setWorking(true);
    const confirmConflicts = overwrite;
    try {
      if (shown.kind === "restore") {
        // Checkout with the files: the head moves there too (a user message becomes the draft).
        await checkoutWithFiles(shown.nodeId ?? "", confirmConflicts);
      } else if (shown.kind === "undo" || shown.kind === "redo") {
        await client.call(`gg/session.${shown.kind}`, { sessionId, confirmConflicts });
      }
      setShown(null);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setWorking(false);
    }
  };

  const result = shown?.result;
  const conflicts = result?.conflicts ?? [];
  const canApply = shown !== null && shown.kind !== "diff" && (conflicts.length === 0 || overwrite);
  return (
    <div className="checkpoints">
      <div className="checkpoints-bar" role="toolbar" aria-label="Workspace files">
        <span className="checkpoints-label">Files</span>
        <button type="button" className="btn small" disabled={busy || working} onClick={() => void open("undo")}>
          Undo files
        </button>
        <button type="button" className="btn small" disabled={busy || working} onClick={() => void open("redo")}>
          Redo files
        </button>
        <button type="button" className="btn small" disabled={working} onClick={() => void open("diff")}>
          Last turn's changes
        </button>
      </div>
      {error ? (
        <p className="checkpoints-error" role="alert">
          {error}
        </p>
      ) : null}
      {shown && result ? (
        <section className="checkpoints-preview" aria-label={TITLE[shown.kind]} data-testid="files-preview">
          <header>
            <strong>{TITLE[shown.kind]}</strong>
            <span className="checkpoints-count">
              {result.files.length} file{result.files.length === 1 ? "" : "s"}
              {shown.kind === "diff" ? " changed" : " would change"}
            </span>
          </header>
          <ul className="checkpoints-files">
            {result.files.map((f) => (
              <li key={f.path} data-status={f.status}>
                <span className={`mark mark-${f.status}`}>{MARK[f.status] ?? "?"}</span>
                <span className="path">{f.path}</span>
                <span className="counts">
                  {f.additions == null ? "binary" : `+${f.additions} −${f.deletions ?? 0}`}
                </span>
                {conflicts.includes(f.path) ? <span className="conflict-badge">changed outside gg</span> : null}
              </li>
            ))}
            {(result.skipped ?? []).map((p) => (
              <li key={`skip-${p}`} className="skipped">
                skipped (over the size limit): {p}
              </li>
            ))}
          </ul>
          {result.patch ? <Diff diff={result.patch} /> : null}
          {result.truncated ? <p className="muted">The patch is cut at 200 KB.</p> : null}
          {conflicts.length > 0 ? (
            <label className="checkpoints-overwrite">
              <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} />
              Overwrite {conflicts.length} file{conflicts.length === 1 ? "" : "s"} changed outside gg
            </label>
          ) : null}
          <div className="checkpoints-actions">
            {shown.kind !== "diff" ? (
              <button
                type="button"
                className="btn primary"
                disabled={!canApply || working || busy}
                onClick={() => void apply()}
              >
                {shown.kind === "restore" ? "Restore files to here" : shown.kind === "undo" ? "Undo" : "Redo"}
              </button>
            ) : null}
            <button type="button" className="btn" onClick={() => setShown(null)}>
              {shown.kind === "diff" ? "Close" : "Cancel"}
            </button>
          </div>
        </section>
      ) : null}
      {children((kind, nodeId) => void open(kind, nodeId))}
    </div>
  );
}
