import type {
  Approval,
  ImageInfo,
  Message,
  RunEvent,
  RunStatus,
  SessionSummary,
  Snapshot,
  UsageInfo,
} from "../protocol";

/** One row of the conversation as the UI draws it. */
export type ConvItem =
  | {
      kind: "user";
      key: string;
      text: string;
      entryId?: string;
      pending?: boolean;
      /** Stored images of the prompt (gg/image.get fetches them). */
      images?: ImageInfo[];
      /** blob: URLs of this page's attachments until the run's images arrive. */
      previews?: string[];
    }
  | { kind: "assistant"; key: string; text: string; thinking: string; entryId?: string; streaming: boolean }
  | {
      kind: "tool";
      key: string;
      toolCallId: string;
      toolName: string;
      summary: string;
      /** not_run: the call was never carried out (the run ended or this is a fork cut before it). */
      status: "running" | "done" | "error" | "not_run";
      output?: string;
      diff?: string;
      /** A screenshot, image or audio clip the call produced (shown inline, fetched by id). */
      mediaId?: string;
      /** A picture the call returned to the model (`read` of an image), fetched by id. */
      images?: ImageInfo[];
      denied?: boolean;
      entryId?: string;
      /** The subagent a `task` call started (child_run_* events of this run). */
      child?: ChildRun;
    };

/** A subagent's child run as its task card shows it. */
export interface ChildRun {
  runId: string;
  sessionId: string;
  agent: string;
  description?: string;
  status: "running" | "completed" | "failed" | "canceled";
  /** The latest lines of progress (the tools it runs, approvals it waits for), oldest first. */
  lines: string[];
  /** Unknown (undefined) for a child found after the fact, in the session list. */
  turns?: number;
  toolCalls?: number;
  error?: string;
}

/** How many progress lines a task card keeps for its child. */
export const CHILD_LINES = 4;

export type RunPhase = "idle" | "running" | "waiting_approval" | "completed" | "failed" | "canceled";

/** What ends a run, shown under the conversation until the next run starts. */
export interface RunNotice {
  tone: "info" | "error";
  text: string;
}

export interface ConversationState {
  items: ConvItem[];
  runId: string | null;
  phase: RunPhase;
  approvals: Approval[];
  /** The run's totals (tokens, cache, cost) and how full the context is after its last request. */
  usage: UsageInfo | null;
  /** Every request of the session so far (gg/session.context on open, then each usage event). */
  sessionUsage: UsageInfo | null;
  notice: RunNotice | null;
  /** Tool calls the user denied (the denial can come before the tool's card exists). */
  denied: string[];
  /** The highest sequence applied for `runId` (events at or below it are ignored). */
  lastSequence: number;
}

export type ConversationAction =
  | { type: "snapshot"; snapshot: Snapshot }
  | { type: "attach"; status: RunStatus }
  | { type: "local_prompt"; text: string; previews?: string[] }
  | { type: "event"; event: RunEvent }
  | { type: "session_usage"; usage: UsageInfo | null }
  | { type: "approval_gone"; approvalId: string }
  | { type: "children"; sessions: SessionSummary[] };

export const initialConversation: ConversationState = {
  items: [],
  runId: null,
  phase: "idle",
  approvals: [],
  usage: null,
  sessionUsage: null,
  notice: null,
  denied: [],
  lastSequence: 0,
};

const ACTIVE: ReadonlySet<RunPhase> = new Set(["running", "waiting_approval"]);

/** True while a run of this session is going on. */
export function isBusy(state: ConversationState): boolean {
  return ACTIVE.has(state.phase);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  return JSON.stringify(content);
}

function argumentSummary(args: Record<string, unknown> | undefined): string {
  if (!args) return "";
  // A task call (a subagent): its agent and what it was asked, as the live card says it.
  const agent = args["agent"];
  const what = args["description"] ?? args["prompt"];
  if (typeof agent === "string" && typeof what === "string") return `${agent}: ${what}`;
  for (const key of ["command", "path", "pattern", "query", "url", "prompt", "text", "title", "target"]) {
    const value = args[key];
    if (typeof value === "string") return value;
  }
  const todos = args["todos"];
  if (Array.isArray(todos)) {
    // todo_write, as the daemon summarises it live ("1/3 done").
    const done = todos.filter((t) => (t as { status?: unknown })?.status === "completed").length;
    return `${done}/${todos.length} done`;
  }
  const text = JSON.stringify(args);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The stored image a tool result carries (`details.image`, as `read` of a picture sets it). */
function imagesOf(details: Record<string, unknown> | null | undefined): ImageInfo[] | undefined {
  const image = details?.["image"] as ImageInfo | undefined;
  return image && typeof image.id === "string" ? [image] : undefined;
}

function mediaOf(details: Record<string, unknown> | null | undefined, output: string): string | undefined {
  const id = details?.["mediaId"];
  if (typeof id === "string") return id;
  return output.match(/\bm_[0-9a-f]{16}\b/)?.[0];
}

function diffOf(details: Record<string, unknown> | null | undefined): string | undefined {
  const diff = details?.["diff"];
  return typeof diff === "string" ? diff : undefined;
}

/**
 * Turn persisted messages into conversation rows (tool results fold into their call's card).
 * A call without a result is "not run", except in the last assistant message of a session whose
 * run is still going (`live`), where it may be running right now.
 */
export function itemsFromMessages(messages: Message[], live = false): ConvItem[] {
  const items: ConvItem[] = [];
  const toolIndex = new Map<string, number>();
  const lastAssistant = live ? messages.reduce((at, m, i) => (m.role === "assistant" ? i : at), -1) : -1;
  messages.forEach((message, index) => {
    const key = message.id ?? `m${index}`;
    if (message.role === "user") {
      items.push({
        kind: "user",
        key,
        text: textOf(message.content),
        entryId: message.id ?? undefined,
        ...(message.images?.length ? { images: message.images } : {}),
      });
    } else if (message.role === "assistant") {
      const text = textOf(message.content);
      // The stored reasoning comes back collapsed above its answer, as it was shown live.
      const thinking = message.thinking ?? "";
      // An empty answer (a failed or canceled turn) has nothing to show; the run notice says why.
      if (text || thinking) {
        items.push({ kind: "assistant", key, text, thinking, entryId: message.id ?? undefined, streaming: false });
      }
      for (const call of message.toolCalls ?? []) {
        toolIndex.set(call.id, items.length);
        items.push({
          kind: "tool",
          key: `tool-${call.id}`,
          toolCallId: call.id,
          toolName: call.name,
          summary: argumentSummary(call.arguments),
          status: index === lastAssistant ? "running" : "not_run",
          entryId: message.id ?? undefined,
        });
      }
    } else if (message.role === "tool") {
      const at = message.toolCallId ? toolIndex.get(message.toolCallId) : undefined;
      const item = at === undefined ? undefined : items[at];
      if (item && item.kind === "tool") {
        const output = textOf(message.content);
        items[at as number] = {
          ...item,
          status: message.isError ? "error" : "done",
          output,
          ...(message.isError ? {} : { mediaId: mediaOf(undefined, output) }),
          ...(message.images?.length ? { images: message.images } : {}),
        };
      }
    }
  });
  return items;
}

function closeStreaming(items: ConvItem[]): ConvItem[] {
  return items.map((item) => (item.kind === "assistant" && item.streaming ? { ...item, streaming: false } : item));
}

function appendText(items: ConvItem[], event: RunEvent, field: "text" | "thinking", text: string): ConvItem[] {
  const last = items[items.length - 1];
  if (last && last.kind === "assistant" && last.streaming) {
    return [...items.slice(0, -1), { ...last, [field]: last[field] + text }];
  }
  const fresh: ConvItem = {
    kind: "assistant",
    key: `${event.runId}-${event.sequence}`,
    text: field === "text" ? text : "",
    thinking: field === "thinking" ? text : "",
    streaming: true,
  };
  return [...items, fresh];
}

function updateTool(
  items: ConvItem[],
  toolCallId: string,
  patch: Partial<Extract<ConvItem, { kind: "tool" }>>,
): ConvItem[] | null {
  const at = items.findIndex((item) => item.kind === "tool" && item.toolCallId === toolCallId);
  if (at < 0) return null;
  const item = items[at] as Extract<ConvItem, { kind: "tool" }>;
  const next = items.slice();
  next[at] = { ...item, ...patch };
  return next;
}

function applyEvent(state: ConversationState, event: RunEvent): ConversationState {
  if (state.runId !== event.runId) {
    // A new run of this session: its numbering starts again.
    state = {
      ...state,
      runId: event.runId,
      lastSequence: 0,
      approvals: [],
      denied: [],
      notice: null,
      phase: "running",
    };
  }
  if (event.sequence <= state.lastSequence) return state;
  const next: ConversationState = { ...state, lastSequence: event.sequence };
  switch (event.type) {
    case "run_started": {
      next.phase = "running";
      const pendingAt = next.items.findIndex((item) => item.kind === "user" && item.pending);
      const images = event.images?.length ? { images: event.images } : {};
      if (pendingAt >= 0) {
        next.items = next.items.map((item, i) =>
          i === pendingAt && item.kind === "user" ? { ...item, pending: false, ...images } : item,
        );
      } else if (event.prompt) {
        next.items = [...next.items, { kind: "user", key: `${event.runId}-prompt`, text: event.prompt, ...images }];
      }
      return next;
    }
    case "text_delta":
      next.items = appendText(next.items, event, "text", event.text);
      return next;
    case "thinking_delta":
      next.items = appendText(next.items, event, "thinking", event.text);
      return next;
    case "tool_call_start": {
      const items = closeStreaming(next.items);
      const summary = event.summary || argumentSummary(event.arguments ?? undefined);
      const denied = next.denied.includes(event.toolCallId) ? { denied: true } : {};
      next.items = updateTool(items, event.toolCallId, { summary, status: "running", ...denied }) ?? [
        ...items,
        {
          kind: "tool",
          key: `tool-${event.toolCallId}`,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          summary,
          status: "running",
          ...denied,
        },
      ];
      return next;
    }
    case "tool_call_finish": {
      const patch = {
        status: event.isError ? ("error" as const) : ("done" as const),
        output: event.output,
        diff: diffOf(event.details),
        mediaId: event.isError ? undefined : mediaOf(event.details, event.output),
        images: imagesOf(event.details),
        ...(next.denied.includes(event.toolCallId) ? { denied: true } : {}),
      };
      next.items = updateTool(next.items, event.toolCallId, patch) ?? [
        ...next.items,
        {
          kind: "tool",
          key: `tool-${event.toolCallId}`,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          summary: "",
          ...patch,
        },
      ];
      return next;
    }
    case "child_run_started": {
      const child: ChildRun = {
        runId: event.childRunId,
        sessionId: event.childSessionId,
        agent: event.agent,
        description: event.description ?? undefined,
        status: "running",
        lines: [],
        turns: 0,
        toolCalls: 0,
      };
      next.items = updateTool(next.items, event.toolCallId, { child }) ?? next.items;
      return next;
    }
    case "child_run_progress":
    case "child_run_finished": {
      const at = next.items.findIndex((item) => item.kind === "tool" && item.toolCallId === event.toolCallId);
      const item = next.items[at];
      if (!item || item.kind !== "tool" || !item.child) return next;
      const child: ChildRun = { ...item.child, turns: event.turns ?? 0, toolCalls: event.toolCalls ?? 0 };
      if (event.type === "child_run_progress") {
        child.lines = [...child.lines, event.text].slice(-CHILD_LINES);
      } else {
        child.status = event.status;
        child.error = event.error ?? undefined;
      }
      next.items = updateTool(next.items, event.toolCallId, { child }) ?? next.items;
      return next;
    }
    case "user_message":
      next.items = [
        ...closeStreaming(next.items),
        { kind: "user", key: `${event.runId}-${event.sequence}`, text: event.text },
      ];
      return next;
    case "approval_requested":
      if (!next.approvals.some((a) => a.id === event.approval.id)) next.approvals = [...next.approvals, event.approval];
      next.phase = "waiting_approval";
      return next;
    case "approval_resolved": {
      const approval = next.approvals.find((a) => a.id === event.approvalId);
      next.approvals = next.approvals.filter((a) => a.id !== event.approvalId);
      if (next.approvals.length === 0 && next.phase === "waiting_approval") next.phase = "running";
      if (!event.allow && approval?.toolCallId) {
        next.denied = [...next.denied, approval.toolCallId];
        next.items = updateTool(next.items, approval.toolCallId, { denied: true }) ?? next.items;
      }
      return next;
    }
    case "usage":
      // The run's totals so far when the daemon sends them (cache and cost included), else this
      // request's counts; the context fill is always this request's.
      next.usage = {
        ...(event.run ?? {
          promptTokens: event.promptTokens,
          completionTokens: event.completionTokens,
          totalTokens: event.totalTokens,
        }),
        contextTokens: event.contextTokens ?? next.usage?.contextTokens ?? null,
        contextWindow: event.contextWindow ?? next.usage?.contextWindow ?? null,
      };
      if (event.session) next.sessionUsage = event.session;
      return next;
    case "compaction":
      next.notice = { tone: "info", text: "Older turns were summarised to fit the context window." };
      return next;
    case "hook_failed":
      // The run goes on; the user should still learn that a hook of theirs did not work.
      next.notice = { tone: "error", text: `A ${event.hookEvent} hook failed (${event.error}): ${event.command}` };
      return next;
    case "run_completed":
      next.phase = "completed";
      next.items = closeStreaming(next.items);
      next.approvals = [];
      if (event.usage) next.usage = { ...next.usage, ...event.usage };
      return next;
    case "run_failed":
      next.phase = "failed";
      next.items = closeStreaming(next.items);
      next.approvals = [];
      if (event.usage) next.usage = { ...next.usage, ...event.usage };
      next.notice = {
        tone: "error",
        text:
          event.errorCode === "budget_exceeded"
            ? `Stopped at its budget: ${event.error}`
            : `The run failed: ${event.error}${event.retryable ? " (you can try again)" : ""}`,
      };
      return next;
    case "run_canceled":
      next.phase = "canceled";
      next.items = closeStreaming(next.items);
      next.approvals = [];
      next.notice = { tone: "info", text: "Stopped." };
      return next;
    default:
      return next;
  }
}

type ToolItem = Extract<ConvItem, { kind: "tool" }>;

/** A snapshot taken mid-run misses what only events have shown so far: keep those rows. */
function mergeLive(persisted: ConvItem[], live: ConvItem[]): ConvItem[] {
  const liveTools = new Map<string, ToolItem>();
  for (const item of live) if (item.kind === "tool") liveTools.set(item.toolCallId, item);
  const merged = persisted.map((item) => {
    const seen = item.kind === "tool" ? liveTools.get(item.toolCallId) : undefined;
    return seen && item.kind === "tool" && (item.status === "running" || item.status === "not_run")
      ? { ...item, ...seen, key: item.key }
      : item;
  });
  const persistedTools = new Set(merged.flatMap((item) => (item.kind === "tool" ? [item.toolCallId] : [])));
  const extra = live.filter(
    (item) =>
      (item.kind === "assistant" && item.streaming) || (item.kind === "tool" && !persistedTools.has(item.toolCallId)),
  );
  return [...merged, ...extra];
}

/** Persisted tool results carry no diff or denial: keep what the events showed. */
function carryOver(persisted: ConvItem[], previous: ConvItem[]): ConvItem[] {
  const seen = new Map<string, ToolItem>();
  for (const item of previous) if (item.kind === "tool") seen.set(item.toolCallId, item);
  if (seen.size === 0) return persisted;
  return persisted.map((item) => {
    const before = item.kind === "tool" ? seen.get(item.toolCallId) : undefined;
    if (!before || item.kind !== "tool") return item;
    return {
      ...item,
      diff: item.diff ?? before.diff,
      denied: item.denied ?? before.denied,
      child: item.child ?? before.child,
    };
  });
}

const CHILD_STATUS: Record<ToolItem["status"], ChildRun["status"]> = {
  running: "running",
  done: "completed",
  error: "failed",
  not_run: "canceled",
};

/** Task cards of a reopened session get their child sessions back (gg/session.list parentSessionId). */
export function withChildren(items: ConvItem[], sessions: SessionSummary[]): ConvItem[] {
  const byCall = new Map(sessions.filter((s) => s.toolCallId).map((s) => [s.toolCallId as string, s]));
  return items.map((item) => {
    const row = item.kind === "tool" && !item.child ? byCall.get(item.toolCallId) : undefined;
    if (!row || item.kind !== "tool") return item;
    const child: ChildRun = {
      runId: row.activeRunId ?? "",
      sessionId: row.id,
      agent: row.agent ?? "agent",
      status: row.activeRunId ? "running" : CHILD_STATUS[item.status],
      lines: [],
    };
    return { ...item, child };
  });
}

/** Whether a conversation has task cards whose child is not known yet (a reopened session). */
export function missingChildren(items: ConvItem[]): boolean {
  return items.some((item) => item.kind === "tool" && item.toolName === "task" && !item.child);
}

/** The one reducer of a session's conversation: snapshots, run attachment and run events. */
export function conversationReducer(state: ConversationState, action: ConversationAction): ConversationState {
  switch (action.type) {
    case "snapshot": {
      const active = action.snapshot.activeRunId ?? null;
      const items = itemsFromMessages(action.snapshot.messages, active !== null);
      if (active && active === state.runId && isBusy(state)) {
        return { ...state, items: mergeLive(items, state.items) };
      }
      const kept = carryOver(items, state.items);
      return {
        ...state,
        items: kept,
        phase: active ? state.phase : isBusy(state) ? "idle" : state.phase,
        approvals: active ? state.approvals : [],
      };
    }
    case "attach": {
      const { status } = action;
      return {
        ...state,
        runId: status.id,
        phase: status.status,
        approvals: status.pendingApprovals ?? [],
        usage: status.usage ?? state.usage,
        lastSequence: status.lastSequence,
        notice:
          status.status === "failed" && status.error
            ? { tone: "error", text: `The run failed: ${status.error}` }
            : null,
      };
    }
    case "local_prompt":
      return {
        ...state,
        notice: null,
        items: [
          ...state.items,
          {
            kind: "user",
            key: `local-${state.items.length}-${Date.now()}`,
            text: action.text,
            pending: true,
            ...(action.previews?.length ? { previews: action.previews } : {}),
          },
        ],
      };
    case "event":
      return applyEvent(state, action.event);
    case "session_usage":
      return { ...state, sessionUsage: action.usage };
    case "approval_gone":
      return { ...state, approvals: state.approvals.filter((a) => a.id !== action.approvalId) };
    case "children":
      return { ...state, items: withChildren(state.items, action.sessions) };
  }
}
