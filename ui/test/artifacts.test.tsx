import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ARTIFACT_CSP, HtmlFrame, withCsp } from "../src/artifacts/HtmlFrame";
import { lineDiff } from "../src/artifacts/lineDiff";

afterEach(cleanup);

describe("lineDiff", () => {
  it("marks added and removed lines with context", () => {
    const diff = lineDiff("a\nb\nc\n", "a\nB\nc\nd\n", "v1", "v2");
    expect(diff.split("\n")).toEqual(["--- v1", "+++ v2", " a", "-b", "+B", " c", "+d", ""]);
  });

  it("says when nothing changed", () => {
    expect(lineDiff("same\n", "same\n", "v1", "v2")).toContain("(no change)");
  });

  it("stays bounded on huge inputs", () => {
    const a = Array.from({ length: 5000 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: 5000 }, (_, i) => `b${i}`).join("\n");
    const lines = lineDiff(a, b, "v1", "v2").split("\n");
    expect(lines.filter((l) => l.startsWith("-")).length).toBe(5001); // 5000 + the --- header
  });
});

describe("HtmlFrame", () => {
  it("renders HTML in an iframe with an empty sandbox and a CSP that loads nothing", () => {
    render(<HtmlFrame html="<script>parent.x=1</script><p>hi</p>" title="Page" />);
    const frame = screen.getByTitle("Page") as HTMLIFrameElement;
    expect(frame.getAttribute("sandbox")).toBe("");
    expect(frame.getAttribute("srcdoc")?.startsWith(withCsp(""))).toBe(true);
    expect(ARTIFACT_CSP).toContain("default-src 'none'");
    expect(ARTIFACT_CSP).not.toContain("script-src");
  });
});
