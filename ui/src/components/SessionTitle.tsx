import { useState } from "react";

/** The session name, editable in place. */
export function SessionTitle({ name, onRename }: { name: string; onRename: (name: string) => void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(name);
  if (!editing) {
    return (
      <div className="session-title">
        <h1>{name || "Untitled"}</h1>
        <button
          type="button"
          className="btn small ghost"
          onClick={() => {
            setValue(name);
            setEditing(true);
          }}
        >
          Rename
        </button>
      </div>
    );
  }
  return (
    <form
      className="session-title"
      onSubmit={(event) => {
        event.preventDefault();
        const next = value.trim();
        if (next && next !== name) onRename(next);
        setEditing(false);
      }}
    >
      <input
        autoFocus
        value={value}
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") setEditing(false);
        }}
        aria-label="Session name"
      />
      <button type="submit" className="btn small primary">
        Save
      </button>
      <button type="button" className="btn small" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  );
}
