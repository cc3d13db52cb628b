import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KbPanel, askPrompt, eta, progressLine } from "../src/components/KbPanel";
import type { KbProgress } from "../src/protocol";

afterEach(cleanup);

describe("KB progress", () => {
  it("gives an ETA from the rate so far, only once there is one", () => {
    expect(eta(0, 100, 5000)).toBeNull();
    expect(eta(50, 100, 500)).toBeNull();
    expect(eta(25, 100, 10_000)).toBe("about 30 s left");
    expect(eta(10, 1000, 10_000)).toBe("about 17 min left");
  });

  it("says what each phase is doing", () => {
    const p = (phase: KbProgress["phase"], extra: Partial<KbProgress> = {}): KbProgress => ({
      name: "docs",
      phase,
      ...extra,
    });
    expect(progressLine(p("scan", { files: 3, filesTotal: 9 }), 0)).toBe("Reading files: 3 of 9");
    expect(progressLine(p("embed", { embedded: 20, embedTotal: 60 }), 10_000)).toBe(
      "Embedding chunks: 20 of 60 · about 20 s left",
    );
  });

  it("makes a prompt naming the base, file and lines of a hit", () => {
    const hit = { path: "a.md", startLine: 3, endLine: 9, heading: "Setup", snippet: "", score: 1 };
    expect(askPrompt("docs", hit as never)).toBe('In the knowledge base "docs", a.md lines 3-9 ("Setup"): ');
  });
});

describe("KbPanel", () => {
  it("offers indexing before any base exists and shows progress while it runs", async () => {
    let progress: ((p: KbProgress) => void) | null = null;
    let finish: (value: unknown) => void = () => undefined;
    const call = vi.fn((method: string) => {
      if (method === "gg/kb.list") return Promise.resolve({ bases: [], embeddings: "BM25 only", model: "" });
      return new Promise((resolve) => (finish = resolve));
    });
    render(
      <KbPanel
        client={{ call } as never}
        progress={(listener) => {
          progress = listener;
          return () => undefined;
        }}
      />,
    );
    await screen.findByText(/No knowledge base yet/);
    fireEvent.change(screen.getByLabelText("Folder to index"), { target: { value: "docs" } });
    fireEvent.click(screen.getByRole("button", { name: "Index" }));
    expect(call).toHaveBeenCalledWith("gg/kb.index", { path: "docs" });
    progress!({ name: "docs", phase: "scan", files: 1, filesTotal: 4 });
    await screen.findByText("Reading files: 1 of 4");
    finish({
      name: "docs",
      files: 4,
      changed: 4,
      unchanged: 0,
      deleted: 0,
      chunks: 9,
      embedded: 0,
      skipped: {},
      model: "",
      seconds: 0.5,
    });
    await waitFor(() => expect(screen.getByText(/Indexed 4 files into docs/)).toBeTruthy());
  });
});
