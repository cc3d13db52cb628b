// Run state for the status bar and for commands (cancel, approvals), projected from gg/run.event.
// No vscode import: unit-tested in Node.
import type { Approval, RunEvent, UsageInfo } from "../../../protocol/gg-protocol";

export type RunPhase = "running" | "waiting_approval" | "completed" | "failed" | "canceled";

/** What the extension knows about one run. */
export interface RunInfo {
  runId: string;
  sessionId: string;
  phase: RunPhase;
  lastSequence: number;
  pending: Approval[];
  error?: string;
  errorCode?: string;
  /** The run's totals so far (tokens, cache, cost): from usage events and the terminal event. */
  usage?: UsageInfo;
}

/** USD as a person reads it: four decimals below a dollar (a run often costs cents). */
export function formatUsd(cost: number): string {
  return cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

/** "2,350 tokens (1,800 cached) · $0.0029": no cost when the model has no known price. */
export function usageText(usage: UsageInfo): string {
  const cached = usage.cacheReadTokens ? ` (${usage.cacheReadTokens.toLocaleString("en-US")} cached)` : "";
  const tokens = `${(usage.totalTokens ?? 0).toLocaleString("en-US")} tokens${cached}`;
  return usage.costUsd != null ? `${tokens} · ${formatUsd(usage.costUsd)}` : tokens;
}

/** The status bar's text and tooltip. */
export interface StatusView {
  text: string;
  tooltip: string;
}

const TERMINAL: ReadonlySet<RunPhase> = new Set(["completed", "failed", "canceled"]);

/** Folds run events into per-run state; duplicates (replays) are ignored by sequence. */
export class RunTracker {
  private readonly runs = new Map<string, RunInfo>();
  private last: RunInfo | undefined;

  /** Apply one event; returns the run's state, or undefined for a duplicate. */
  apply(ev: RunEvent): RunInfo | undefined {
    let run = this.runs.get(ev.runId);
    if (!run) {
      run = { runId: ev.runId, sessionId: ev.sessionId, phase: "running", lastSequence: 0, pending: [] };
      this.runs.set(ev.runId, run);
    }
    if (ev.sequence <= run.lastSequence) return undefined;
    run.lastSequence = ev.sequence;
    switch (ev.type) {
      case "approval_requested":
        run.pending.push(ev.approval);
        break;
      case "approval_resolved":
        run.pending = run.pending.filter((a) => a.id !== ev.approvalId);
        break;
      case "usage":
        if (ev.run) run.usage = ev.run;
        break;
      case "run_completed":
        run.phase = "completed";
        if (ev.usage) run.usage = ev.usage;
        break;
      case "run_failed":
        run.phase = "failed";
        run.error = ev.error;
        run.errorCode = ev.errorCode ?? undefined;
        if (ev.usage) run.usage = ev.usage;
        break;
      case "run_canceled":
        run.phase = "canceled";
        break;
      default:
        break;
    }
    if (TERMINAL.has(run.phase)) {
      run.pending = [];
      this.runs.delete(run.runId);
      this.last = run;
    } else {
      run.phase = run.pending.length > 0 ? "waiting_approval" : "running";
    }
    return run;
  }

  /** Runs that have not finished. */
  active(): RunInfo[] {
    return [...this.runs.values()];
  }

  /** The unfinished run of a session, if any. */
  activeFor(sessionId: string): RunInfo | undefined {
    return this.active().find((r) => r.sessionId === sessionId);
  }

  /** Forget everything (the connection was lost). */
  reset(): void {
    this.runs.clear();
  }

  /** Status bar view: approvals first, then running, else the last outcome. */
  status(connected: boolean): StatusView {
    if (!connected) return { text: "$(debug-disconnect) gg", tooltip: "gg: not connected to the daemon" };
    const active = this.active();
    const waiting = active.filter((r) => r.phase === "waiting_approval");
    if (waiting.length > 0) {
      const a = waiting[0].pending[0];
      return { text: "$(bell) gg: approval needed", tooltip: `gg wants to run ${a.toolName}: ${a.summary}` };
    }
    if (active.length > 0) {
      const n = active.length;
      return { text: "$(loading~spin) gg: running", tooltip: n === 1 ? "gg: one run in progress (gg: Cancel Run stops it)" : `gg: ${n} runs in progress` };
    }
    const spent = this.last?.usage ? usageText(this.last.usage) : "";
    const cost = this.last?.usage?.costUsd;
    if (this.last?.phase === "failed") {
      const text = this.last.errorCode === "budget_exceeded" ? "$(error) gg: budget reached" : "$(error) gg: failed";
      return { text, tooltip: `gg: the last run failed: ${this.last.error ?? ""}${spent ? ` (spent ${spent})` : ""}` };
    }
    if (this.last?.phase === "canceled") return { text: "$(circle-slash) gg: canceled", tooltip: "gg: the last run was canceled" };
    if (spent) {
      return { text: cost != null ? `$(check) gg: idle · ${formatUsd(cost)}` : "$(check) gg: idle", tooltip: `gg: ready; the last run used ${spent}` };
    }
    return { text: "$(check) gg: idle", tooltip: "gg: ready" };
  }
}
