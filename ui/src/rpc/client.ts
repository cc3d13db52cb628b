import {
  ErrorCode,
  type ParamsOf,
  type RequestMethod,
  type ResultOf,
  type RunEvent,
  type SessionEvent,
} from "../protocol";
import { RpcError, type Transport, type TransportState } from "./transport";

export type RunEventListener = (event: RunEvent) => void;
export type SessionEventListener = (event: SessionEvent) => void;
/** Called when the daemon no longer holds the events after our last sequence. */
export type ExpiredListener = (runId: string) => void;

interface RunTrack {
  lastSequence: number;
  finished: boolean;
}

const TERMINAL = new Set(["run_completed", "run_failed", "run_canceled"]);

/**
 * The gg protocol on top of a Transport: typed calls, run and session subscriptions that survive a
 * reconnect (runs resume after the last sequence seen), and de-duplication of replayed events.
 */
export class GgClient {
  readonly transport: Transport;
  private readonly runs = new Map<string, RunTrack>();
  private readonly sessions = new Set<string>();
  private readonly runListeners = new Set<RunEventListener>();
  private readonly sessionListeners = new Set<SessionEventListener>();
  private readonly expiredListeners = new Set<ExpiredListener>();
  private readonly resumeListeners = new Set<() => void>();
  private readonly unsubscribers: Array<() => void> = [];

  constructor(transport: Transport) {
    this.transport = transport;
    this.unsubscribers.push(
      transport.onNotification((method, params) => this.handleNotification(method, params)),
      transport.onStateChange((state) => this.handleState(state)),
    );
  }

  /** Call a gg method of the table with typed params and result. */
  call<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    return this.transport.request<ResultOf<M>>(method, params);
  }

  /** The last sequence seen for a run (0 if none). */
  lastSequence(runId: string): number {
    return this.runs.get(runId)?.lastSequence ?? 0;
  }

  /** True while this client follows a run (subscribed, or learned from its events). */
  isFollowing(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** Subscribe to a run's events after `afterSequence`; remembered for reconnects. */
  async subscribeRun(runId: string, afterSequence: number): Promise<void> {
    this.runs.set(runId, { lastSequence: afterSequence, finished: false });
    await this.resubscribeRun(runId);
  }

  /** Stop following a run. */
  async unsubscribeRun(runId: string): Promise<void> {
    this.runs.delete(runId);
    await this.call("gg/run.unsubscribe", { runId }).catch(() => undefined);
  }

  /** Subscribe to gg/session.event of a session; remembered for reconnects. */
  async subscribeSession(sessionId: string): Promise<void> {
    if (this.sessions.has(sessionId)) return;
    this.sessions.add(sessionId);
    try {
      await this.call("gg/session.subscribe", { sessionId });
    } catch (error) {
      this.sessions.delete(sessionId);
      throw error;
    }
  }

  /** Stop following a session. */
  async unsubscribeSession(sessionId: string): Promise<void> {
    if (!this.sessions.delete(sessionId)) return;
    await this.call("gg/session.unsubscribe", { sessionId }).catch(() => undefined);
  }

  onRunEvent(listener: RunEventListener): () => void {
    this.runListeners.add(listener);
    return () => this.runListeners.delete(listener);
  }

  onSessionEvent(listener: SessionEventListener): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  onExpired(listener: ExpiredListener): () => void {
    this.expiredListeners.add(listener);
    return () => this.expiredListeners.delete(listener);
  }

  /** Called after a reconnect, once subscriptions were renewed. */
  onResume(listener: () => void): () => void {
    this.resumeListeners.add(listener);
    return () => this.resumeListeners.delete(listener);
  }

  /** Detach from the transport and close it. */
  close(): void {
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.transport.close();
  }

  private async resubscribeRun(runId: string): Promise<void> {
    const track = this.runs.get(runId);
    if (!track) return;
    try {
      await this.call("gg/run.subscribe", { runId, afterSequence: track.lastSequence });
    } catch (error) {
      if (error instanceof RpcError && error.code === ErrorCode.eventHistoryExpired) {
        this.runs.delete(runId);
        for (const listener of [...this.expiredListeners]) listener(runId);
        return;
      }
      throw error;
    }
  }

  private handleNotification(method: string, params: unknown): void {
    if (method === "gg/run.event") {
      const event = params as RunEvent;
      let track = this.runs.get(event.runId);
      if (!track) {
        // run.start subscribes by default: track runs we learn about from their first event.
        track = { lastSequence: 0, finished: false };
        this.runs.set(event.runId, track);
      }
      // Replays after a reconnect can overlap what we already have: drop what we have seen.
      if (event.sequence <= track.lastSequence) return;
      track.lastSequence = event.sequence;
      if (TERMINAL.has(event.type)) track.finished = true;
      for (const listener of [...this.runListeners]) listener(event);
    } else if (method === "gg/session.event") {
      const event = params as SessionEvent;
      for (const listener of [...this.sessionListeners]) listener(event);
    }
  }

  private handleState(state: TransportState): void {
    if (state.status !== "open" || !state.resumed) return;
    void this.resume();
  }

  private async resume(): Promise<void> {
    const sessionCalls = [...this.sessions].map((sessionId) =>
      this.call("gg/session.subscribe", { sessionId }).catch(() => undefined),
    );
    const runCalls = [...this.runs.entries()]
      .filter(([, track]) => !track.finished)
      .map(([runId]) => this.resubscribeRun(runId).catch(() => undefined));
    await Promise.all([...sessionCalls, ...runCalls]);
    for (const listener of [...this.resumeListeners]) listener();
  }
}
