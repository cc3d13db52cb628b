import type { ConvItem } from "../state/conversation";
import { ChildRunView } from "./ChildRunView";
import { Diff } from "./Diff";
import { MessageImages } from "./ImageThumb";
import { MediaView } from "./MediaView";

type ToolItem = Extract<ConvItem, { kind: "tool" }>;

const STATUS_LABEL: Record<ToolItem["status"], string> = {
  running: "running",
  done: "done",
  error: "error",
  not_run: "not run",
};

/** The summary without the tool name when it starts with it ("read README.md" for read). */
export function toolSummary(toolName: string, summary: string): string {
  if (summary === toolName) return "";
  return summary.startsWith(`${toolName} `) ? summary.slice(toolName.length + 1) : summary;
}

/** One tool call: name, summary, state, and its output or diff on demand. */
export function ToolCard({ item }: { item: ToolItem }) {
  const label = item.denied ? "denied" : STATUS_LABEL[item.status];
  const summary = toolSummary(item.toolName, item.summary);
  return (
    <div
      className={`tool-card tool-${item.status}${item.denied ? " tool-denied" : ""}`}
      data-testid="tool-card"
      data-status={label}
    >
      <div className="tool-head">
        <span className="tool-name">{item.toolName}</span>
        <span className="tool-summary" title={summary}>
          {summary}
        </span>
        <span className={`tool-status status-${label.replace(" ", "-")}`} aria-label={`Tool ${label}`}>
          {item.status === "running" && !item.denied ? <span className="spinner" aria-hidden="true" /> : null}
          {label}
        </span>
      </div>
      {item.child ? <ChildRunView child={item.child} /> : null}
      {item.diff ? <Diff diff={item.diff} /> : null}
      {item.mediaId ? <MediaView mediaId={item.mediaId} /> : null}
      {item.images ? <MessageImages images={item.images} /> : null}
      {item.output ? (
        <details className="tool-output">
          <summary>Output</summary>
          <pre>{item.output}</pre>
        </details>
      ) : null}
    </div>
  );
}
