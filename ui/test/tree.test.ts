import { describe, expect, it } from "vitest";
import { branchIndents } from "../src/components/TreeView";
import type { TreeItem } from "../src/protocol";

function node(id: string, parentId: string | null): TreeItem {
  return { id, parentId, depth: 0, role: "user", text: id, active: false };
}

describe("branchIndents", () => {
  it("keeps a linear chat flat and indents each branch", () => {
    // a - b - c        (main line)
    //      \- d - e    (a branch at b)
    const tree = [node("a", null), node("b", "a"), node("c", "b"), node("d", "b"), node("e", "d")];
    const indents = branchIndents(tree);
    expect(Object.fromEntries(indents)).toEqual({ a: 0, b: 0, c: 1, d: 1, e: 1 });
  });

  it("copes with a very long chain", () => {
    const tree = Array.from({ length: 20_000 }, (_, i) => node(`n${i}`, i ? `n${i - 1}` : null)).reverse();
    expect(branchIndents(tree).get("n19999")).toBe(0);
  });
});
