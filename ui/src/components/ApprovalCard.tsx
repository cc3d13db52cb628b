import { useEffect, useRef, type KeyboardEvent } from "react";
import type { Approval } from "../protocol";
import { Diff } from "./Diff";
import { toolSummary } from "./ToolCard";

export interface ApprovalCardProps {
  approval: Approval;
  onAnswer: (allow: boolean, scope: "once" | "session") => void;
  autoFocus?: boolean;
}

const RISK_LABEL: Record<string, string> = { read_only: "read-only", normal: "normal", dangerous: "dangerous" };

function looksLikeDiff(text: string): boolean {
  return /^(---|\+\+\+|@@) /m.test(text);
}

/**
 * What the title adds after "Approve <tool>": the summary without the tool name it starts with,
 * and nothing when the details begin with it (a bash command is shown once, in the details).
 */
export function approvalSummary(approval: Pick<Approval, "toolName" | "summary" | "details">): string {
  const rest = toolSummary(approval.toolName, approval.summary);
  const core = rest.replace(/ …$/, "").trim();
  if (!core) return "";
  return approval.details?.trimStart().startsWith(core) ? "" : rest;
}

/** A tool waiting for the user's decision; keys a / s / d answer while the card has focus. */
export function ApprovalCard({ approval, onAnswer, autoFocus }: ApprovalCardProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!autoFocus) return;
    const active = document.activeElement;
    // Don't steal focus from someone typing.
    const typing = active instanceof HTMLTextAreaElement && active.value.length > 0;
    if (!typing) ref.current?.focus();
  }, [autoFocus, approval.id]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.nativeEvent.isComposing) return;
    const key = event.key.toLowerCase();
    if (key === "a") onAnswer(true, "once");
    else if (key === "s") onAnswer(true, "session");
    else if (key === "d") onAnswer(false, "once");
    else return;
    event.preventDefault();
  };

  const risk = approval.risk ?? "normal";
  const summary = approvalSummary(approval);
  const titleId = `approval-title-${approval.id}`;
  return (
    <div
      ref={ref}
      className={`approval-card risk-${risk}`}
      role="group"
      aria-labelledby={titleId}
      tabIndex={0}
      onKeyDown={onKeyDown}
      data-testid="approval-card"
    >
      <div className="approval-head">
        <span id={titleId} className="approval-title">
          Approve <strong>{approval.toolName}</strong>
          {summary ? <span className="approval-summary"> {summary}</span> : null}?
        </span>
        {approval.agent ? (
          <span className="approval-agent" title="A subagent asks (it runs in a child session)">
            subagent {approval.agent}
          </span>
        ) : null}
        <span className={`risk-badge risk-${risk}`}>{RISK_LABEL[risk] ?? risk}</span>
      </div>
      {approval.riskReason ? <div className="approval-reason">{approval.riskReason}</div> : null}
      {approval.details ? (
        looksLikeDiff(approval.details) ? (
          <Diff diff={approval.details} />
        ) : (
          <pre className="approval-details">{approval.details}</pre>
        )
      ) : null}
      <div className="approval-actions">
        <button type="button" className="btn primary" onClick={() => onAnswer(true, "once")} aria-keyshortcuts="a">
          Allow <kbd>a</kbd>
        </button>
        <button type="button" className="btn" onClick={() => onAnswer(true, "session")} aria-keyshortcuts="s">
          Allow for session <kbd>s</kbd>
        </button>
        <button type="button" className="btn danger" onClick={() => onAnswer(false, "once")} aria-keyshortcuts="d">
          Deny <kbd>d</kbd>
        </button>
      </div>
    </div>
  );
}
