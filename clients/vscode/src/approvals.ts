// Approval prompts outside the chat view: the message and the answer mapping. No vscode import.
import type { Approval, RunApproveParams } from "../../../protocol/gg-protocol";

/** Button labels of the notification, in order. */
export const APPROVAL_CHOICES = ["Allow", "Allow for Session", "Deny"] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];

/** The notification text: tool, summary, risk and reason. */
export function approvalMessage(a: Approval): string {
  // A subagent's call (it runs in a child session of the run) says which agent asks.
  const who = a.agent ? `gg's subagent ${a.agent}` : "gg";
  let text = `${who} wants to run ${a.toolName}: ${a.summary}`;
  if (a.risk && a.risk !== "normal") text += ` [${a.risk}]`;
  if (a.riskReason) text += ` (${a.riskReason})`;
  return text;
}

/** gg/run.approve params for a choice; a dismissed notification (undefined) answers nothing. */
export function approveParams(runId: string, a: Approval, choice: string | undefined): RunApproveParams | undefined {
  switch (choice) {
    case "Allow":
      return { runId, approvalId: a.id, allow: true, scope: "once" };
    case "Allow for Session":
      return { runId, approvalId: a.id, allow: true, scope: "session" };
    case "Deny":
      return { runId, approvalId: a.id, allow: false, scope: "once" };
    default:
      return undefined;
  }
}
