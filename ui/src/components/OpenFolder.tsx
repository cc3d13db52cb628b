import { useState } from "react";
import type { WorkspaceRef } from "../protocol";

export interface OpenFolderProps {
  /** gg/workspace.open: serve a folder on the daemon's machine as a workspace. */
  open: (root: string) => Promise<WorkspaceRef>;
  /** Switch to the opened workspace. */
  onOpened: (workspaceId: string) => void;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** "Open folder…": a path on the daemon's machine becomes a workspace the page switches to. */
export function OpenFolder({ open, onOpened }: OpenFolderProps) {
  const [editing, setEditing] = useState(false);
  const [root, setRoot] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (!editing) {
    return (
      <button type="button" className="btn small" onClick={() => setEditing(true)}>
        Open folder…
      </button>
    );
  }
  const submit = async () => {
    if (!root.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const ref = await open(root.trim());
      setEditing(false);
      setRoot("");
      onOpened(ref.id);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="open-folder"
      aria-label="Open a folder"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <input
        aria-label="Folder path"
        placeholder="/path/to/project or ~/code/project"
        value={root}
        autoFocus
        onChange={(event) => setRoot(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") setEditing(false);
        }}
      />
      <button type="submit" className="btn small" disabled={busy || !root.trim()}>
        Open
      </button>
      <button type="button" className="btn small ghost" onClick={() => setEditing(false)}>
        Cancel
      </button>
      {error ? (
        <span className="open-folder-error" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}
