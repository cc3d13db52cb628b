import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Root } from "./Root";
import { HostCommands } from "./rpc/hostCommands";
import type { MessageTarget } from "./rpc/postMessage";
import { takeToken } from "./rpc/token";
import "./styles.css";

declare global {
  interface Window {
    /** Present inside a VS Code webview; may be called once. */
    acquireVsCodeApi?: () => MessageTarget;
  }
}

// Inside a VS Code webview the extension owns the daemon connection: talk to it by postMessage.
const host = typeof window.acquireVsCodeApi === "function" ? window.acquireVsCodeApi() : null;
// Listen for the host's commands now: it may post before React has mounted, and it says things once.
const commands = host ? new HostCommands(window) : null;
const token = host ? null : takeToken(window.location, window.history, window.sessionStorage);
const container = document.getElementById("root");
if (container) {
  createRoot(container).render(
    <StrictMode>
      <Root initialToken={token} host={host} commands={commands} />
    </StrictMode>,
  );
}
