import type { TreeItem } from "../protocol";

/** One row of the drawn tree: a message, or a collapsed run of single-child messages. */
export interface GraphRow {
  key: string;
  kind: "node" | "run";
  /** The message (for a run: its first hidden message). */
  node: TreeItem;
  /** The messages a run hides, in order. */
  hidden: TreeItem[];
  /** The rail (column) this row's dot sits on. */
  lane: number;
  /** A line comes down into the dot (it has a parent). */
  top: boolean;
  /** A line goes on down from the dot in the same lane (its first child). */
  bottom: boolean;
  /** Lanes that open here: a branch curves from the dot to each (its other children). */
  branches: number[];
  /** Other rails that pass by this row. */
  through: number[];
  /** The head: the last message of the active branch, marked once. */
  head: boolean;
  /** A root: a message with no parent (a session has several after a checkout before its first). */
  root: boolean;
}

export interface TreeGraph {
  rows: GraphRow[];
  /** How many lanes the widest row needs. */
  lanes: number;
}

/** Runs shorter than this stay expanded: collapsing two rows into one saves little. */
export const MIN_RUN = 3;

/** The head: the active message none of whose children is active (null when nothing is active). */
export function headOf(tree: TreeItem[], children: Map<string, TreeItem[]>): string | null {
  let head: string | null = null;
  for (const node of tree) {
    if (node.active && !(children.get(node.id) ?? []).some((c) => c.active)) head = node.id;
  }
  return head;
}

/**
 * Lay the tree out like `git log --graph`: depth first, the first child continuing its parent's
 * lane, later children opening new lanes whose rails run down to where they start; chains of
 * single-child messages (not the head) fold into one expandable row unless `expanded` names them.
 * Separate roots are separate histories: each starts in a lane right of every lane an earlier root
 * used, and its branches stay right of it, so two roots never read as one straight line.
 */
export function treeGraph(tree: TreeItem[], expanded: ReadonlySet<string> = new Set(), minRun = MIN_RUN): TreeGraph {
  const ids = new Set(tree.map((n) => n.id));
  const children = new Map<string, TreeItem[]>();
  const roots: TreeItem[] = [];
  for (const node of tree) {
    if (node.parentId && ids.has(node.parentId)) {
      const kids = children.get(node.parentId);
      if (kids) kids.push(node);
      else children.set(node.parentId, [node]);
    } else {
      roots.push(node);
    }
  }
  const head = headOf(tree, children);
  const parentKids = (node: TreeItem) => (node.parentId ? (children.get(node.parentId)?.length ?? 0) : 0);

  const lanes: Array<string | null> = [];
  // The first lane the current root's messages may use: lanes left of it belong to earlier roots.
  let base = 0;
  const freeLane = (): number => {
    const at = lanes.indexOf(null, base);
    if (at >= 0) return at;
    lanes.push(null);
    return lanes.length - 1;
  };
  const laid: GraphRow[] = [];
  let width = 0;
  // An explicit stack: a linear chat can be thousands of messages deep.
  const stack: Array<{ node: TreeItem; lane: number | null }> = roots
    .slice()
    .reverse()
    .map((node) => ({ node, lane: null }));
  while (stack.length > 0) {
    const { node, lane: given } = stack.pop() as { node: TreeItem; lane: number | null };
    const root = given === null;
    if (root && laid.length > 0) {
      // A later root: start right of everything drawn so far (depth first, earlier roots are done).
      base = width;
      while (lanes.length < base) lanes.push(null);
    }
    const lane = given ?? freeLane();
    lanes[lane] = node.id;
    const through = lanes.flatMap((owner, i) => (owner !== null && i !== lane ? [i] : []));
    const kids = children.get(node.id) ?? [];
    const branches: number[] = [];
    const pushed: Array<{ node: TreeItem; lane: number }> = [];
    kids.forEach((kid, i) => {
      if (i === 0) {
        lanes[lane] = kid.id;
        pushed.push({ node: kid, lane });
        return;
      }
      const next = freeLane();
      lanes[next] = kid.id;
      branches.push(next);
      pushed.push({ node: kid, lane: next });
    });
    if (kids.length === 0) lanes[lane] = null;
    for (let i = pushed.length - 1; i >= 0; i--) stack.push(pushed[i]);
    width = Math.max(width, lanes.length, lane + 1);
    laid.push({
      key: node.id,
      kind: "node",
      node,
      hidden: [],
      lane,
      top: given !== null || (node.parentId !== null && node.parentId !== undefined && ids.has(node.parentId)),
      bottom: kids.length > 0,
      branches,
      through,
      head: node.id === head,
      root,
    });
  }

  // Fold runs: a message is foldable when it is neither a root, a branch start, a split, a leaf
  // nor the head. Consecutive foldable rows of one chain are consecutive in depth-first order.
  const foldable = (row: GraphRow) =>
    row.top && parentKids(row.node) === 1 && (children.get(row.node.id)?.length ?? 0) === 1 && !row.head;
  const rows: GraphRow[] = [];
  for (let i = 0; i < laid.length;) {
    if (!foldable(laid[i])) {
      rows.push(laid[i]);
      i += 1;
      continue;
    }
    let j = i;
    while (j < laid.length && foldable(laid[j])) j += 1;
    const run = laid.slice(i, j);
    if (run.length >= minRun && !expanded.has(run[0].node.id)) {
      rows.push({ ...run[0], key: `run-${run[0].node.id}`, kind: "run", hidden: run.map((r) => r.node) });
    } else {
      rows.push(...run);
    }
    i = j;
  }
  return { rows, lanes: Math.max(width, 1) };
}
