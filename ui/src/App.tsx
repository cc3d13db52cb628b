import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { ArtifactsPanel } from "./artifacts/ArtifactsPanel";
import { LibraryPanel } from "./artifacts/LibraryPanel";
import { ConnectionStatus } from "./components/ConnectionStatus";
import { Composer } from "./components/Composer";
import { Conversation } from "./components/Conversation";
import { InfoPanel } from "./components/InfoPanel";
import { TodoPanel } from "./components/TodoPanel";
import { JobsView } from "./components/JobsView";
import { KbPanel } from "./components/KbPanel";
import { McpPanel } from "./components/McpPanel";
import { OpenFolder } from "./components/OpenFolder";
import { OpenSessionContext, TranscriptContext } from "./components/ChildRunView";
import { MediaContext } from "./components/MediaView";
import { ImageContext } from "./components/ImageThumb";
import type { Attachment } from "./state/attachments";
import { SessionList } from "./components/SessionList";
import { SessionTitle } from "./components/SessionTitle";
import { TreeView } from "./components/TreeView";
import { CheckpointsPanel } from "./components/CheckpointsPanel";
import type { KbProgress } from "./protocol";
import type { AppController } from "./state/app";
import { isBusy } from "./state/conversation";
import { saveSession } from "./rpc/token";
import { useTheme } from "./theme";

interface TabSpec {
  id: "chat" | "tree" | "artifacts" | "library" | "jobs" | "kb" | "info";
  label: string;
  /** The capability (system.info) the tab needs; none = always shown. */
  requires?: string;
  /** A capability tab: hidden until system.info advertises `requires` (core tabs show at once). */
  optional?: boolean;
}

const TABS: TabSpec[] = [
  { id: "chat", label: "Chat", requires: "sessions" },
  { id: "tree", label: "Tree", requires: "sessions" },
  { id: "artifacts", label: "Artifacts", requires: "artifacts", optional: true },
  { id: "library", label: "Library", requires: "library", optional: true },
  { id: "jobs", label: "Jobs", requires: "jobs" },
  // Always there: indexing a first folder is done from this tab.
  { id: "kb", label: "Knowledge" },
  { id: "info", label: "Daemon" },
];

export interface AppProps {
  app: AppController;
  onWorkspace: (workspaceId: string) => void;
  /** Offer "Open folder…" (not where the host picks the workspace, as VS Code does). */
  canOpenFolder?: boolean;
  /** The connection gave up: `canRetryToken` when another token may help. */
  onTokenProblem: (message: string, canRetryToken: boolean) => void;
}

/** The whole page once a token is known. */
export function App({ app, onWorkspace, onTokenProblem, canOpenFolder = true }: AppProps) {
  const view = useSyncExternalStore(app.store.subscribe, app.store.get);
  const session = useSyncExternalStore(view.session.store.subscribe, view.session.store.get);
  const [tab, setTab] = useState<TabSpec["id"]>("chat");
  const [model, setModel] = useState<string>("");
  const [theme, toggleTheme] = useTheme();
  // Narrow containers (the VS Code sidebar) show one column: the list opens over the conversation.
  const [listOpen, setListOpen] = useState(false);
  const listToggle = useRef<HTMLButtonElement>(null);

  const { connection, info } = view;
  const conversation = session.conversation;
  const busy = isBusy(conversation);
  const snapshot = session.snapshot;
  const tabs = useMemo(
    () => TABS.filter((t) => !t.requires || (info ? info.capabilities.includes(t.requires) : !t.optional)),
    [info],
  );
  const mcpApi = useMemo(
    () => ({
      list: () => app.call("gg/mcp.list", {}),
      test: (server: string) => app.call("gg/mcp.test", { server }),
    }),
    [app],
  );
  const kbProgress = useCallback(
    (listener: (progress: KbProgress) => void) =>
      app.rpc.transport.onNotification((method, params) => {
        if (method === "gg/kb.progress") listener(params as KbProgress);
      }),
    [app],
  );
  // Before system.info arrives everything is allowed; afterwards only what the daemon advertises.
  const can = (capability: string) => !info || info.capabilities.includes(capability);
  const activeTab = tabs.some((t) => t.id === tab) ? tab : (tabs[0]?.id ?? "info");
  const waiting = Object.entries(view.badges).filter(([id]) => id !== snapshot?.sessionId);

  useEffect(() => {
    if (connection.status === "failed" && connection.error) {
      onTokenProblem(connection.error, connection.failure === "unauthorized");
    }
  }, [connection.status, connection.error, connection.failure, onTokenProblem]);

  useEffect(() => {
    if (snapshot?.sessionId) saveSession(window.sessionStorage, snapshot.sessionId);
    // Whoever opened it (a click in the list, New session, the VS Code host): show the conversation.
    setListOpen(false);
  }, [snapshot?.sessionId]);

  // Whether the list shows the open session yet: one made moments ago is listed by the refresh
  // that follows its events, which may come after the list was opened.
  const currentListed = view.sessions.some((s) => s.id === snapshot?.sessionId);
  // Where opening the list put the focus, while it is still there.
  const listFocus = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (!listOpen) {
      listFocus.current = null;
      return;
    }
    // The user moved on from where the list put them (typed a search, tabbed away): stay there.
    if (listFocus.current && document.activeElement !== listFocus.current) return;
    // Into the list it opened: the current session, or New session until that is listed.
    const list = document.getElementById("session-list");
    const target =
      list?.querySelector<HTMLElement>("[aria-current=true]") ?? list?.querySelector<HTMLElement>("button");
    target?.focus();
    listFocus.current = target ?? null;
  }, [listOpen, currentListed]);

  useEffect(() => {
    if (!model && (snapshot?.model || info?.defaultModel)) setModel(snapshot?.model || info?.defaultModel || "");
  }, [model, snapshot?.model, info?.defaultModel]);

  const send = async (text: string, images?: Attachment[]) => {
    if (!snapshot) {
      const created = await app.session.create(model || undefined);
      if (!created) return;
      void app.refreshSessions();
    }
    await app.session.send(text, model || undefined, images);
  };

  const refreshSessions = useCallback(() => void app.refreshSessions(), [app]);
  const error = session.error ?? view.error;
  const offline =
    connection.status === "reconnecting" || connection.status === "closed" || connection.status === "failed";
  const models = info?.models ?? [];
  const loadMedia = useCallback((mediaId: string) => app.rpc.call("gg/media.get", { mediaId }), [app]);
  const loadImage = useCallback((imageId: string) => app.rpc.call("gg/image.get", { imageId }), [app]);
  const openChild = useCallback((sessionId: string) => void app.openSession(sessionId), [app]);
  const loadTranscript = useCallback(
    async (sessionId: string) => (await app.rpc.call("gg/session.get", { sessionId })).messages,
    [app],
  );

  return (
    <MediaContext.Provider value={loadMedia}>
      <TranscriptContext.Provider value={loadTranscript}>
        <OpenSessionContext.Provider value={openChild}>
          <div className="app">
            <a className="skip-link" href="#composer-anchor">
              Skip to composer
            </a>
            <header className="topbar">
              <button
                ref={listToggle}
                type="button"
                className="btn small list-toggle"
                aria-expanded={listOpen}
                aria-controls="session-list"
                onClick={() => setListOpen((open) => !open)}
                data-testid="list-toggle"
              >
                <span aria-hidden="true">{listOpen ? "▴" : "▾"} </span>Sessions
              </button>
              <span className="brand">gg</span>
              <label className="field">
                <span>Workspace</span>
                <select
                  value={view.workspace?.id ?? ""}
                  onChange={(event) => onWorkspace(event.target.value)}
                  aria-label="Workspace"
                  disabled={view.workspaces.length < 2}
                >
                  {view.workspace && !view.workspaces.some((w) => w.id === view.workspace?.id) ? (
                    <option value={view.workspace.id}>{view.workspace.name}</option>
                  ) : null}
                  {view.workspaces.map((w) => (
                    <option key={w.id} value={w.id}>
                      {w.name}
                    </option>
                  ))}
                </select>
              </label>
              {canOpenFolder ? (
                <OpenFolder open={(root) => app.rpc.call("gg/workspace.open", { root })} onOpened={onWorkspace} />
              ) : null}
              {models.length > 0 ? (
                <label className="field">
                  <span>Model</span>
                  <select value={model} onChange={(event) => setModel(event.target.value)} aria-label="Model">
                    {model && !models.includes(model) ? <option value={model}>{model}</option> : null}
                    {models.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                </label>
              ) : null}
              {waiting.length > 0 ? (
                <button
                  type="button"
                  className="btn waiting"
                  onClick={() => void app.openSession(waiting[0][0])}
                  data-testid="waiting-badge"
                >
                  {waiting.length} session{waiting.length > 1 ? "s" : ""} waiting for approval
                </button>
              ) : null}
              <span className="spacer" />
              <ConnectionStatus state={connection} />
              <button
                type="button"
                className="btn small"
                onClick={toggleTheme}
                aria-label={`Switch to ${theme === "dark" ? "light" : "dark"} theme`}
              >
                {theme === "dark" ? "Light" : "Dark"} theme
              </button>
            </header>
            {info?.demo ? (
              <div className="demo-banner" role="note" data-testid="demo-banner">
                Demo model: answers are scripted, not from a real model. Start ggd with a model (
                <code>--model provider:model</code> and an API key) for real work.
              </div>
            ) : null}
            {error ? (
              <div className="error-bar" role="alert" data-testid="error">
                <span>{error}</span>
                <button
                  type="button"
                  className="btn small ghost"
                  onClick={() => {
                    app.session.clearError();
                    app.clearError();
                  }}
                  aria-label="Dismiss error"
                >
                  Dismiss
                </button>
              </div>
            ) : null}
            {session.notice ? (
              <div className="notice-bar" role="status" data-testid="session-notice">
                <span>{session.notice}</span>
                <button
                  type="button"
                  className="btn small ghost"
                  onClick={() => app.session.clearNotice()}
                  aria-label="Dismiss notice"
                >
                  Dismiss
                </button>
              </div>
            ) : null}
            <div className={`layout${listOpen ? " list-open" : ""}`}>
              <SessionList
                id="session-list"
                onEscape={
                  listOpen
                    ? () => {
                        setListOpen(false);
                        listToggle.current?.focus();
                      }
                    : undefined
                }
                sessions={view.sessions}
                currentId={snapshot?.sessionId ?? null}
                badges={view.badges}
                onOpen={(id) => {
                  setListOpen(false);
                  void app.openSession(id);
                }}
                onNew={() => {
                  setListOpen(false);
                  void app.newSession();
                }}
                onMore={view.nextCursor ? () => void app.loadMoreSessions() : undefined}
              />
              <main className="main">
                {snapshot ? (
                  <>
                    <SessionTitle
                      key={snapshot.sessionId}
                      name={snapshot.name}
                      onRename={(name) => void app.session.rename(name)}
                    />
                    {snapshot.parentSessionId ? (
                      <div className="child-of" data-testid="child-of">
                        Subagent <strong>{snapshot.agent ?? "agent"}</strong>, started by a task in{" "}
                        <button
                          type="button"
                          className="btn small ghost"
                          onClick={() => void app.openSession(snapshot.parentSessionId as string)}
                        >
                          its parent session
                        </button>
                      </div>
                    ) : null}
                  </>
                ) : (
                  <div className="session-title">
                    <h1>New conversation</h1>
                  </div>
                )}
                <div role="tablist" aria-label="Views" className="tabs">
                  {tabs.map((t) => (
                    <button
                      key={t.id}
                      type="button"
                      role="tab"
                      id={`tab-${t.id}`}
                      aria-selected={activeTab === t.id}
                      aria-controls={`panel-${t.id}`}
                      tabIndex={activeTab === t.id ? 0 : -1}
                      className={`tab${activeTab === t.id ? " selected" : ""}`}
                      onClick={() => setTab(t.id)}
                      onKeyDown={(event) => {
                        if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
                        const at = tabs.findIndex((x) => x.id === t.id);
                        const next = tabs[(at + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
                        setTab(next.id);
                        document.getElementById(`tab-${next.id}`)?.focus();
                      }}
                    >
                      {t.label}
                    </button>
                  ))}
                </div>
                <div className={`workarea${activeTab === "chat" ? "" : " with-side"}`}>
                  <div
                    className="panel chat-panel"
                    {...(activeTab === "chat"
                      ? { role: "tabpanel", id: "panel-chat", "aria-labelledby": "tab-chat" }
                      : { role: "region", "aria-label": "Conversation" })}
                  >
                    <ImageContext.Provider value={loadImage}>
                      <Conversation
                        conversation={conversation}
                        onApprove={(id, allow, scope) => void app.session.approve(id, allow, scope)}
                        onFork={(entryId) => void app.session.action("fork", entryId)}
                      />
                    </ImageContext.Provider>
                  </div>
                  {activeTab === "chat" ? null : (
                    <aside
                      role="tabpanel"
                      id={`panel-${activeTab}`}
                      aria-labelledby={`tab-${activeTab}`}
                      className="panel side-panel"
                    >
                      <button
                        type="button"
                        className="btn small ghost side-close"
                        aria-label="Close the side panel"
                        onClick={() => setTab("chat")}
                      >
                        ✕
                      </button>
                      {activeTab === "tree" ? (
                        <CheckpointsPanel
                          client={app.rpc}
                          sessionId={snapshot?.sessionId ?? null}
                          busy={busy}
                          checkoutWithFiles={(id, confirm) => app.session.checkoutWithFiles(id, confirm)}
                        >
                          {(open) => (
                            <TreeView
                              tree={snapshot?.tree ?? []}
                              busy={busy}
                              onCheckout={(id) => void app.session.action("tree", id).then(() => setTab("chat"))}
                              onFork={(id) => void app.session.action("fork", id).then(() => setTab("chat"))}
                              onClone={() => void app.session.action("clone").then(() => setTab("chat"))}
                              onRestoreFiles={(id) => open("restore", id)}
                              onTurnDiff={(id) => open("diff", id)}
                            />
                          )}
                        </CheckpointsPanel>
                      ) : null}
                      {activeTab === "artifacts" ? <ArtifactsPanel key={view.workspace?.id} client={app.rpc} /> : null}
                      {activeTab === "library" ? <LibraryPanel key={view.workspace?.id} client={app.rpc} /> : null}
                      {activeTab === "jobs" ? (
                        <JobsView
                          key={view.workspace?.id ?? ""}
                          client={app.rpc}
                          onOpenSession={(id) => void app.openSession(id).then(() => setTab("chat"))}
                          onJobEvent={refreshSessions}
                        />
                      ) : null}
                      {activeTab === "kb" ? (
                        <KbPanel
                          client={app.rpc}
                          progress={kbProgress}
                          onAsk={(prompt) => {
                            app.session.offerDraft(prompt);
                            setTab("chat");
                          }}
                        />
                      ) : null}
                      {activeTab === "info" ? <InfoPanel info={info} /> : null}
                      {activeTab === "info" && info?.capabilities.includes("mcp") ? <McpPanel api={mcpApi} /> : null}
                    </aside>
                  )}
                </div>
                <div id="composer-anchor" />
                {offline ? (
                  <div className="offline-banner" role="alert" data-testid="offline-banner">
                    <strong>Connection to gg lost.</strong>{" "}
                    {connection.status === "reconnecting"
                      ? `Reconnecting in ${Math.ceil((connection.retryInMs ?? 0) / 1000)} s (attempt ${connection.attempt})…`
                      : (connection.error ?? "Not reconnecting.")}{" "}
                    Sending is paused until the daemon is back; your text stays in the box.
                  </div>
                ) : null}
                <TodoPanel todos={session.todos} />
                <Composer
                  mode={session.mode}
                  onMode={(mode) => app.session.setMode(mode)}
                  busy={busy}
                  disabled={connection.status !== "open" || !can("runs")}
                  disabledReason={offline ? "Disconnected from gg: waiting to reconnect…" : undefined}
                  canSteer={can("steering")}
                  draft={session.draft}
                  queued={session.queued}
                  onSend={(text, images) => void send(text, images)}
                  onSteer={(text, followUp) => void app.session.steer(text, followUp)}
                  onStop={() => void app.session.cancel()}
                />
              </main>
            </div>
          </div>
        </OpenSessionContext.Provider>
      </TranscriptContext.Provider>
    </MediaContext.Provider>
  );
}
