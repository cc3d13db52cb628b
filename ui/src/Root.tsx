import { useCallback, useEffect, useState } from "react";
import { App } from "./App";
import { AppController } from "./state/app";
import type { HostCommands } from "./rpc/hostCommands";
import { PostMessageTransport, type MessageTarget } from "./rpc/postMessage";
import { httpAuthProbe, WebSocketTransport } from "./rpc/websocket";
import { saveToken, saveWorkspace, savedSession, savedWorkspace, socketUrl } from "./rpc/token";

function connect(token: string): AppController {
  const health = `${window.location.origin}/health`;
  return new AppController(
    (workspaceId) =>
      new WebSocketTransport({
        url: socketUrl(window.location),
        token,
        workspaceId,
        checkAuth: httpAuthProbe(health, token),
      }),
    savedWorkspace(window.sessionStorage),
    savedSession(window.sessionStorage),
  );
}

/** Picks the token (from the URL fragment, sessionStorage, or the user) and runs the app. */
export function Root({
  initialToken,
  host,
  commands = null,
}: {
  initialToken: string | null;
  host: MessageTarget | null;
  /** The host's commands (openSession), listened to since the page script started. */
  commands?: HostCommands | null;
}) {
  return host ? <BridgedRoot host={host} commands={commands} /> : <TokenRoot initialToken={initialToken} />;
}

function BridgedRoot({ host, commands }: { host: MessageTarget; commands: HostCommands | null }) {
  const [app, setApp] = useState<AppController | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AppController(
      () => new PostMessageTransport(host, window),
      undefined,
      savedSession(window.sessionStorage),
    );
    setApp(controller);
    // "gg: Ask" / "gg: Open Sessions" in the extension: show that session (and its live run).
    const stopListening = commands?.listen((command) => void controller.showSession(command.sessionId));
    return () => {
      stopListening?.();
      controller.close();
    };
  }, [host, commands]);
  if (problem) {
    return (
      <main className="token-page">
        <p className="error-bar" role="alert" data-testid="connect-error">
          {problem}
        </p>
      </main>
    );
  }
  return app ? (
    <App
      app={app}
      onWorkspace={() => undefined}
      canOpenFolder={false}
      onTokenProblem={(message) => setProblem(message)}
    />
  ) : null;
}

function TokenRoot({ initialToken }: { initialToken: string | null }) {
  const [token, setToken] = useState<string | null>(initialToken);
  const [attempt, setAttempt] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [askToken, setAskToken] = useState(true);
  const [app, setApp] = useState<AppController | null>(null);

  useEffect(() => {
    if (!token) return;
    const controller = connect(token);
    setApp(controller);
    return () => controller.close();
  }, [token, attempt]);

  const onWorkspace = useCallback(
    (workspaceId: string) => {
      saveWorkspace(window.sessionStorage, workspaceId);
      app?.switchWorkspace(workspaceId);
    },
    [app],
  );
  const onTokenProblem = useCallback((message: string, canRetryToken: boolean) => {
    setProblem(message);
    setAskToken(canRetryToken);
  }, []);

  if (problem && !askToken) {
    return (
      <main className="token-page">
        <h1>gg</h1>
        <p className="error-bar" role="alert" data-testid="connect-error">
          {problem}
        </p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          Reload
        </button>
      </main>
    );
  }
  if (!token || problem) {
    return (
      <TokenForm
        problem={problem}
        onToken={(next) => {
          saveToken(window.sessionStorage, next);
          setProblem(null);
          setApp(null);
          setToken(next);
          setAttempt((n) => n + 1);
        }}
      />
    );
  }
  return app ? <App app={app} onWorkspace={onWorkspace} onTokenProblem={onTokenProblem} /> : null;
}

function TokenForm({ problem, onToken }: { problem: string | null; onToken: (token: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <main className="token-page">
      <h1>gg</h1>
      {problem ? (
        <p className="error-bar" role="alert" data-testid="connect-error">
          {problem}
        </p>
      ) : (
        <p>
          Open the address that <code>ggd --ws</code> printed (it ends in <code>#token=…</code>), or paste the token
          here.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <label>
          Access token
          <input type="password" value={value} onChange={(event) => setValue(event.target.value)} autoComplete="off" />
        </label>
        <button type="submit" className="btn primary">
          Connect
        </button>
      </form>
    </main>
  );
}
