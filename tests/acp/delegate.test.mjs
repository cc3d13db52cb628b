// `ggd --acp` with a TypeScript SDK client that offers its buffers and a terminal: the model's read
// sees the unsaved buffer, and bash runs through terminal/* in a real child process of this test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { PYTHON, ROOT, startModel, withTimeout } from "./harness.mjs";


const SCRIPT = {
  steps: [
    { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "README.md" } }] },
    { toolCalls: [{ id: "call_bash", name: "bash", arguments: { command: "echo from-node-terminal > out.txt; cat out.txt" } }] },
    { text: "Done." },
  ],
};

/** A terminal that really runs the command; output and exit are kept for terminal/output. */
function runTerminal({ command, args, cwd }) {
  const child = spawn(command, args || [], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const term = { child, output: "", exit: null };
  child.stdout.on("data", (b) => (term.output += b));
  child.stderr.on("data", (b) => (term.output += b));
  term.done = new Promise((ok) => child.once("close", (code, signal) => ok((term.exit = { exitCode: code, signal }))));
  return term;
}

test("ggd --acp: read through the editor's buffer, bash in its terminal", { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "gg-acp-delegate-"));
  const home = join(dir, "home");
  const ws = join(dir, "project");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(ws);
  const readme = join(ws, "README.md");
  writeFileSync(readme, "# demo\n");
  const buffers = new Map([[readme, "# demo\nunsaved in the node editor\n"]]);
  const model = await startModel(dir, SCRIPT);
  const env = { ...process.env, GG_HOME: home, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "test-key", GG_MODEL: "fake-model" };
  const agent = spawn(PYTHON, ["-m", "ggd.daemon", "--acp"], { cwd: ROOT, env, stdio: ["pipe", "pipe", "inherit"] });

  const updates = [];
  const created = [];
  const released = [];
  const terms = new Map();
  const app = acp
    .client({ name: "gg-acp-delegate-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => updates.push(params.update))
    .onRequest(acp.methods.client.session.requestPermission, async () => ({
      outcome: { outcome: "selected", optionId: "allow_once" },
    }))
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: buffers.get(params.path) ?? "" }))
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      created.push(params);
      const id = `t${created.length}`;
      terms.set(id, runTerminal(params));
      return { terminalId: id };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => terms.get(params.terminalId).done)
    .onRequest(acp.methods.client.terminal.output, ({ params }) => {
      const t = terms.get(params.terminalId);
      return { output: t.output, truncated: false, exitStatus: t.exit ?? undefined };
    })
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      terms.get(params.terminalId).child.kill("SIGKILL");
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      released.push(params.terminalId);
      return {};
    });
  const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
  try {
    await app.connectWith(stream, async (ctx) => {
      await withTimeout(
        ctx.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        }),
        60_000,
        "initialize",
      );
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
      const done = await withTimeout(
        ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "look and run" }] }),
        90_000,
        "the prompt",
      );
      assert.equal(done.stopReason, "end_turn");
    });
    const seen = await (await fetch(new URL("/_fake/requests", model.url))).json();
    const toolMessages = seen.requests.flatMap((r) => r.messages).filter((m) => m.role === "tool");
    const read = toolMessages.find((m) => m.tool_call_id === "call_read");
    assert.match(read.content, /unsaved in the node editor/); // the buffer, not the disk
    const bash = toolMessages.find((m) => m.tool_call_id === "call_bash");
    assert.match(bash.content, /from-node-terminal/);
    assert.match(bash.content, /\[exit code: 0\]/);
    assert.equal(created.length, 1);
    assert.equal(created[0].command, "bash");
    assert.deepEqual(created[0].args, ["-c", "echo from-node-terminal > out.txt; cat out.txt"]);
    assert.equal(created[0].cwd, ws);
    assert.ok(existsSync(join(ws, "out.txt"))); // the terminal's child ran it, in the workspace
    assert.deepEqual(released, ["t1"]);
    const terminalShown = updates.some(
      (u) => u.toolCallId === "call_bash" && (u.content || []).some((c) => c.type === "terminal" && c.terminalId === "t1"),
    );
    assert.ok(terminalShown, "the bash tool card embeds the editor's terminal");
  } finally {
    agent.stdin.end();
    await withTimeout(new Promise((r) => (agent.exitCode !== null ? r() : agent.once("exit", r))), 30_000, "ggd --acp to exit").catch(() => agent.kill());
    model.proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
