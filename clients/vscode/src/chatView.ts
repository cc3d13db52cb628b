// The chat view: a webview that runs the gg web UI build and talks to ggd through WebviewBridge.
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as vscode from "vscode";
import { type RpcPort, WebviewBridge } from "./bridge";
import type { BridgeState } from "./bridgeProtocol";
import { makeNonce, missingUiHtml, webviewHtml } from "./webviewHtml";

/** Provides the gg.chat webview view and relays it to the shared connection. */
export class ChatViewProvider implements vscode.WebviewViewProvider {
  static readonly viewId = "gg.chat";
  private view: vscode.WebviewView | undefined;
  private bridge: WebviewBridge | undefined;
  private pendingOpen: string | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly rpc: RpcPort,
    private readonly currentState: () => BridgeState,
    private readonly onFirstShow: () => void,
    private readonly log: (line: string) => void,
  ) {}

  /** True when the view is on screen and its page follows the session (it shows the approval). */
  showsApprovalsFor(sessionId: string): boolean {
    return (this.view?.visible ?? false) && (this.bridge?.watches(sessionId) ?? false);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const webRoot = vscode.Uri.joinPath(this.extensionUri, "media", "web");
    view.webview.options = { enableScripts: true, localResourceRoots: [webRoot] };
    const index = vscode.Uri.joinPath(webRoot, "index.html").fsPath;
    view.webview.html = fs.existsSync(index)
      ? webviewHtml(fs.readFileSync(index, "utf8"), {
          assetBase: view.webview.asWebviewUri(webRoot).toString(),
          cspSource: view.webview.cspSource,
          nonce: makeNonce((n) => crypto.randomBytes(n)),
        })
      : missingUiHtml(view.webview.cspSource);
    this.bridge = new WebviewBridge(view.webview, this.rpc, this.log);
    this.bridge.setState(this.currentState());
    if (this.pendingOpen) this.bridge.openSession(this.pendingOpen);
    this.pendingOpen = undefined;
    view.onDidDispose(() => {
      this.bridge?.dispose();
      this.bridge = undefined;
      this.view = undefined;
    });
    this.onFirstShow();
  }

  /** Pass the connection state on. */
  setState(state: BridgeState): void {
    this.bridge?.setState(state);
  }

  /** Pass a daemon notification on. */
  forward(method: string, params: unknown): void {
    this.bridge?.forward(method, params);
  }

  /** Reveal the view and ask the UI to show a session. */
  async showSession(sessionId: string): Promise<void> {
    if (this.bridge) this.bridge.openSession(sessionId);
    else this.pendingOpen = sessionId;
    await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }
}
