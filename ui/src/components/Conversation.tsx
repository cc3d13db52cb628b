import { useEffect, useRef } from "react";
import type { ConversationState } from "../state/conversation";
import { ApprovalCard } from "./ApprovalCard";
import { MessageImages } from "./ImageThumb";
import { Markdown } from "./Markdown";
import { ToolCard } from "./ToolCard";
import { UsageMeter } from "./UsageMeter";

export interface ConversationProps {
  conversation: ConversationState;
  onApprove: (approvalId: string, allow: boolean, scope: "once" | "session") => void;
  onFork: (entryId: string) => void;
}

const PHASE_TEXT: Record<ConversationState["phase"], string> = {
  idle: "",
  running: "gg is working…",
  waiting_approval: "Waiting for your approval",
  completed: "Done",
  failed: "Failed",
  canceled: "Stopped",
};

/** The messages of the open session, live run output, approvals and usage. */
export function Conversation({ conversation, onApprove, onFork }: ConversationProps) {
  const end = useRef<HTMLDivElement>(null);
  const { items, approvals, phase, notice, usage, sessionUsage } = conversation;
  const lastText = items.length > 0 ? items[items.length - 1] : null;
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: "end" });
  }, [items.length, lastText, approvals.length]);

  return (
    <section className="conversation" aria-label="Conversation">
      {items.length === 0 ? <p className="empty">No messages yet. Ask something below.</p> : null}
      <ol className="messages">
        {items.map((item) => {
          if (item.kind === "user") {
            return (
              <li key={item.key} className={`msg msg-user${item.pending ? " pending" : ""}`} data-testid="msg-user">
                <div className="msg-role">You</div>
                <div className="msg-body user-text">{item.text}</div>
                <MessageImages images={item.images} previews={item.previews} />
                {item.entryId ? (
                  <button
                    type="button"
                    className="btn small ghost"
                    onClick={() => onFork(item.entryId as string)}
                    aria-label={`Fork from this message: ${item.text.slice(0, 40)}`}
                  >
                    Fork from here
                  </button>
                ) : null}
              </li>
            );
          }
          if (item.kind === "assistant") {
            return (
              <li
                key={item.key}
                className={`msg msg-assistant${item.streaming ? " streaming" : ""}`}
                data-testid="msg-assistant"
              >
                <div className="msg-role">gg</div>
                {item.thinking ? (
                  <details className="thinking" data-testid="thinking">
                    <summary>Thinking</summary>
                    <pre>{item.thinking}</pre>
                  </details>
                ) : null}
                <div className="msg-body">
                  <Markdown text={item.text} />
                </div>
              </li>
            );
          }
          return (
            <li key={item.key} className="msg msg-tool">
              <ToolCard item={item} />
            </li>
          );
        })}
      </ol>
      {approvals.map((approval, index) => (
        <ApprovalCard
          key={approval.id}
          approval={approval}
          autoFocus={index === 0}
          onAnswer={(allow, scope) => onApprove(approval.id, allow, scope)}
        />
      ))}
      {notice ? (
        <div
          className={`notice notice-${notice.tone}`}
          role={notice.tone === "error" ? "alert" : "status"}
          data-testid="run-notice"
        >
          {notice.text}
        </div>
      ) : null}
      <div className="run-footer">
        <span className="phase" role="status" aria-live="polite" data-testid="run-phase" data-phase={phase}>
          {PHASE_TEXT[phase]}
        </span>
        <UsageMeter usage={usage} session={sessionUsage} />
      </div>
      <div ref={end} />
    </section>
  );
}
