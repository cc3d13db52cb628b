import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type KbCaller, KbPanel } from "../src/components/KbPanel";

afterEach(cleanup);

const LIST = {
  bases: [
    {
      name: "docs",
      root: "/d",
      files: 18,
      chunks: 248,
      vectors: 248,
      model: "all-MiniLM-L6-v2 (local)",
      dim: 384,
      updated: "",
    },
    { name: "code", root: "/c", files: 3, chunks: 9, vectors: 0, model: "", dim: 0, updated: "" },
  ],
  embeddings: "embeddings from the offline all-MiniLM-L6-v2",
  model: "all-MiniLM-L6-v2 (local)",
};

function fake(search: (params: unknown) => Promise<unknown>) {
  const call = vi.fn((method: string, params: unknown) =>
    method === "gg/kb.list" ? Promise.resolve(LIST) : search(params),
  );
  return { call, client: { call } as unknown as KbCaller };
}

describe("KbPanel", () => {
  it("lists the bases and searches the chosen one", async () => {
    const { call, client } = fake(() =>
      Promise.resolve({
        name: "code",
        mode: "bm25",
        hits: [
          {
            path: "a/tracing.md",
            heading: "Tracing > Start",
            startLine: 5,
            endLine: 9,
            snippet: "tracing-start",
            score: 1,
          },
        ],
      }),
    );
    render(<KbPanel client={client} />);
    expect(await screen.findByRole("cell", { name: "docs" })).toBeTruthy();
    expect(screen.getByText("BM25 only")).toBeTruthy();
    fireEvent.change(screen.getByRole("combobox"), { target: { value: "code" } });
    fireEvent.change(screen.getByLabelText("Search the knowledge base"), { target: { value: "start a trace" } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    expect(await screen.findByText("a/tracing.md:5-9")).toBeTruthy();
    expect(screen.getByText("tracing-start")).toBeTruthy();
    expect(call).toHaveBeenLastCalledWith("gg/kb.search", { query: "start a trace", name: "code", topK: 8 });
  });

  it("shows the daemon's error (a model mismatch) instead of results", async () => {
    const { client } = fake(() => Promise.reject(new Error("knowledge base 'docs' was built with model-a")));
    render(<KbPanel client={client} />);
    fireEvent.change(await screen.findByLabelText("Search the knowledge base"), { target: { value: "x" } });
    fireEvent.click(screen.getByRole("button", { name: "Search" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("model-a"));
  });
});
