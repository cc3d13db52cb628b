import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApprovalCard } from "../src/components/ApprovalCard";
import { Composer } from "../src/components/Composer";
import { Markdown } from "../src/components/Markdown";
import { SessionList } from "../src/components/SessionList";
import { TodoPanel } from "../src/components/TodoPanel";

afterEach(cleanup);

function composer(busy = false) {
  const props = { onSend: vi.fn(), onSteer: vi.fn(), onStop: vi.fn() };
  render(<Composer busy={busy} disabled={false} draft={null} queued={[]} {...props} />);
  return { ...props, box: screen.getByRole("textbox") as HTMLTextAreaElement };
}

describe("Composer", () => {
  it("sends on Enter, not on Shift+Enter", () => {
    const { onSend, box } = composer();
    fireEvent.change(box, { target: { value: "hello" } });
    fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("hello");
    expect(box.value).toBe("");
  });

  it("ignores Enter while an IME is composing", () => {
    const { onSend, box } = composer();
    fireEvent.change(box, { target: { value: "にほん" } });
    fireEvent.keyDown(box, { key: "Enter", isComposing: true });
    fireEvent.keyDown(box, { key: "Enter", keyCode: 229 });
    expect(onSend).not.toHaveBeenCalled();
  });

  it("steers, queues a follow-up and stops while busy", () => {
    const { onSend, onSteer, onStop, box } = composer(true);
    fireEvent.change(box, { target: { value: "use tabs" } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSteer).toHaveBeenLastCalledWith("use tabs", false);
    fireEvent.change(box, { target: { value: "then run tests" } });
    fireEvent.click(screen.getByRole("button", { name: "Queue follow-up" }));
    expect(onSteer).toHaveBeenLastCalledWith("then run tests", true);
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(onStop).toHaveBeenCalledOnce();
    expect(onSend).not.toHaveBeenCalled();
  });

  it("only offers Stop for a busy run when the daemon cannot steer", () => {
    const props = { onSend: vi.fn(), onSteer: vi.fn(), onStop: vi.fn() };
    render(<Composer busy disabled={false} canSteer={false} draft={null} queued={[]} {...props} />);
    expect(screen.queryByRole("button", { name: "Steer" })).toBeNull();
    fireEvent.change(screen.getByRole("textbox"), { target: { value: "x" } });
    fireEvent.keyDown(screen.getByRole("textbox"), { key: "Enter" });
    expect(props.onSteer).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Stop" })).toBeTruthy();
  });

  it("takes a draft", () => {
    const props = { onSend: vi.fn(), onSteer: vi.fn(), onStop: vi.fn() };
    render(<Composer busy={false} disabled={false} draft={{ text: "edit me", serial: 1 }} queued={[]} {...props} />);
    expect((screen.getByRole("textbox") as HTMLTextAreaElement).value).toBe("edit me");
  });
});

describe("ApprovalCard", () => {
  const approval = {
    id: "a1",
    toolName: "bash",
    summary: "rm -rf build",
    risk: "dangerous" as const,
    riskReason: "deletes files",
  };

  it("answers with a / s / d when focused, and with buttons", () => {
    const onAnswer = vi.fn();
    render(<ApprovalCard approval={approval} onAnswer={onAnswer} />);
    const card = screen.getByTestId("approval-card");
    expect(card.textContent).toContain("deletes files");
    expect(card.textContent).toContain("dangerous");
    fireEvent.keyDown(card, { key: "a" });
    fireEvent.keyDown(card, { key: "s" });
    fireEvent.keyDown(card, { key: "d" });
    fireEvent.keyDown(card, { key: "x" });
    expect(onAnswer.mock.calls).toEqual([
      [true, "once"],
      [true, "session"],
      [false, "once"],
    ]);
    fireEvent.click(screen.getByRole("button", { name: /Deny/ }));
    expect(onAnswer).toHaveBeenLastCalledWith(false, "once");
  });

  it("shows a diff in details as a diff", () => {
    render(
      <ApprovalCard
        approval={{ ...approval, details: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new" }}
        onAnswer={vi.fn()}
      />,
    );
    expect(screen.getByLabelText("Diff").querySelector(".diff-add")?.textContent).toContain("+new");
  });
});

describe("Markdown", () => {
  it("renders markdown but never raw HTML or script links", () => {
    const { container } = render(
      <Markdown text={'**bold** <img src=x onerror="alert(1)"> <script>alert(2)</script> [x](javascript:alert(3))'} />,
    );
    expect(container.querySelector("strong")?.textContent).toBe("bold");
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("[onerror]")).toBeNull();
    // Raw HTML stays visible as text.
    expect(container.textContent).toContain("<script>alert(2)</script>");
    const link = container.querySelector("a");
    expect(link?.getAttribute("href") ?? "").not.toContain("javascript");
  });
});

describe("SessionList", () => {
  it("lists newest first, filters by search and shows approval badges", () => {
    const sessions = [
      { id: "s1", name: "old", updatedAt: 1, messageCount: 1, preview: "alpha" },
      { id: "s2", name: "new", updatedAt: 2, messageCount: 1, preview: "beta" },
    ];
    const onOpen = vi.fn();
    render(<SessionList sessions={sessions} currentId="s2" badges={{ s1: 2 }} onOpen={onOpen} onNew={vi.fn()} />);
    const rows = screen.getAllByTestId("session-row");
    expect(rows.map((r) => r.getAttribute("data-session-id"))).toEqual(["s2", "s1"]);
    expect(screen.getByTestId("approval-badge").textContent).toBe("2");
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "alp" } });
    expect(screen.getAllByTestId("session-row").map((r) => r.getAttribute("data-session-id"))).toEqual(["s1"]);
    fireEvent.click(screen.getAllByTestId("session-row")[0]);
    expect(onOpen).toHaveBeenCalledWith("s1");
  });
});

describe("TodoPanel and the mode picker", () => {
  it("draws the list with its count and statuses, and nothing when empty", () => {
    const { container, rerender } = render(
      <TodoPanel
        todos={[
          { content: "read", status: "completed" },
          { content: "fix", status: "in_progress" },
          { content: "test", status: "pending" },
        ]}
      />,
    );
    expect(screen.getByTestId("todo-count").textContent).toBe("1/3 done");
    const items = [...container.querySelectorAll("li")].map((li) => li.getAttribute("data-status"));
    expect(items).toEqual(["completed", "in_progress", "pending"]);
    fireEvent.click(screen.getByRole("button", { name: /Todo list/ }));
    expect(container.querySelectorAll("li")).toHaveLength(0); // collapsed
    rerender(<TodoPanel todos={[]} />);
    expect(screen.queryByTestId("todo-panel")).toBeNull();
  });

  it("offers plan mode and reports the choice", () => {
    const onMode = vi.fn();
    const props = { onSend: vi.fn(), onSteer: vi.fn(), onStop: vi.fn() };
    render(<Composer busy={false} disabled={false} draft={null} queued={[]} mode="auto" onMode={onMode} {...props} />);
    fireEvent.change(screen.getByLabelText("Approval mode"), { target: { value: "plan" } });
    expect(onMode).toHaveBeenCalledWith("plan");
  });
});
