import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Root } from "../src/Root";
import { HostCommands, parseHostCommand } from "../src/rpc/hostCommands";
import { runEvent, type WireRequest } from "./fakes";

afterEach(cleanup);

const hello = { name: "ggd", version: "0.1.0", gg: { protocolVersion: "1.0", capabilities: ["sessions", "runs"] } };

/** Post to the page the way the VS Code webview does: a message event on its window. */
function fromHost(data: unknown): void {
  window.dispatchEvent(new MessageEvent("message", { data }));
}

/**
 * The extension host with ggd behind it (clients/vscode/src/bridge.ts): it answers the page's
 * requests; `s2` has a run the extension started (r1, three events so far).
 */
function extensionHost() {
  const requests: WireRequest[] = [];
  const listed = [{ id: "s1", name: "older", updatedAt: 1, messageCount: 0, preview: "" }];
  const answer = (req: WireRequest): unknown => {
    const params = (req.params ?? {}) as Record<string, unknown>;
    switch (req.method) {
      case "gg/system.info":
        return { protocolVersion: "1.0", serverVersion: "x", capabilities: ["sessions", "runs"], models: [] };
      case "gg/workspace.list":
        return { workspaces: [] };
      case "gg/session.list":
        return { sessions: listed };
      case "gg/session.open":
        return {
          sessionId: params.sessionId,
          name: params.sessionId === "s2" ? "from the extension" : "older",
          model: "m",
          messages: [{ id: "u1", role: "user", content: "Explain this file" }],
          tree: [],
          activeRunId: params.sessionId === "s2" ? "r1" : null,
        };
      case "gg/run.get":
        return {
          id: "r1",
          sessionId: "s2",
          status: "running",
          startedAt: 1,
          firstSequence: 1,
          lastSequence: 3,
          pendingApprovals: [],
        };
      default:
        return {};
    }
  };
  const target = {
    postMessage(envelope: unknown) {
      const { gg, message } = envelope as { gg: string; message?: WireRequest };
      if (gg !== "rpc" || !message) return;
      requests.push(message);
      if (message.id !== undefined) {
        const reply = { jsonrpc: "2.0", id: message.id, result: answer(message) };
        queueMicrotask(() => fromHost({ gg: "rpc", message: reply }));
      }
    },
  };
  const sent = (method: string) => requests.filter((r) => r.method === method).map((r) => r.params);
  // The extension's own connection is subscribed to r1 (run.start), and the bridge forwards its events.
  const runEventToPage = (sequence: number, type: string, fields: Record<string, unknown> = {}) =>
    fromHost({
      gg: "rpc",
      message: { jsonrpc: "2.0", method: "gg/run.event", params: runEvent(sequence, type, fields, "r1", "s2") },
    });
  return { target, sent, listed, runEventToPage };
}

describe("host commands", () => {
  it("parses only well-formed openSession envelopes", () => {
    expect(parseHostCommand({ gg: "host", command: "openSession", sessionId: "s2" })).toEqual({
      command: "openSession",
      sessionId: "s2",
    });
    expect(parseHostCommand({ gg: "host", command: "openSession" })).toBeNull();
    expect(parseHostCommand({ gg: "host", command: "deleteEverything", sessionId: "s2" })).toBeNull();
    expect(parseHostCommand({ gg: "rpc", message: {} })).toBeNull();
    expect(parseHostCommand("openSession")).toBeNull();
  });

  it("keeps a command posted before anyone listens and hands the latest to each listener", () => {
    const commands = new HostCommands(window);
    fromHost({ gg: "host", command: "openSession", sessionId: "a" });
    fromHost({ gg: "host", command: "openSession", sessionId: "b" });
    const seen: string[] = [];
    const stop = commands.listen((c) => seen.push(c.sessionId));
    fromHost({ gg: "host", command: "openSession", sessionId: "c" });
    stop();
    fromHost({ gg: "host", command: "openSession", sessionId: "d" });
    expect(seen).toEqual(["b", "c"]);
    commands.dispose();
  });
});

describe("openSession from the VS Code extension", () => {
  it("opens the session and streams the run the extension started on it", async () => {
    const host = extensionHost();
    // The host speaks before React mounted: main.tsx listens from the start.
    const commands = new HostCommands(window);
    fromHost({ gg: "host", command: "openSession", sessionId: "s2" });
    render(<Root initialToken={null} host={host.target} commands={commands} />);
    // Events the extension's subscription got before the page opened the session are not shown twice.
    act(() => host.runEventToPage(1, "run_started"));
    act(() => fromHost({ gg: "state", state: { status: "open", attempt: 0, server: hello } }));

    await screen.findByRole("heading", { name: "from the extension" });
    expect(host.sent("gg/session.open")).toEqual([{ sessionId: "s2" }]);
    // Attached to the live run: its status, then a subscription after the last sequence it has.
    await waitFor(() => expect(host.sent("gg/run.subscribe")).toEqual([{ runId: "r1", afterSequence: 3 }]));
    expect(host.sent("gg/run.get")).toEqual([{ runId: "r1" }]);
    expect(host.sent("gg/session.subscribe")).toContainEqual({ sessionId: "s2" });
    expect(screen.getByTestId("run-phase").dataset.phase).toBe("running");
    // s2 was not in the first list (the extension just created it): the list is read again.
    await waitFor(() => expect(host.sent("gg/session.list").length).toBeGreaterThanOrEqual(2));

    act(() => {
      host.runEventToPage(3, "text_delta", { text: "stale " });
      host.runEventToPage(4, "text_delta", { text: "It parses " });
      host.runEventToPage(5, "text_delta", { text: "the config." });
    });
    expect(screen.getByTestId("msg-assistant").textContent).toContain("It parses the config.");
    expect(screen.getByTestId("msg-assistant").textContent).not.toContain("stale");

    act(() => host.runEventToPage(6, "run_completed", {}));
    await waitFor(() => expect(screen.getByTestId("run-phase").dataset.phase).toBe("completed"));
    commands.dispose();
  });

  it("does not reopen the session already shown, and switches to another one", async () => {
    const host = extensionHost();
    const commands = new HostCommands(window);
    render(<Root initialToken={null} host={host.target} commands={commands} />);
    act(() => fromHost({ gg: "state", state: { status: "open", attempt: 0, server: hello } }));
    act(() => fromHost({ gg: "host", command: "openSession", sessionId: "s1" }));
    await screen.findByRole("heading", { name: "older" });
    act(() => fromHost({ gg: "host", command: "openSession", sessionId: "s1" }));
    act(() => fromHost({ gg: "host", command: "openSession", sessionId: "s2" }));
    await screen.findByRole("heading", { name: "from the extension" });
    expect(host.sent("gg/session.open")).toEqual([{ sessionId: "s1" }, { sessionId: "s2" }]);
    commands.dispose();
  });

  it("closes the narrow layout's session list when the host opens a session", async () => {
    const host = extensionHost();
    const commands = new HostCommands(window);
    render(<Root initialToken={null} host={host.target} commands={commands} />);
    act(() => fromHost({ gg: "state", state: { status: "open", attempt: 0, server: hello } }));
    const toggle = screen.getByTestId("list-toggle");
    const list = screen.getByRole("navigation", { name: "Sessions" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(toggle.getAttribute("aria-controls")).toBe(list.id);
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    expect(list.parentElement?.classList.contains("list-open")).toBe(true);
    // Escape inside the list closes it and returns focus to the toggle.
    fireEvent.keyDown(list, { key: "Escape" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(toggle);
    fireEvent.click(toggle);
    act(() => fromHost({ gg: "host", command: "openSession", sessionId: "s2" }));
    await screen.findByRole("heading", { name: "from the extension" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    commands.dispose();
  });
});
