import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApprovalCard } from "../src/components/ApprovalCard";
import { loadHighlighter } from "../src/components/CodeBlock";
import { Composer } from "../src/components/Composer";
import { Markdown } from "../src/components/Markdown";
import { ToolCard } from "../src/components/ToolCard";
import { TreeView } from "../src/components/TreeView";
import type { Snapshot, TreeItem } from "../src/protocol";
import { GgClient } from "../src/rpc/client";
import { WebSocketTransport } from "../src/rpc/websocket";
import { conversationReducer, initialConversation } from "../src/state/conversation";
import { SessionController } from "../src/state/session";
import { DaemonError, flush, runEvent, socketFactory, type WireRequest } from "./fakes";

afterEach(cleanup);

function controller(answer: (req: WireRequest) => unknown) {
  const factory = socketFactory();
  const client = new GgClient(new WebSocketTransport({ url: "ws://x/ws", token: "t", createSocket: factory.create }));
  const socket = factory.last();
  socket.responder = answer;
  socket.open();
  socket.acceptInitialize();
  return { socket, session: new SessionController(client) };
}

const snapshot: Snapshot = { sessionId: "s1", name: "n", model: "m", messages: [], tree: [], activeRunId: "r1" };

describe("queued steers and follow-ups", () => {
  it("shows a steer at once and drops it when the model takes it; a failed steer goes away", async () => {
    let refuse = false;
    const { socket, session } = controller((req) => {
      if (req.method === "gg/session.open") return snapshot;
      if (req.method === "gg/run.get")
        return { id: "r1", sessionId: "s1", status: "running", startedAt: 1, firstSequence: 1, lastSequence: 1 };
      if (req.method === "gg/run.steer" && refuse) return new DaemonError(-32004, "No active run.", "run_not_found");
      return {};
    });
    await session.open("s1");
    await flush();
    const steering = session.steer("use tabs", false);
    // Before the daemon answered: the pill is there.
    expect(session.store.get().queued.map((q) => [q.text, q.followUp])).toEqual([["use tabs", false]]);
    await steering;
    await session.steer("then run the tests", true);
    expect(session.store.get().queued.map((q) => q.text)).toEqual(["use tabs", "then run the tests"]);
    socket.receive({
      jsonrpc: "2.0",
      method: "gg/run.event",
      params: runEvent(2, "user_message", { text: "use tabs" }),
    });
    expect(session.store.get().queued.map((q) => q.text)).toEqual(["then run the tests"]);
    socket.receive({
      jsonrpc: "2.0",
      method: "gg/run.event",
      params: runEvent(3, "user_message", { text: "then run the tests" }),
    });
    expect(session.store.get().queued).toEqual([]);
    refuse = true;
    await session.steer("too late", false);
    expect(session.store.get().queued).toEqual([]);
    expect(session.store.get().error).toBe("No active run.");
  });

  it("draws steers and follow-ups as pills above the composer", () => {
    render(
      <Composer
        busy
        disabled={false}
        draft={null}
        queued={[
          { id: 1, text: "use tabs", followUp: false },
          { id: 2, text: "then summarise", followUp: true },
        ]}
        onSend={vi.fn()}
        onSteer={vi.fn()}
        onStop={vi.fn()}
      />,
    );
    const pills = screen.getByLabelText("Queued messages").querySelectorAll("li");
    expect([...pills].map((li) => li.textContent)).toEqual(["Steer queueduse tabs", "Follow-up queuedthen summarise"]);
  });

  it("says why the composer is disabled", () => {
    render(
      <Composer
        busy={false}
        disabled
        disabledReason="Disconnected from gg: waiting to reconnect…"
        draft={null}
        queued={[]}
        onSend={vi.fn()}
        onSteer={vi.fn()}
        onStop={vi.fn()}
      />,
    );
    const box = screen.getByRole("textbox") as HTMLTextAreaElement;
    expect(box.disabled).toBe(true);
    expect(box.placeholder).toBe("Disconnected from gg: waiting to reconnect…");
  });
});

describe("fork and clone notices", () => {
  it("keeps the daemon's notice (with the new session id) apart from errors", async () => {
    const fork = { ...snapshot, sessionId: "s2", name: "n (fork)", activeRunId: null, action: "fork" };
    const { session } = controller((req) => {
      if (req.method === "gg/session.open") return { ...snapshot, activeRunId: null };
      if (req.method === "gg/session.action") return { ...fork, notice: "Forked into “n (fork)” (s2)" };
      return {};
    });
    await session.open("s1");
    await session.action("fork");
    const view = session.store.get();
    expect(view.snapshot?.sessionId).toBe("s2");
    expect(view.notice).toBe("Forked into “n (fork)” (s2)");
    expect(view.error).toBeNull();
  });
});

describe("tool and approval cards", () => {
  it("names the tool once", () => {
    render(
      <ToolCard
        item={{
          kind: "tool",
          key: "t",
          toolCallId: "c1",
          toolName: "read",
          summary: "read README.md",
          status: "done",
        }}
      />,
    );
    expect(screen.getByTestId("tool-card").querySelector(".tool-head")?.textContent).toBe("readREADME.mddone");
  });

  it("shows a bash command once", () => {
    render(
      <ApprovalCard
        approval={{
          id: "a1",
          toolName: "bash",
          summary: "bash rm -rf build",
          details: "rm -rf build",
          risk: "normal",
          riskReason: "deletes files",
        }}
        onAnswer={vi.fn()}
      />,
    );
    const text = screen.getByTestId("approval-card").textContent ?? "";
    expect(text.split("rm -rf build")).toHaveLength(2);
    expect(text.split("bash")).toHaveLength(2);
  });

  it("keeps the path of a write in the title", () => {
    render(
      <ApprovalCard
        approval={{ id: "a2", toolName: "write", summary: "write a.txt (overwrite)", details: "--- a/a.txt\n" }}
        onAnswer={vi.fn()}
      />,
    );
    expect(screen.getByText("a.txt (overwrite)", { exact: false })).toBeTruthy();
  });

  it("marks a tool call without a result as not run unless the run is still going", () => {
    const messages: Snapshot["messages"] = [
      { id: "u1", role: "user", content: "go", timestamp: 1 },
      {
        id: "a1",
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "bash", arguments: { command: "sleep 99" } }],
        timestamp: 2,
      },
    ];
    const forked = conversationReducer(initialConversation, {
      type: "snapshot",
      snapshot: { sessionId: "s2", name: "", model: "m", messages, tree: [] },
    });
    expect(forked.items[1]).toMatchObject({ kind: "tool", status: "not_run" });
    const live = conversationReducer(initialConversation, {
      type: "snapshot",
      snapshot: { sessionId: "s1", name: "", model: "m", messages, tree: [], activeRunId: "r1" },
    });
    expect(live.items[1]).toMatchObject({ kind: "tool", status: "running" });
    render(<ToolCard item={forked.items[1] as Extract<(typeof forked.items)[1], { kind: "tool" }>} />);
    expect(screen.getByTestId("tool-card").dataset.status).toBe("not run");
    expect(screen.getByTestId("tool-card").querySelector(".spinner")).toBeNull();
  });
});

describe("Markdown code blocks and tables", () => {
  it("labels, highlights and copies a fenced block", async () => {
    await loadHighlighter();
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(<Markdown text={"```python\ndef add(a, b):\n    return a + b\n```"} />);
    const block = screen.getByTestId("code-block");
    expect(block.querySelector(".code-lang")?.textContent).toBe("python");
    await waitFor(() => expect(block.querySelector(".hljs-keyword")?.textContent).toBe("def"));
    expect(block.querySelector("code")?.textContent).toBe("def add(a, b):\n    return a + b");
    fireEvent.click(screen.getByRole("button", { name: "Copy python code" }));
    expect(writeText).toHaveBeenCalledWith("def add(a, b):\n    return a + b");
    await screen.findByRole("button", { name: "Copy python code" });
    await waitFor(() => expect(screen.getByRole("button", { name: "Copy python code" }).textContent).toBe("Copied"));
  });

  it("shows an unknown language as plain text and keeps inline code inline", () => {
    render(<Markdown text={"Run `make`:\n\n```brainfuck\n+[-]\n```"} />);
    const block = screen.getByTestId("code-block");
    expect(block.dataset.language).toBe("brainfuck");
    expect(block.querySelector("code")?.children).toHaveLength(0);
    expect(screen.getAllByTestId("code-block")).toHaveLength(1);
  });

  it("wraps tables so they scroll and get borders", () => {
    const { container } = render(<Markdown text={"| a | b |\n|---|---|\n| 1 | 2 |"} />);
    expect(container.querySelector(".md-table > table td")?.textContent).toBe("1");
  });
});

describe("TreeView", () => {
  const item = (id: string, parentId: string | null, active: boolean): TreeItem => ({
    id,
    parentId,
    depth: 0,
    role: "user",
    text: `text ${id}`,
    active,
  });

  it("draws the fork on its own lane, marks the head once and expands a folded run", () => {
    const tree = [
      item("a", null, true),
      item("b", "a", true),
      item("c", "b", false),
      item("d", "c", false),
      item("e", "d", false),
      item("f", "e", false),
      item("h", "f", false),
      item("g", "b", true),
    ];
    render(<TreeView tree={tree} busy={false} onCheckout={vi.fn()} onFork={vi.fn()} onClone={vi.fn()} />);
    const nodes = screen.getAllByTestId("tree-node");
    expect(nodes.map((n) => n.dataset.lane)).toEqual(["0", "0", "0", "0", "1"]);
    expect(nodes.filter((n) => n.dataset.head).map((n) => n.textContent?.includes("text g"))).toEqual([true]);
    expect(screen.getAllByText("head")).toHaveLength(1);
    expect(screen.queryByText("active")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Show 3 more messages" }));
    expect(screen.getAllByTestId("tree-node")).toHaveLength(8);
    expect(screen.queryByTestId("tree-run")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Fold linear runs" }));
    expect(screen.getAllByTestId("tree-node")).toHaveLength(5);
    expect(screen.queryByRole("button", { name: "Fold linear runs" })).toBeNull();
  });
});
