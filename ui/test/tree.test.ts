import { describe, expect, it } from "vitest";
import { treeGraph } from "../src/state/treeGraph";
import type { TreeItem } from "../src/protocol";

function node(id: string, parentId: string | null, active = false): TreeItem {
  return { id, parentId, depth: 0, role: "user", text: id, active };
}

const byKey = (rows: ReturnType<typeof treeGraph>["rows"]) => Object.fromEntries(rows.map((r) => [r.key, r]));

describe("treeGraph", () => {
  it("draws a branch where it splits, its rail passing the first branch, and one head", () => {
    // a - b - c - d        (old branch)
    //      \- e - f        (active branch: a b e f; head f)
    const tree = [
      node("a", null, true),
      node("b", "a", true),
      node("c", "b"),
      node("d", "c"),
      node("e", "b", true),
      node("f", "e", true),
    ];
    const { rows, lanes } = treeGraph(tree);
    expect(rows.map((r) => r.key)).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(lanes).toBe(2);
    const at = byKey(rows);
    expect(at.b.branches).toEqual([1]);
    expect(at.b.lane).toBe(0);
    // The new lane's rail runs beside c and d down to e, which sits on it.
    expect(at.c.through).toEqual([1]);
    expect(at.d.through).toEqual([1]);
    expect(at.e.lane).toBe(1);
    expect(at.e.top).toBe(true);
    expect(at.d.bottom).toBe(false);
    expect(rows.filter((r) => r.head).map((r) => r.key)).toEqual(["f"]);
    expect(at.a.top).toBe(false);
  });

  it("folds a linear run into one row, keeping the head, and expands it on demand", () => {
    const tree = ["n0", "n1", "n2", "n3", "n4", "n5"].map((id, i) => node(id, i ? `n${i - 1}` : null, true));
    const folded = treeGraph(tree);
    expect(folded.rows.map((r) => [r.key, r.kind])).toEqual([
      ["n0", "node"],
      ["run-n1", "run"],
      ["n5", "node"],
    ]);
    expect(folded.rows[1].hidden.map((n) => n.id)).toEqual(["n1", "n2", "n3", "n4"]);
    expect(folded.rows[2].head).toBe(true);
    const open = treeGraph(tree, new Set(["n1"]));
    expect(open.rows.map((r) => r.key)).toEqual(["n0", "n1", "n2", "n3", "n4", "n5"]);
  });

  it("never folds the head or a run shorter than three", () => {
    // Head in the middle of a chain (checked out earlier): the run splits around it.
    const tree = ["n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"].map((id, i) =>
      node(id, i ? `n${i - 1}` : null, i <= 2),
    );
    const { rows } = treeGraph(tree);
    expect(rows.map((r) => r.key)).toEqual(["n0", "n1", "n2", "run-n3", "n7"]);
    expect(rows[2].head).toBe(true);
  });

  it("copes with a very long chain given children before parents", () => {
    const tree = Array.from({ length: 20_000 }, (_, i) => node(`n${i}`, i ? `n${i - 1}` : null)).reverse();
    const { rows, lanes } = treeGraph(tree);
    expect(rows.map((r) => r.key)).toEqual(["n0", "run-n1", "n19999"]);
    expect(lanes).toBe(1);
  });

  it("gives a second root (a checkout before the first message) its own row without a line in", () => {
    const tree = [node("a", null), node("b", "a"), node("z", null, true)];
    const at = byKey(treeGraph(tree).rows);
    expect(at.z.top).toBe(false);
    expect(at.z.head).toBe(true);
  });
});

describe("treeGraph with several roots", () => {
  it("draws each root in a lane of its own, right of every lane an earlier root used", () => {
    // a - b - c          (first history, branching at a)
    //  \- d
    // z - y              (a second root: a checkout before the first message, then a new prompt)
    //  \- w
    const tree = [
      node("a", null),
      node("b", "a"),
      node("c", "b"),
      node("d", "a"),
      node("z", null, true),
      node("y", "z", true),
      node("w", "z"),
    ];
    const { rows, lanes } = treeGraph(tree, new Set(), 99);
    const at = byKey(rows);
    expect(rows.map((r) => r.key)).toEqual(["a", "b", "c", "d", "z", "y", "w"]);
    expect([at.a.lane, at.b.lane, at.c.lane, at.d.lane]).toEqual([0, 0, 0, 1]);
    // Not lane 0 again (that read as one straight line): z starts right of the first history.
    expect(at.z.lane).toBe(2);
    expect(at.y.lane).toBe(2);
    expect(at.w.lane).toBe(3); // its branches stay right of it too
    expect(at.z.through).toEqual([]); // no rail of the first history passes into it
    expect(lanes).toBe(4);
    expect(rows.filter((r) => r.root).map((r) => r.key)).toEqual(["a", "z"]);
  });

  it("puts two plain chains side by side", () => {
    const tree = [node("a", null), node("b", "a"), node("z", null, true), node("y", "z", true)];
    const { rows, lanes } = treeGraph(tree);
    expect(rows.map((r) => [r.key, r.lane])).toEqual([
      ["a", 0],
      ["b", 0],
      ["z", 1],
      ["y", 1],
    ]);
    expect(lanes).toBe(2);
  });
});
