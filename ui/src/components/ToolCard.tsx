import type { ConvItem } from "../state/conversation";
import { Diff } from "./Diff";

type ToolItem = Extract<ConvItem, { kind: "tool" }>;

const STATUS_LABEL: Record<ToolItem["status"], string> = { running: "running", done: "done", error: "error" };

/** One tool call: name, summary, state, and its output or diff on demand. */
export function ToolCard({ item }: { item: ToolItem }) {
  const label = item.denied ? "denied" : STATUS_LABEL[item.status];
  return (
    <div
      className={`tool-card tool-${item.status}${item.denied ? " tool-denied" : ""}`}
      data-testid="tool-card"
      data-status={label}
    >
      <div className="tool-head">
        <span className="tool-name">{item.toolName}</span>
        <span className="tool-summary">{item.summary}</span>
        <span className={`tool-status status-${label}`} aria-label={`Tool ${label}`}>
          {item.status === "running" ? <span className="spinner" aria-hidden="true" /> : null}
          {label}
        </span>
      </div>
      {item.diff ? <Diff diff={item.diff} /> : null}
      {item.output ? (
        <details className="tool-output">
          <summary>Output</summary>
          <pre>{item.output}</pre>
        </details>
      ) : null}
    </div>
  );
}
