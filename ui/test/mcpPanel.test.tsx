import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { McpPanel } from "../src/components/McpPanel";
import type { McpListResult } from "../src/protocol";

afterEach(cleanup);

const LIST: McpListResult = {
  servers: [
    { name: "time", origin: "home", transport: "stdio", state: "connected", tools: ["get_current_time"] },
    {
      name: "hang",
      origin: "home",
      transport: "stdio",
      state: "failed",
      tools: [],
      lastError: "did not start and list its tools within 2 s",
    },
    { name: "docs", origin: "workspace", transport: "stdio", state: "untrusted", tools: [] },
  ],
  workspaceFile: "untrusted",
};

describe("McpPanel", () => {
  it("shows servers, states, tools, errors and the trust hint", async () => {
    const api = { list: vi.fn().mockResolvedValue(LIST), test: vi.fn() };
    render(<McpPanel api={api} />);
    expect(await screen.findByText("get_current_time", { exact: false })).toBeTruthy();
    expect(screen.getByText("did not start and list its tools within 2 s")).toBeTruthy();
    expect(screen.getByText(/gg mcp trust/)).toBeTruthy();
    // An untrusted server cannot be tested from here.
    expect(screen.getAllByRole("button", { name: "Test" })).toHaveLength(2);
  });

  it("tests a server and shows the outcome", async () => {
    const api = {
      list: vi.fn().mockResolvedValue(LIST),
      test: vi.fn().mockResolvedValue({ server: "time", ok: true, tools: ["a", "b"], elapsedMs: 812 }),
    };
    render(<McpPanel api={api} />);
    const [first] = await screen.findAllByRole("button", { name: "Test" });
    fireEvent.click(first);
    await waitFor(() => expect(screen.getByText("ok in 812 ms: 2 tools")).toBeTruthy());
    expect(api.test).toHaveBeenCalledWith("time");
  });
});
