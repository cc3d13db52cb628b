import { useMemo } from "react";
import type { TreeItem } from "../protocol";

/** Indent only where the conversation branches, so a long linear chat stays flat. */
export function branchIndents(tree: TreeItem[]): Map<string, number> {
  const byId = new Map(tree.map((node) => [node.id, node]));
  const children = new Map<string, number>();
  for (const node of tree) {
    if (node.parentId) children.set(node.parentId, (children.get(node.parentId) ?? 0) + 1);
  }
  const indents = new Map<string, number>();
  const indentOf = (id: string): number => {
    const known = indents.get(id);
    if (known !== undefined) return known;
    // Walk up iteratively (a chain can be thousands deep), then fill in on the way down.
    const path: string[] = [];
    let cursor: string | null | undefined = id;
    while (cursor && !indents.has(cursor) && byId.has(cursor)) {
      path.push(cursor);
      cursor = byId.get(cursor)?.parentId;
    }
    let indent = cursor && indents.has(cursor) ? (indents.get(cursor) as number) : 0;
    for (let i = path.length - 1; i >= 0; i--) {
      const parent = byId.get(path[i])?.parentId;
      if (parent && (children.get(parent) ?? 0) > 1) indent += 1;
      indents.set(path[i], indent);
    }
    return indents.get(id) ?? 0;
  };
  for (const node of tree) indentOf(node.id);
  return indents;
}

export interface TreeViewProps {
  tree: TreeItem[];
  busy: boolean;
  onCheckout: (nodeId: string) => void;
  onFork: (nodeId: string) => void;
  onClone: () => void;
}

/** The conversation tree: every branch, with checkout and fork at any message. */
export function TreeView({ tree, busy, onCheckout, onFork, onClone }: TreeViewProps) {
  const indents = useMemo(() => branchIndents(tree), [tree]);
  return (
    <section className="tree-view" aria-label="Conversation tree">
      <div className="tree-head">
        <p>Check out a message to continue from it on a new branch, or fork it into a new session.</p>
        <button type="button" className="btn" onClick={onClone} disabled={busy}>
          Clone session
        </button>
      </div>
      {tree.length === 0 ? <p className="empty">No messages yet.</p> : null}
      <ul className="tree">
        {tree.map((node) => (
          <li
            key={node.id}
            className={`tree-node role-${node.role}${node.active ? " active" : ""}`}
            style={{ paddingInlineStart: `${(indents.get(node.id) ?? 0) * 1.5 + 0.4}rem` }}
            data-testid="tree-node"
          >
            <span className="tree-role">{node.role}</span>
            <span className="tree-text">{node.text || "…"}</span>
            {node.active ? <span className="tree-active">active</span> : null}
            <span className="tree-actions">
              <button
                type="button"
                className="btn small"
                disabled={busy}
                onClick={() => onCheckout(node.id)}
                aria-label={`Check out ${node.role} message: ${node.text.slice(0, 40)}`}
              >
                Checkout
              </button>
              <button
                type="button"
                className="btn small"
                disabled={busy}
                onClick={() => onFork(node.id)}
                aria-label={`Fork at ${node.role} message: ${node.text.slice(0, 40)}`}
              >
                Fork
              </button>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
