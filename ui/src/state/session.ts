import {
  ErrorCode,
  type ParamsOf,
  type RunEvent,
  type SessionEvent,
  type SessionUpdate,
  type Snapshot,
  type TodoItem,
} from "../protocol";
import type { GgClient } from "../rpc/client";
import { RpcError } from "../rpc/transport";
import type { Attachment } from "./attachments";
import {
  conversationReducer,
  missingChildren,
  initialConversation,
  type ConversationAction,
  type ConversationState,
} from "./conversation";
import { Store } from "./store";
import { expandSkillPrompt } from "./skills";

/** An approval mode a run can be started with (plan: only read-only tools run). */
export type ApprovalMode = NonNullable<ParamsOf<"gg/run.start">["approvalMode"]>;

/** Everything the conversation view draws for the open session. */
export interface SessionView {
  snapshot: Snapshot | null;
  conversation: ConversationState;
  /** Text the composer should take (a fork's or checkout's draft); consumed by the composer. */
  draft: { text: string; serial: number } | null;
  /** Steers and follow-ups sent but not yet taken by the model (a `user_message` event takes one). */
  queued: QueuedMessage[];
  error: string | null;
  /** What the last tree action did ("Forked into “x (fork)” (s_…)"), shown until dismissed. */
  notice: string | null;
  /** The session's todo list (todo_write): fetched on open, replaced by each plan_updated event. */
  todos: TodoItem[];
  /** The approval mode of the next runs started here (kept across sessions; plan: read-only). */
  mode: ApprovalMode;
}

/** A message waiting for the model: a steer (next model boundary) or a follow-up (next turn). */
export interface QueuedMessage {
  id: number;
  text: string;
  followUp: boolean;
}

const EMPTY: SessionView = {
  snapshot: null,
  conversation: initialConversation,
  draft: null,
  queued: [],
  error: null,
  notice: null,
  todos: [],
  mode: "auto",
};
const TERMINAL = new Set(["run_completed", "run_failed", "run_canceled"]);

/** A readable message for any error a call can raise. */
export function errorText(error: unknown): string {
  if (error instanceof RpcError) return error.message;
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}

/**
 * Keeps one session's view in step with the daemon: opens it, follows its runs and session events,
 * reattaches after reload or expiry, and carries out the user's actions.
 */
export class SessionController {
  readonly store = new Store<SessionView>(EMPTY);
  private readonly client: GgClient;
  private readonly disposers: Array<() => void> = [];
  private draftSerial = 0;
  private queueSerial = 0;
  private opening = 0;
  /** Called when the user's action moved to another session (fork, clone). */
  onSwitch: (snapshot: Snapshot) => void = () => undefined;

  constructor(client: GgClient) {
    this.client = client;
    this.disposers.push(
      client.onRunEvent((event) => this.handleRunEvent(event)),
      client.onSessionEvent((event) => this.handleSessionEvent(event)),
      client.onExpired((runId) => void this.handleExpired(runId)),
    );
  }

  get sessionId(): string | null {
    return this.store.get().snapshot?.sessionId ?? null;
  }

  /** Open a session by id (or show a snapshot already fetched), subscribe, and reattach a live run. */
  async open(sessionId: string, fetched?: Snapshot): Promise<void> {
    // Earlier sessions stay subscribed: the session list badges their pending approvals.
    const generation = ++this.opening;
    this.store.set({ ...EMPTY, mode: this.store.get().mode });
    try {
      const snapshot = fetched ?? (await this.client.call("gg/session.open", { sessionId }));
      await this.client.subscribeSession(snapshot.sessionId);
      // A later click won the race: drop this answer.
      if (generation !== this.opening) return;
      this.showSnapshot(snapshot);
      void this.loadTodos(snapshot.sessionId);
      void this.loadSessionUsage(snapshot.sessionId, generation);
      if (snapshot.activeRunId) await this.attach(snapshot.activeRunId);
      if (missingChildren(this.store.get().conversation.items)) void this.findChildren(snapshot.sessionId, generation);
    } catch (error) {
      if (generation === this.opening) this.setError(errorText(error));
    }
  }

  /** What the session has spent so far, for the usage meter (an older daemon sends none). */
  private async loadSessionUsage(sessionId: string, generation: number): Promise<void> {
    try {
      const context = await this.client.call("gg/session.context", { sessionId });
      if (generation !== this.opening) return;
      this.dispatch({ type: "session_usage", usage: context.usage ?? null });
    } catch {
      // Only the meter's session total is missing; the conversation itself is shown.
    }
  }

  /** The subagents' sessions of a reopened session, nested under their task cards again. */
  private async findChildren(sessionId: string, generation: number): Promise<void> {
    try {
      const page = await this.client.call("gg/session.list", { parentSessionId: sessionId, limit: 500 });
      if (generation === this.opening) this.dispatch({ type: "children", sessions: page.sessions });
    } catch {
      // Only the nesting is missing: each card still shows the child's answer.
    }
  }

  /** Create a new session and open it. */
  async create(model?: string): Promise<Snapshot | null> {
    try {
      const snapshot = await this.client.call("gg/session.create", { model: model ?? null });
      await this.open(snapshot.sessionId, snapshot);
      return snapshot;
    } catch (error) {
      this.setError(errorText(error));
      return null;
    }
  }

  /** Start a run with a prompt (interactive: this page answers approvals). */
  async send(prompt: string, model?: string, images?: Attachment[]): Promise<boolean> {
    const sessionId = this.sessionId;
    if (!sessionId) return false;
    this.dispatch({ type: "local_prompt", text: prompt, previews: images?.map((i) => i.url) });
    try {
      const { runId } = await this.client.call("gg/run.start", {
        sessionId,
        prompt: await expandSkillPrompt(this.client, prompt),
        interactive: true,
        model: model ?? null,
        ...(images?.length ? { images: images.map(({ data, mimeType }) => ({ data, mimeType })) } : {}),
        approvalMode: this.store.get().mode,
        // One explicit subscription from sequence 0 replays whatever came before it.
        subscribe: false,
      });
      if (!this.client.isFollowing(runId)) await this.client.subscribeRun(runId, 0);
      return true;
    } catch (error) {
      this.setError(errorText(error));
      await this.reload();
      return false;
    }
  }

  /** Steer the running turn, or queue a follow-up for the next one. */
  async steer(text: string, followUp: boolean): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    // Shown at once: the model can take it before the call's answer arrives.
    const item: QueuedMessage = { id: ++this.queueSerial, text, followUp };
    this.store.update((view) => ({ ...view, queued: [...view.queued, item] }));
    try {
      await this.client.call("gg/run.steer", { sessionId, text, followUp });
    } catch (error) {
      this.store.update((view) => ({ ...view, queued: view.queued.filter((q) => q.id !== item.id) }));
      this.setError(errorText(error));
    }
  }

  /** Stop the running turn. */
  async cancel(): Promise<void> {
    const runId = this.store.get().conversation.runId;
    if (!runId) return;
    try {
      await this.client.call("gg/run.cancel", { runId });
    } catch (error) {
      this.setError(errorText(error));
    }
  }

  /** Answer an approval; the first answer from any client wins. */
  async approve(approvalId: string, allow: boolean, scope: "once" | "session" = "once"): Promise<void> {
    const runId = this.store.get().conversation.runId;
    if (!runId) return;
    try {
      await this.client.call("gg/run.approve", { runId, approvalId, allow, scope });
    } catch (error) {
      if (error instanceof RpcError && error.code === ErrorCode.approvalExpired) {
        this.dispatch({ type: "approval_gone", approvalId });
        this.setError("That approval was already answered or has expired.");
        return;
      }
      this.setError(errorText(error));
    }
  }

  /** Checkout (tree), fork or clone; the returned draft goes back into the composer. */
  async action(action: "tree" | "fork" | "clone", nodeId?: string): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    try {
      const update: SessionUpdate = await this.client.call("gg/session.action", {
        sessionId,
        action,
        nodeId: nodeId ?? null,
      });
      if (update.sessionId !== sessionId) {
        await this.open(update.sessionId, update);
        this.onSwitch(update);
      } else {
        this.showSnapshot(update);
      }
      if (update.draft) this.setDraft(update.draft);
      if (update.notice) this.store.update((view) => ({ ...view, notice: update.notice ?? null }));
    } catch (error) {
      this.setError(errorText(error));
    }
  }

  /** Check out a node and restore the workspace files to it; errors are thrown to the caller. */
  async checkoutWithFiles(nodeId: string, confirmConflicts: boolean): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    const update: SessionUpdate = await this.client.call("gg/session.action", {
      sessionId,
      action: "tree",
      nodeId,
      restoreFiles: true,
      confirmConflicts,
    });
    this.showSnapshot(update);
    if (update.draft) this.setDraft(update.draft);
  }

  /** Rename the open session. */
  async rename(name: string): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    try {
      this.showSnapshot(await this.client.call("gg/session.rename", { sessionId, name }));
    } catch (error) {
      this.setError(errorText(error));
    }
  }

  /** The approval mode of the next runs started from this page. */
  setMode(mode: ApprovalMode): void {
    this.store.update((view) => ({ ...view, mode }));
  }

  /** Fetch the session's current todo list (an older daemon without the method shows none). */
  private async loadTodos(sessionId: string): Promise<void> {
    try {
      const res = await this.client.call("gg/session.todos", { sessionId });
      const todos = Array.isArray(res?.todos) ? res.todos : [];
      if (this.sessionId === sessionId) this.store.update((view) => ({ ...view, todos }));
    } catch {
      // Not fatal: the list appears with the next plan_updated event.
    }
  }

  /** Dismiss the error bar. */
  clearError(): void {
    this.store.update((view) => ({ ...view, error: null }));
  }

  /** Dismiss the notice of the last tree action. */
  clearNotice(): void {
    this.store.update((view) => ({ ...view, notice: null }));
  }

  /** Stop listening (the controller is dropped). */
  dispose(): void {
    for (const dispose of this.disposers) dispose();
  }

  private async reload(): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    try {
      this.showSnapshot(await this.client.call("gg/session.get", { sessionId }));
    } catch (error) {
      this.setError(errorText(error));
    }
  }

  private async attach(runId: string): Promise<void> {
    const status = await this.client.call("gg/run.get", { runId });
    this.dispatch({ type: "attach", status });
    if (status.status === "running" || status.status === "waiting_approval") {
      await this.client.subscribeRun(runId, status.lastSequence);
    }
  }

  private async handleExpired(runId: string): Promise<void> {
    if (this.store.get().conversation.runId !== runId) return;
    // The daemon dropped events we never saw: start again from the persisted state.
    await this.reload();
    try {
      await this.attach(runId);
    } catch (error) {
      this.setError(errorText(error));
    }
  }

  private handleRunEvent(event: RunEvent): void {
    if (event.sessionId !== this.sessionId) return;
    this.dispatch({ type: "event", event });
    if (event.type === "plan_updated") {
      const todos = event.todos;
      this.store.update((view) => ({ ...view, todos }));
    }
    if (event.type === "user_message") {
      // The model took one queued message: the oldest with this text.
      this.store.update((view) => {
        const at = view.queued.findIndex((q) => q.text === event.text);
        return at < 0 ? view : { ...view, queued: view.queued.filter((_, i) => i !== at) };
      });
    }
    if (TERMINAL.has(event.type)) {
      this.store.update((view) => ({ ...view, queued: [] }));
      void this.reload();
    }
  }

  private handleSessionEvent(event: SessionEvent): void {
    if (event.sessionId !== this.sessionId) return;
    const conversation = this.store.get().conversation;
    switch (event.type) {
      case "renamed":
        this.store.update((view) =>
          view.snapshot ? { ...view, snapshot: { ...view.snapshot, name: event.name ?? view.snapshot.name } } : view,
        );
        break;
      case "head_changed":
        void this.reload();
        if (event.sessionId) void this.loadTodos(event.sessionId); // the list follows the branch
        break;
      case "files_restored": {
        // Any client's undo, redo or restore: every page viewing the session says so.
        const what = event.name === "restore" ? "restored to a checkpoint" : `${event.name ?? "restored"} done`;
        const notice = `Workspace files ${what}: ${event.count ?? 0} file${event.count === 1 ? "" : "s"} changed.`;
        this.store.update((view) => ({ ...view, notice }));
        break;
      }
      case "run_started":
        // Another page started a run here: follow it from its first event.
        if (event.runId && !this.client.isFollowing(event.runId)) {
          void this.client.subscribeRun(event.runId, 0).catch((error: unknown) => this.setError(errorText(error)));
        }
        break;
      case "run_finished":
        if (
          event.runId === conversation.runId &&
          (conversation.phase === "running" || conversation.phase === "waiting_approval")
        ) {
          void this.reload().then(() => (event.runId ? this.attach(event.runId) : undefined));
        }
        break;
      default:
        break;
    }
  }

  private showSnapshot(snapshot: Snapshot): void {
    this.store.update((view) => ({
      ...view,
      snapshot,
      conversation: conversationReducer(view.conversation, { type: "snapshot", snapshot }),
    }));
  }

  /** Put text into the composer (a prompt about a search hit, say); the user edits and sends it. */
  offerDraft(text: string): void {
    this.setDraft(text);
  }

  private setDraft(text: string): void {
    this.draftSerial += 1;
    const draft = { text, serial: this.draftSerial };
    this.store.update((view) => ({ ...view, draft }));
  }

  private dispatch(action: ConversationAction): void {
    this.store.update((view) => ({ ...view, conversation: conversationReducer(view.conversation, action) }));
  }

  private setError(error: string): void {
    this.store.update((view) => ({ ...view, error }));
  }
}
