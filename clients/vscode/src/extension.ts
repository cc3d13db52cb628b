// gg for VS Code: one language-client connection to ggd (gg bridge or ggd --stdio) shared by the chat
// view, the commands, the approval notifications and the status bar. Agent behaviour stays in ggd.
import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions, State } from "vscode-languageclient/node";
import type { FilesResult, RunEvent, SessionEvent, SessionListResult, Snapshot, RunStartResult } from "../../../protocol/gg-protocol";
import { APPROVAL_CHOICES, approvalMessage, approveParams } from "./approvals";
import { toBridgeError } from "./bridge";
import type { BridgeHello, BridgeState } from "./bridgeProtocol";
import { ChatViewProvider } from "./chatView";
import { OVERWRITE, previewText, restoreQuestion } from "./files";
import { explainFilePrompt, IMAGE_EXTENSIONS, imageParams, selectionPrompt } from "./prompts";
import { childLine, RunTracker } from "./runs";
import { checkProtocol, readSettings, serverCommand } from "./server";

const SESSION_KEY = "gg.currentSession";

class GgHost implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private state: BridgeState = { status: "closed", attempt: 0 };
  private everOpen = false;
  private readonly tracker = new RunTracker();
  // Answers of runs started by commands stream here; the connection logs go to their own channel.
  private readonly output = vscode.window.createOutputChannel("gg");
  private readonly connectionLog = vscode.window.createOutputChannel("gg: connection", { log: true });
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  private readonly ownRuns = new Set<string>();
  readonly chat: ChatViewProvider;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.chat = new ChatViewProvider(
      context.extensionUri,
      { sendRequest: (m, p) => this.request(m, p), sendNotification: (m, p) => this.client?.sendNotification(m, p) },
      () => this.state,
      () => void this.ensureStarted(),
      (line) => this.connectionLog.warn(line),
    );
    this.status.command = "gg.openSessions";
    this.refreshStatus();
    this.status.show();
  }

  private get currentSession(): string | undefined {
    return this.context.workspaceState.get<string>(SESSION_KEY);
  }

  private setCurrentSession(id: string): Thenable<void> {
    return this.context.workspaceState.update(SESSION_KEY, id);
  }

  private setState(state: BridgeState): void {
    this.state = state;
    this.chat.setState(state);
    if (state.status !== "open") this.tracker.reset();
    this.refreshStatus();
  }

  private refreshStatus(): void {
    const view = this.tracker.status(this.state.status === "open");
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
  }

  /** Start the connection once; resolves undefined when it cannot start. */
  ensureStarted(): Promise<LanguageClient | undefined> {
    if (this.client && this.state.status === "open") return Promise.resolve(this.client);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<LanguageClient | undefined> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const settings = readSettings((key) => vscode.workspace.getConfiguration("gg").get(key));
    const cmd = serverCommand(settings, folder?.uri.fsPath);
    // No `transport` key: with TransportKind.stdio the client appends "--stdio" to the arguments,
    // which `gg bridge` rejects. Plain Executable options already talk over stdin/stdout.
    const serverOptions: ServerOptions = { command: cmd.command, args: cmd.args, options: { cwd: folder?.uri.fsPath } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [], // gg is not a language server for documents: no text sync at all
      // The extension has its own gg.ask & co.: the server's plain-LSP commands of the same names
      // would make vscode-languageclient register them again (VS Code rejects duplicates).
      initializationOptions: { editorCommands: false },
      workspaceFolder: folder,
      outputChannel: this.connectionLog,
      connectionOptions: { maxRestartCount: 4 },
      initializationFailedHandler: (err) => {
        this.connectionLog.error(`initialize failed: ${err instanceof Error ? err.message : String(err)}`);
        return false;
      },
    };
    const client = new LanguageClient("gg", "gg", serverOptions, clientOptions);
    client.onNotification("gg/run.event", (p: RunEvent) => this.onRunEvent(p));
    client.onNotification("gg/session.event", (p: SessionEvent) => this.onSessionEvent(p));
    client.onDidChangeState((e) => {
      if (e.newState === State.Starting) this.setState({ status: this.everOpen ? "reconnecting" : "connecting", attempt: 0 });
      else if (e.newState === State.Stopped) this.setState({ status: "closed", attempt: 0 });
      else if (e.newState === State.Running && client.initializeResult) this.onOpen(client);
    });
    this.client = client;
    this.setState({ status: "connecting", attempt: 0 });
    try {
      await client.start();
    } catch (err) {
      const message = `gg could not connect to ggd via \`${cmd.command} ${cmd.args.join(" ")}\`. Is gg installed?`;
      this.setState({ status: "failed", attempt: 1, error: message });
      void vscode.window.showErrorMessage(message);
      this.connectionLog.error(String(err));
      return undefined;
    }
    const refused = checkProtocol(client.initializeResult);
    if (refused) {
      await client.stop();
      this.setState({ status: "failed", attempt: 1, error: refused });
      void vscode.window.showErrorMessage(refused);
      return undefined;
    }
    this.onOpen(client);
    return client;
  }

  private onOpen(client: LanguageClient): void {
    const init = client.initializeResult as { serverInfo?: { name?: string; version?: string }; capabilities?: { experimental?: { gg?: BridgeHello["gg"] } } } | undefined;
    const gg = init?.capabilities?.experimental?.gg;
    if (!gg) return;
    const server: BridgeHello = { name: init?.serverInfo?.name ?? "ggd", version: init?.serverInfo?.version ?? "", gg };
    this.setState({ status: "open", attempt: 0, server, resumed: this.everOpen });
    this.everOpen = true;
  }

  private async request<T = unknown>(method: string, params: unknown): Promise<T> {
    const client = await this.ensureStarted();
    if (!client) throw toBridgeError(null);
    return client.sendRequest<T>(method, params);
  }

  private onRunEvent(ev: RunEvent): void {
    this.chat.forward("gg/run.event", ev);
    const run = this.tracker.apply(ev);
    if (!run) return;
    this.refreshStatus();
    if (this.ownRuns.has(ev.runId)) this.echo(ev);
    // The chat view answers approvals of the session it shows; anything else gets a notification.
    if (ev.type === "approval_requested" && !this.chat.showsApprovalsFor(ev.sessionId)) void this.askApproval(ev.runId, ev.approval);
    if (run.phase === "completed" || run.phase === "failed" || run.phase === "canceled") this.ownRuns.delete(ev.runId);
  }

  private onSessionEvent(ev: SessionEvent): void {
    this.chat.forward("gg/session.event", ev);
  }

  /** The output channel mirrors runs started by commands, so answers are visible without the view. */
  private echo(ev: RunEvent): void {
    switch (ev.type) {
      case "text_delta":
        this.output.append(ev.text);
        break;
      case "tool_call_start":
        this.output.appendLine(`\n[tool ${ev.toolName}] ${ev.summary}`);
        break;
      case "tool_call_finish":
        this.output.appendLine(`[tool ${ev.toolName}] ${ev.isError ? "failed" : "done"}`);
        break;
      case "plan_updated": {
        // The chat view draws the list as a panel; the output channel gets it as text.
        const marks = { completed: "[x]", in_progress: "[~]", pending: "[ ]" } as const;
        const done = ev.todos.filter((t) => t.status === "completed").length;
        this.output.appendLine(`\n[todo list ${done}/${ev.todos.length} done]`);
        for (const t of ev.todos) this.output.appendLine(`  ${marks[t.status]} ${t.content}`);
        break;
      }
      case "run_completed":
        this.output.appendLine("\n[done]");
        break;
      case "run_failed":
        this.output.appendLine(`\n[failed] ${ev.error}`);
        break;
      case "run_canceled":
        this.output.appendLine("\n[canceled]");
        break;
      case "child_run_started":
      case "child_run_progress":
      case "child_run_finished":
        this.output.appendLine(childLine(ev) ?? "");
        break;
      default:
        break;
    }
  }

  private async askApproval(runId: string, approval: Parameters<typeof approvalMessage>[0]): Promise<void> {
    const choice = await vscode.window.showWarningMessage(approvalMessage(approval), ...APPROVAL_CHOICES);
    const params = approveParams(runId, approval, choice);
    if (!params) return; // dismissed: the chat view can still answer
    try {
      await this.request("gg/run.approve", params);
    } catch (err) {
      // approval_expired: someone answered first (the chat view, another client). Nothing to do.
      const e = toBridgeError(err);
      if (e.data?.code !== "approval_expired") void vscode.window.showErrorMessage(`gg: ${e.message}`);
    }
  }

  async newSession(): Promise<string | undefined> {
    try {
      const snap = await this.request<Snapshot>("gg/session.create", {});
      await this.setCurrentSession(snap.sessionId);
      await this.chat.showSession(snap.sessionId);
      return snap.sessionId;
    } catch (err) {
      void vscode.window.showErrorMessage(`gg: ${toBridgeError(err).message}`);
      return undefined;
    }
  }

  /** Start a run with a prompt (and images: gg/run.start `images` entries, prompts.imageParams). */
  async ask(prompt: string, images?: { path: string }[]): Promise<void> {
    const sessionId = this.currentSession ?? (await this.newSession());
    if (!sessionId) return;
    const approvalMode = vscode.workspace.getConfiguration("gg").get<string>("approvalMode") || undefined;
    try {
      const params = { sessionId, prompt, interactive: true, approvalMode, ...(images?.length ? { images } : {}) };
      const res = await this.request<RunStartResult>("gg/run.start", params);
      this.ownRuns.add(res.runId);
      this.output.appendLine(`\n> ${prompt.split("\n")[0]}`);
      await this.chat.showSession(sessionId);
    } catch (err) {
      const e = toBridgeError(err);
      if (e.data?.code === "session_not_found") {
        await this.context.workspaceState.update(SESSION_KEY, undefined);
        return this.ask(prompt, images);
      }
      if (e.data?.code === "run_conflict") {
        // A turn is already running in this session: the text steers it instead.
        await this.request("gg/run.steer", { sessionId, text: prompt }).catch(() => undefined);
        return;
      }
      void vscode.window.showErrorMessage(`gg: ${e.message}`);
    }
  }

  async openSessions(): Promise<void> {
    try {
      const res = await this.request<SessionListResult>("gg/session.list", { limit: 100 });
      const items = res.sessions.map((s) => ({
        label: s.name || s.preview || s.id,
        description: `${s.messageCount} messages${s.activeRunId ? " · running" : ""}`,
        detail: s.name ? s.preview : undefined,
        id: s.id,
      }));
      if (items.length === 0) {
        void vscode.window.showInformationMessage("gg: no sessions yet. Use gg: Ask to start one.");
        return;
      }
      const pick = await vscode.window.showQuickPick(items, { placeHolder: "Open a gg session", matchOnDetail: true });
      if (!pick) return;
      await this.setCurrentSession(pick.id);
      await this.chat.showSession(pick.id);
    } catch (err) {
      void vscode.window.showErrorMessage(`gg: ${toBridgeError(err).message}`);
    }
  }

  async cancelRun(): Promise<void> {
    const current = this.currentSession;
    const run = (current && this.tracker.activeFor(current)) || this.tracker.active()[0];
    if (!run) {
      void vscode.window.showInformationMessage("gg: nothing is running.");
      return;
    }
    await this.request("gg/run.cancel", { runId: run.runId }).catch((err) => vscode.window.showErrorMessage(`gg: ${toBridgeError(err).message}`));
  }

  /** gg: Undo Files / Redo Files: show the files and patch, ask, then restore. */
  async restoreFiles(verb: "undo" | "redo"): Promise<void> {
    const sessionId = this.currentSession;
    if (!sessionId) {
      void vscode.window.showInformationMessage("gg: no current session (gg: Open Sessions).");
      return;
    }
    try {
      const method = `gg/session.${verb}`;
      const preview = await this.request<FilesResult>(method, { sessionId, preview: true });
      await this.showText(previewText(`${verb}: ${preview.files.length} file(s) would change`, preview));
      const q = restoreQuestion(verb, preview);
      const choice = await vscode.window.showWarningMessage(q.message, { modal: true }, ...q.choices);
      if (!choice) return;
      const done = await this.request<FilesResult>(method, { sessionId, confirmConflicts: choice === OVERWRITE });
      void vscode.window.showInformationMessage(`gg ${verb}: ${done.files.length} file(s) restored.`);
    } catch (err) {
      void vscode.window.showErrorMessage(`gg: ${toBridgeError(err).message}`);
    }
  }

  /** gg: Show Last Turn's Changes: the files and the patch of the last turn. */
  async showDiff(): Promise<void> {
    const sessionId = this.currentSession;
    if (!sessionId) {
      void vscode.window.showInformationMessage("gg: no current session (gg: Open Sessions).");
      return;
    }
    try {
      const res = await this.request<FilesResult>("gg/session.diff", { sessionId });
      await this.showText(previewText(`turn ${res.turn ?? ""} changed ${res.files.length} file(s)`, res));
    } catch (err) {
      void vscode.window.showErrorMessage(`gg: ${toBridgeError(err).message}`);
    }
  }

  private async showText(content: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument({ language: "diff", content });
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  dispose(): void {
    this.status.dispose();
    this.output.dispose();
    this.connectionLog.dispose();
    void this.client?.stop();
  }
}

let host: GgHost | undefined;

/** Activate: register the view, the commands and the status bar; connect on first use. */
export function activate(context: vscode.ExtensionContext): void {
  host = new GgHost(context);
  const h = host;
  context.subscriptions.push(
    h,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, h.chat, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand("gg.newSession", () => h.newSession()),
    vscode.commands.registerCommand("gg.ask", async () => {
      const prompt = await vscode.window.showInputBox({ prompt: "Ask gg", placeHolder: "What should gg do?" });
      if (prompt) await h.ask(prompt);
    }),
    vscode.commands.registerCommand("gg.askSelection", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.selection.isEmpty) {
        void vscode.window.showInformationMessage("gg: select some code first.");
        return;
      }
      const question = await vscode.window.showInputBox({ prompt: "Ask gg about the selection", value: "Explain this code." });
      if (!question) return;
      const sel = editor.selection;
      const file = vscode.workspace.asRelativePath(editor.document.uri);
      await h.ask(selectionPrompt(question, file, sel.start.line + 1, sel.end.line + 1, editor.document.languageId, editor.document.getText(sel)));
    }),
    vscode.commands.registerCommand("gg.explainFile", async (uri?: vscode.Uri) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target) {
        void vscode.window.showInformationMessage("gg: open a file first.");
        return;
      }
      await h.ask(explainFilePrompt(vscode.workspace.asRelativePath(target)));
    }),
    vscode.commands.registerCommand("gg.askAboutImage", async (uri?: vscode.Uri, picked?: vscode.Uri[]) => {
      // From the explorer (one or several selected files), else a file picker.
      let uris = picked?.length ? picked : uri ? [uri] : [];
      if (uris.length === 0) {
        uris =
          (await vscode.window.showOpenDialog({
            canSelectMany: true,
            filters: { Images: IMAGE_EXTENSIONS.map((e) => e.slice(1)) },
            openLabel: "Attach",
          })) ?? [];
      }
      const images = imageParams(uris.filter((u) => u.scheme === "file").map((u) => u.fsPath));
      if (images.length === 0) {
        void vscode.window.showInformationMessage("gg: pick a PNG, JPEG, WebP or GIF file.");
        return;
      }
      const question = await vscode.window.showInputBox({ prompt: "Ask gg about the image", placeHolder: "What is wrong in this screenshot?" });
      if (question) await h.ask(question, images);
    }),
    vscode.commands.registerCommand("gg.openSessions", () => h.openSessions()),
    vscode.commands.registerCommand("gg.cancelRun", () => h.cancelRun()),
    vscode.commands.registerCommand("gg.undoFiles", () => h.restoreFiles("undo")),
    vscode.commands.registerCommand("gg.redoFiles", () => h.restoreFiles("redo")),
    vscode.commands.registerCommand("gg.showTurnDiff", () => h.showDiff()),
  );
}

/** Deactivate: stop the connection (exit closes this connection only; a shared daemon keeps running). */
export async function deactivate(): Promise<void> {
  host?.dispose();
  host = undefined;
}
