import type {
  ParamsOf,
  RequestMethod,
  ResultOf,
  SessionEvent,
  SessionSummary,
  SystemInfoResult,
  WorkspaceRef,
} from "../protocol";
import { GgClient } from "../rpc/client";
import type { Transport, TransportState } from "../rpc/transport";
import { SessionController, errorText } from "./session";
import { Store } from "./store";

/** What the shell of the app draws: connection, daemon info, workspaces, sessions, badges. */
export interface AppView {
  connection: TransportState;
  info: SystemInfoResult | null;
  workspace: WorkspaceRef | null;
  workspaces: WorkspaceRef[];
  sessions: SessionSummary[];
  /** Cursor of the next page of sessions, if there is one. */
  nextCursor: string | null;
  /** Sessions (other than the open one) with approvals waiting, and how many. */
  badges: Record<string, number>;
  session: SessionController;
  error: string | null;
}

const PAGE = 50;

/** Builds a transport for a workspace (undefined = the daemon's default). */
export type TransportFactory = (workspaceId: string | undefined) => Transport;

/** Sort newest first (the daemon does too; live updates may reorder). */
export function sortSessions(sessions: SessionSummary[]): SessionSummary[] {
  return [...sessions].sort((a, b) => b.updatedAt - a.updatedAt);
}

/** The application core under the React views: one client, one open session, the session list. */
export class AppController {
  readonly store: Store<AppView>;
  private readonly factory: TransportFactory;
  private client: GgClient;
  private disposers: Array<() => void> = [];
  private listTimer: ReturnType<typeof setTimeout> | null = null;
  private workspaceId: string | undefined;
  private resumeSessionId: string | undefined;
  /** Counts session events, so a list answer older than one of them is not applied over it. */
  private eventSerial = 0;

  /** `resumeSessionId`: the session this tab had open before a reload, reopened once connected. */
  constructor(factory: TransportFactory, workspaceId?: string, resumeSessionId?: string) {
    this.factory = factory;
    this.workspaceId = workspaceId;
    this.resumeSessionId = resumeSessionId;
    this.client = new GgClient(factory(workspaceId));
    const session = new SessionController(this.client);
    this.store = new Store<AppView>({
      connection: { status: "connecting", attempt: 0 },
      info: null,
      workspace: null,
      workspaces: [],
      sessions: [],
      nextCursor: null,
      badges: {},
      session,
      error: null,
    });
    this.wire();
  }

  /** The current connection's client, for views that call capability methods (the Jobs view). */
  get rpc(): GgClient {
    return this.client;
  }

  /** The open session's controller. */
  /** Call a method on the current connection (capability panels such as MCP use this). */
  call<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.client.call(method, params);
  }

  get session(): SessionController {
    return this.store.get().session;
  }

  /** Reconnect to another workspace (a connection's workspace is fixed by initialize). */
  switchWorkspace(workspaceId: string): void {
    if (workspaceId === this.store.get().workspace?.id) return;
    this.teardown();
    this.workspaceId = workspaceId;
    this.resumeSessionId = undefined;
    this.client = new GgClient(this.factory(workspaceId));
    const session = new SessionController(this.client);
    this.store.update((view) => ({
      ...view,
      session,
      sessions: [],
      nextCursor: null,
      badges: {},
      info: null,
      workspace: null,
    }));
    this.wire();
  }

  /** The workspace this controller asked for (undefined: the daemon's default). */
  get requestedWorkspace(): string | undefined {
    return this.workspaceId;
  }

  /** Re-read the session list (and subscribe to every listed session for live badges). */
  async refreshSessions(): Promise<void> {
    const serial = this.eventSerial;
    try {
      const { sessions, nextCursor } = await this.client.call("gg/session.list", { limit: PAGE });
      // A session event came while this was on its way (a first prompt naming the session, say):
      // the answer may predate it, and the refresh that event scheduled will bring the news.
      const stale = serial !== this.eventSerial && this.listTimer !== null;
      if (!stale) {
        this.store.update((view) => ({ ...view, sessions: sortSessions(sessions), nextCursor: nextCursor ?? null }));
      }
      await this.follow(sessions);
    } catch (error) {
      this.setError(errorText(error));
    }
  }

  /** Append the next page of sessions. */
  async loadMoreSessions(): Promise<void> {
    const cursor = this.store.get().nextCursor;
    if (!cursor) return;
    try {
      const { sessions, nextCursor } = await this.client.call("gg/session.list", { limit: PAGE, cursor });
      this.store.update((view) => {
        const known = new Set(view.sessions.map((s) => s.id));
        const merged = [...view.sessions, ...sessions.filter((s) => !known.has(s.id))];
        return { ...view, sessions: sortSessions(merged), nextCursor: nextCursor ?? null };
      });
      await this.follow(sessions);
    } catch (error) {
      this.setError(errorText(error));
    }
  }

  private async follow(sessions: SessionSummary[]): Promise<void> {
    await Promise.all(sessions.map((s) => this.client.subscribeSession(s.id).catch(() => undefined)));
  }

  /** Open a session and clear its badge. */
  async openSession(sessionId: string): Promise<void> {
    this.store.update((view) => {
      const badges = { ...view.badges };
      delete badges[sessionId];
      return { ...view, badges };
    });
    await this.session.open(sessionId);
  }

  /**
   * Show a session the host asked for (the VS Code extension, after "gg: Ask" or "gg: Open Sessions").
   * It wins over the session this tab had open before a reload. Opening attaches to the session's
   * active run (`gg/run.get`, then subscribe after its last sequence), so a run the host just
   * started streams live; an already open session follows new runs through its `run_started` events.
   */
  async showSession(sessionId: string): Promise<void> {
    this.resumeSessionId = undefined;
    if (this.session.sessionId === sessionId) return;
    await this.openSession(sessionId);
    // The host may have just created it: nobody told this page, so list it now.
    if (!this.store.get().sessions.some((s) => s.id === sessionId)) await this.refreshSessions();
  }

  /** Create a session, open it, and list it. */
  async newSession(): Promise<void> {
    // An untouched new session (no name, no message) is reused: clicking New session again must
    // not leave a trail of empty "Untitled" rows in the list.
    const current = this.session.store.get().snapshot;
    if (current && !current.name && current.messages.length === 0 && !current.activeRunId) return;
    await this.session.create();
    await this.refreshSessions();
  }

  clearError(): void {
    this.store.update((view) => ({ ...view, error: null }));
  }

  /** Close the connection for good. */
  close(): void {
    this.teardown();
  }

  private wire(): void {
    const client = this.client;
    const session = this.store.get().session;
    session.onSwitch = () => void this.refreshSessions();
    this.disposers = [
      client.transport.onStateChange((state) => this.handleState(state)),
      client.onSessionEvent((event) => this.handleSessionEvent(event)),
      client.onResume(() => void this.refreshSessions()),
      () => session.dispose(),
      () => client.close(),
    ];
  }

  private teardown(): void {
    if (this.listTimer !== null) clearTimeout(this.listTimer);
    for (const dispose of this.disposers) dispose();
    this.disposers = [];
  }

  private handleState(connection: TransportState): void {
    const workspace = connection.server?.gg.workspace ?? this.store.get().workspace;
    this.store.update((view) => ({ ...view, connection, workspace: workspace ?? null }));
    if (connection.status === "open" && !connection.resumed) void this.loadAll();
  }

  private async loadAll(): Promise<void> {
    try {
      const [info, list] = await Promise.all([
        this.client.call("gg/system.info", {}),
        this.client.call("gg/workspace.list", {}),
      ]);
      this.store.update((view) => ({ ...view, info, workspaces: list.workspaces, workspace: info.workspace }));
    } catch (error) {
      this.setError(errorText(error));
    }
    await this.refreshSessions();
    const resume = this.resumeSessionId;
    this.resumeSessionId = undefined;
    if (resume && !this.session.sessionId && this.store.get().sessions.some((s) => s.id === resume)) {
      await this.session.open(resume);
    }
  }

  private handleSessionEvent(event: SessionEvent): void {
    this.eventSerial += 1;
    const open = this.session.sessionId;
    if (event.type === "approval_pending" && event.sessionId !== open) {
      const count = event.count ?? 1;
      this.store.update((view) => {
        const badges = { ...view.badges };
        if (count > 0) badges[event.sessionId] = count;
        else delete badges[event.sessionId];
        return { ...view, badges };
      });
    }
    if (event.type === "renamed" && event.name !== undefined && event.name !== null) {
      // The daemon's name (explicit, else the first prompt): the list shows what the header shows.
      const name = event.name;
      this.store.update((view) => ({
        ...view,
        sessions: view.sessions.map((s) => (s.id === event.sessionId ? { ...s, name } : s)),
      }));
    }
    if (event.type === "run_started" || event.type === "run_finished") {
      // Show the running mark at once; the list refresh below brings the rest.
      const activeRunId = event.type === "run_started" ? (event.runId ?? null) : null;
      this.store.update((view) => {
        const badges = { ...view.badges };
        if (event.type === "run_finished") delete badges[event.sessionId];
        const sessions = view.sessions.map((s) => (s.id === event.sessionId ? { ...s, activeRunId } : s));
        return { ...view, badges, sessions };
      });
    }
    // Many events can come at once (a fork renames, moves heads...): refresh the list once.
    if (this.listTimer !== null) clearTimeout(this.listTimer);
    this.listTimer = setTimeout(() => {
      this.listTimer = null;
      void this.refreshSessions();
    }, 150);
  }

  private setError(error: string): void {
    this.store.update((view) => ({ ...view, error }));
  }
}
