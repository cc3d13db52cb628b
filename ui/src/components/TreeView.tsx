import { useMemo, useState } from "react";
import type { TreeItem } from "../protocol";
import { treeGraph, type GraphRow } from "../state/treeGraph";
import "./TreeView.css";

const ROW = 30;
const LANE = 16;
const LANE_COLORS = 6;

const x = (lane: number) => LANE / 2 + lane * LANE;

/** The rails of one row: lines passing by, the dot, and curves into the lanes that open here. */
function Rails({ row, lanes, roots }: { row: GraphRow; lanes: number; roots: number }) {
  const mid = ROW / 2;
  const own = `lane-${row.lane % LANE_COLORS}`;
  const run = row.kind === "run";
  return (
    <svg
      className="tree-graph"
      width={lanes * LANE}
      height={ROW}
      viewBox={`0 0 ${lanes * LANE} ${ROW}`}
      aria-hidden="true"
    >
      {row.through.map((lane) => (
        <line key={`t${lane}`} className={`lane-${lane % LANE_COLORS}`} x1={x(lane)} y1={0} x2={x(lane)} y2={ROW} />
      ))}
      {row.branches.map((lane) => (
        <path
          key={`b${lane}`}
          className={`lane-${lane % LANE_COLORS}`}
          d={`M ${x(row.lane)} ${mid} Q ${x(lane)} ${mid} ${x(lane)} ${ROW}`}
          fill="none"
        />
      ))}
      {row.root && roots > 1 ? (
        // A separate history starts here: a bar caps its rail, as nothing leads into it.
        <line className={`${own} root-cap`} x1={x(row.lane) - 5} y1={mid - 9} x2={x(row.lane) + 5} y2={mid - 9} />
      ) : null}
      {row.top && !run ? <line className={own} x1={x(row.lane)} y1={0} x2={x(row.lane)} y2={mid} /> : null}
      {row.bottom && !run ? <line className={own} x1={x(row.lane)} y1={mid} x2={x(row.lane)} y2={ROW} /> : null}
      {run ? (
        // The folded messages: a dotted stretch of the rail.
        <line className={`${own} run-line`} x1={x(row.lane)} y1={0} x2={x(row.lane)} y2={ROW} />
      ) : (
        <circle
          className={`${own} dot${row.node.active ? " on-path" : ""}${row.head ? " head" : ""}`}
          cx={x(row.lane)}
          cy={mid}
          r={row.head ? 5.5 : 4}
        />
      )}
    </svg>
  );
}

export interface TreeViewProps {
  tree: TreeItem[];
  busy: boolean;
  onCheckout: (nodeId: string) => void;
  onFork: (nodeId: string) => void;
  onClone: () => void;
  /** Preview restoring the workspace files to a node (CheckpointsPanel). */
  onRestoreFiles?: (nodeId: string) => void;
  /** Show what a turn (a user message) changed in the workspace. */
  onTurnDiff?: (nodeId: string) => void;
}

/** The conversation tree drawn as a graph: branches where they split, linear runs folded. */
export function TreeView({ tree, busy, onCheckout, onFork, onClone, onRestoreFiles, onTurnDiff }: TreeViewProps) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const graph = useMemo(() => treeGraph(tree, expanded), [tree, expanded]);
  const roots = graph.rows.filter((row) => row.root).length;
  return (
    <section className="tree-view" aria-label="Conversation tree">
      <div className="tree-head">
        <p>Check out a message to continue from it on a new branch, or fork it into a new session.</p>
        <span className="tree-head-actions">
          {expanded.size > 0 ? (
            <button type="button" className="btn" onClick={() => setExpanded(new Set())}>
              Fold linear runs
            </button>
          ) : null}
          <button type="button" className="btn" onClick={onClone} disabled={busy}>
            Clone session
          </button>
        </span>
      </div>
      {tree.length === 0 ? <p className="empty">No messages yet.</p> : null}
      {roots > 1 ? (
        <p className="tree-roots-note" data-testid="tree-roots-note">
          This session has {roots} separate starts (a checkout before the first message); each has its own lane.
        </p>
      ) : null}
      <ul className="tree" data-lanes={graph.lanes} data-roots={roots}>
        {graph.rows.map((row) => {
          if (row.kind === "run") {
            const count = row.hidden.length;
            return (
              <li key={row.key} className="tree-row tree-run" data-testid="tree-run" data-lane={row.lane}>
                <Rails row={row} lanes={graph.lanes} roots={roots} />
                <button
                  type="button"
                  className="btn small ghost tree-run-toggle"
                  onClick={() => setExpanded((set) => new Set([...set, row.node.id]))}
                  aria-label={`Show ${count} more messages`}
                >
                  ⋯ {count} messages
                </button>
              </li>
            );
          }
          const node = row.node;
          return (
            <li
              key={row.key}
              className={`tree-row tree-node role-${node.role}${node.active ? " active" : ""}${row.head ? " head" : ""}`}
              data-testid="tree-node"
              data-lane={row.lane}
              data-root={row.root ? "true" : undefined}
              data-head={row.head ? "true" : undefined}
              aria-current={row.head ? "step" : undefined}
            >
              <Rails row={row} lanes={graph.lanes} roots={roots} />
              <span className="tree-role">{node.role}</span>
              <span className="tree-text" title={node.text}>
                {node.text || "…"}
              </span>
              {row.head ? <span className="tree-head-badge">head</span> : null}
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
                {onRestoreFiles ? (
                  <button
                    type="button"
                    className="btn small"
                    disabled={busy}
                    onClick={() => onRestoreFiles(node.id)}
                    aria-label={`Restore files to ${node.role} message: ${node.text.slice(0, 40)}`}
                  >
                    Files
                  </button>
                ) : null}
                {onTurnDiff && node.role === "user" ? (
                  <button
                    type="button"
                    className="btn small"
                    onClick={() => onTurnDiff(node.id)}
                    aria-label={`Changes of the turn: ${node.text.slice(0, 40)}`}
                  >
                    Diff
                  </button>
                ) : null}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
