// The pure parts of the extension: run tracking, approval mapping, prompts, server command, webview HTML.
import assert from "node:assert/strict";
import test from "node:test";
import type { Approval, RunEvent } from "../../../protocol/gg-protocol";
import { approvalMessage, approveParams, APPROVAL_CHOICES } from "../src/approvals";
import { fileLines, OVERWRITE, previewText, RESTORE, restoreQuestion } from "../src/files";
import { explainFilePrompt, imageParams, isImageFile, MAX_SELECTION_CHARS, selectionPrompt } from "../src/prompts";
import { childLine, RunTracker } from "../src/runs";
import { checkProtocol, readSettings, serverCommand } from "../src/server";
import { makeNonce, webviewHtml } from "../src/webviewHtml";

const approval: Approval = { id: "a1", toolName: "bash", summary: "rm -rf build", risk: "dangerous", riskReason: "deletes files" };
let seq = 0;
const ev = (e: Record<string, unknown>): RunEvent => ({ runId: "r1", sessionId: "s1", sequence: ++seq, timestamp: 0, ...e }) as unknown as RunEvent;

test("run tracker: running -> waiting for approval -> running -> completed", () => {
  seq = 0;
  const t = new RunTracker();
  assert.equal(t.status(true).text, "$(check) gg: idle");
  t.apply(ev({ type: "run_started" }));
  assert.equal(t.status(true).text, "$(loading~spin) gg: running");
  t.apply(ev({ type: "approval_requested", approval }));
  assert.equal(t.activeFor("s1")?.phase, "waiting_approval");
  assert.equal(t.status(true).text, "$(bell) gg: approval needed");
  assert.match(t.status(true).tooltip, /bash: rm -rf build/);
  t.apply(ev({ type: "approval_resolved", approvalId: "a1", allow: true, by: "user" }));
  assert.equal(t.activeFor("s1")?.phase, "running");
  t.apply(ev({ type: "run_completed", content: "ok" }));
  assert.equal(t.activeFor("s1"), undefined);
  assert.equal(t.status(true).text, "$(check) gg: idle");
  assert.equal(t.status(false).text, "$(debug-disconnect) gg");
});

test("run tracker ignores replayed events and remembers failures", () => {
  seq = 0;
  const t = new RunTracker();
  const first = ev({ type: "text_delta", text: "a" });
  assert.ok(t.apply(first));
  assert.equal(t.apply(first), undefined, "a replay of the same sequence is a duplicate");
  t.apply(ev({ type: "run_failed", error: "model unreachable", retryable: true }));
  assert.equal(t.status(true).text, "$(error) gg: failed");
  assert.match(t.status(true).tooltip, /model unreachable/);
  seq = 0;
  t.apply({ ...ev({ type: "run_started" }), runId: "r2" } as RunEvent);
  t.apply({ ...ev({ type: "run_canceled" }), runId: "r2" } as RunEvent);
  assert.equal(t.status(true).text, "$(circle-slash) gg: canceled");
});

test("run tracker shows the last run's cost, and a budget stop by name", () => {
  seq = 0;
  const t = new RunTracker();
  t.apply(ev({ type: "run_started" }));
  const totals = { promptTokens: 2200, completionTokens: 150, totalTokens: 2350, cacheReadTokens: 1800 };
  t.apply(ev({ type: "usage", promptTokens: 1200, completionTokens: 50, totalTokens: 1250, run: { ...totals, costUsd: 0.0029 } }));
  t.apply(ev({ type: "run_completed", content: "ok", usage: { ...totals, costUsd: 0.0029 } }));
  assert.equal(t.status(true).text, "$(check) gg: idle · $0.0029");
  assert.equal(t.status(true).tooltip, "gg: ready; the last run used 2,350 tokens (1,800 cached) · $0.0029");
  seq = 0;
  t.apply({ ...ev({ type: "run_completed", content: "ok", usage: { totalTokens: 10 } }), runId: "r3" } as RunEvent);
  assert.equal(t.status(true).text, "$(check) gg: idle", "no price: tokens only, no cost");
  seq = 0;
  const stop = "run budget reached: 2350 tokens of maxTokens 1500; raise it with ...";
  t.apply({ ...ev({ type: "run_failed", error: stop, errorCode: "budget_exceeded", usage: totals }), runId: "r2" } as RunEvent);
  assert.equal(t.status(true).text, "$(error) gg: budget reached");
  assert.match(t.status(true).tooltip, /maxTokens 1500; raise it with .* \(spent 2,350 tokens \(1,800 cached\)\)/);
});

test("approval notification text and answers", () => {
  assert.equal(approvalMessage(approval), "gg wants to run bash: rm -rf build [dangerous] (deletes files)");
  assert.equal(approvalMessage({ id: "a", toolName: "write", summary: "write a.txt", risk: "normal" }), "gg wants to run write: write a.txt");
  assert.deepEqual([...APPROVAL_CHOICES], ["Allow", "Allow for Session", "Deny"]);
  assert.deepEqual(approveParams("r", approval, "Allow"), { runId: "r", approvalId: "a1", allow: true, scope: "once" });
  assert.deepEqual(approveParams("r", approval, "Allow for Session"), { runId: "r", approvalId: "a1", allow: true, scope: "session" });
  assert.deepEqual(approveParams("r", approval, "Deny"), { runId: "r", approvalId: "a1", allow: false, scope: "once" });
  assert.equal(approveParams("r", approval, undefined), undefined, "dismissing answers nothing");
});

test("selection prompt fences code safely and cuts huge selections", () => {
  const p = selectionPrompt("Why?", "src/a.ts", 3, 5, "typescript", "const s = '```';");
  assert.equal(p, "Why?\n\nSelection from `src/a.ts`, lines 3-5:\n\n````typescript\nconst s = '```';\n````");
  const big = selectionPrompt("Q", "f", 1, 1, "", "x".repeat(MAX_SELECTION_CHARS + 10));
  assert.ok(big.includes("cut at 20000 characters"));
  assert.ok(big.length < MAX_SELECTION_CHARS + 300);
  assert.match(explainFilePrompt("src/b.py"), /`src\/b\.py`/);
});

test("server command: gg bridge by default, ggd --stdio on request", () => {
  const defaults = readSettings(() => undefined);
  assert.deepEqual(defaults, { server: "bridge", ggPath: "gg", ggdPath: "ggd" });
  assert.deepEqual(serverCommand(defaults, "/w"), { command: "gg", args: ["bridge"] });
  const stdio = readSettings(<T>(k: string) => ({ server: "stdio", ggdPath: "/venv/bin/ggd" })[k] as T | undefined);
  assert.deepEqual(serverCommand(stdio, "/w"), { command: "/venv/bin/ggd", args: ["--stdio", "--exit-on-stdin-eof", "--workspace", "/w"] });
});

test("protocol check refuses another major and non-gg servers", () => {
  const init = (v: unknown) => ({ capabilities: { experimental: { gg: { protocolVersion: v } } } });
  assert.equal(checkProtocol(init("1.0")), undefined);
  assert.equal(checkProtocol(init("1.7")), undefined);
  assert.match(checkProtocol(init("2.0")) ?? "", /protocol 2\.0.*needs 1\.x/);
  assert.match(checkProtocol({ capabilities: {} }) ?? "", /not ggd/);
});

test("webview HTML maps assets, sets a strict CSP and marks the bridge transport", () => {
  const index = `<!doctype html><html><head><meta charset="UTF-8" /><link rel="icon" href="data:," />
<script type="module" crossorigin src="./assets/index-1.js"></script>
<link rel="stylesheet" crossorigin href="/assets/index-2.css"></head><body><div id="root"></div></body></html>`;
  const html = webviewHtml(index, { assetBase: "https://file+.vscode-resource/ext/media/web/", cspSource: "https://*.vscode-cdn.net", nonce: "N0NCE" });
  assert.ok(html.includes('src="https://file+.vscode-resource/ext/media/web/assets/index-1.js"'));
  assert.ok(html.includes('href="https://file+.vscode-resource/ext/media/web/assets/index-2.css"'));
  assert.ok(html.includes('href="data:,"'), "data: URLs stay");
  assert.ok(html.includes("connect-src 'none'"), "the page has no network: only postMessage");
  assert.ok(html.includes("script-src 'nonce-N0NCE' https://*.vscode-cdn.net"));
  assert.ok(html.includes('window.__GG_TRANSPORT__ = "vscode"'));
  assert.equal((html.match(/<script(?![^>]*nonce="N0NCE")/g) ?? []).length, 0, "every script carries the nonce");
  assert.match(makeNonce((n) => new Uint8Array(n).fill(7)), /^[A-Za-z0-9]+$/);
});

test("ask about image: only PNG, JPEG, WebP and GIF files become gg/run.start images", () => {
  assert.ok(isImageFile("/w/shot.PNG") && isImageFile("a.jpeg") && isImageFile("b.webp"));
  assert.ok(!isImageFile("/w/notes.txt") && !isImageFile("old.bmp") && !isImageFile("png"));
  assert.deepEqual(imageParams(["/w/a.png", "/w/b.txt", "/w/c.gif"]), [{ path: "/w/a.png" }, { path: "/w/c.gif" }]);
});

test("webview CSP lets the page draw images it fetched by id (blob: URLs), nothing remote", () => {
  const html = webviewHtml("<html><head></head><body></body></html>", { assetBase: "vscode-resource:/w", cspSource: "vscode-resource:", nonce: "n1" });
  const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
  assert.match(csp, /img-src vscode-resource: data: blob:(;|$)/);
  assert.match(csp, /connect-src 'none'/);
});

test("files: a restore's preview lists the files and asks; conflicts need the overwrite choice", () => {
  const res = {
    applied: false,
    target: "t",
    current: "c",
    files: [
      { path: "app.py", status: "modified" as const, additions: 1, deletions: 1 },
      { path: "logo.png", status: "added" as const, additions: null, deletions: null },
    ],
    conflicts: [],
    patch: "diff --git a/app.py b/app.py",
    skipped: ["big.bin"],
  };
  assert.deepEqual(fileLines(res), ["M      +1 -1  app.py", "A     binary  logo.png", "(skipped, over the size limit: big.bin)"]);
  assert.match(previewText("undo: 2 file(s) would change", res), /^undo: 2 file\(s\) would change\nM [^]*\n\ndiff --git/);
  assert.deepEqual(restoreQuestion("undo", res), { message: "gg undo: restore 2 file(s)?", choices: [RESTORE] });
  const q = restoreQuestion("redo", { ...res, conflicts: ["app.py"] });
  assert.deepEqual(q.choices, [OVERWRITE]);
  assert.match(q.message, /1 changed outside gg since the last checkpoint \(app\.py\)/);
});

test("a subagent's progress is one output line each, and its approvals name the agent", () => {
  seq = 0;
  const base = { toolCallId: "t1", childRunId: "r2", childSessionId: "s2", agent: "explore" };
  assert.equal(childLine(ev({ type: "child_run_started", ...base, description: "look" })), "  [subagent explore] started: look");
  assert.equal(childLine(ev({ type: "child_run_progress", ...base, text: "read a.py", turns: 1, toolCalls: 1 })), "  [subagent explore] read a.py");
  assert.equal(
    childLine(ev({ type: "child_run_finished", ...base, status: "completed", turns: 2, toolCalls: 1 })),
    "  [subagent explore] completed (2 turns, 1 tools)",
  );
  assert.equal(childLine(ev({ type: "text_delta", text: "x" })), undefined);
  assert.match(approvalMessage({ ...approval, agent: "general" }), /^gg's subagent general wants to run bash/);
});
