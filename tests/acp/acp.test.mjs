// `ggd --acp` driven by the official ACP TypeScript SDK: read, edit with a permission answered
// allow, the edit delivered through fs/write_text_file, then a cancel. No daemon runs, so the
// adapter starts its private `ggd --stdio` child; the model is the scripted fake on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { PYTHON, ROOT, startModel, withTimeout } from "./harness.mjs";


const SCRIPT = {
  steps: [
    { text: "Reading.", toolCalls: [{ id: "call_read", name: "read", arguments: { path: "README.md" } }] },
    {
      text: "Editing.",
      toolCalls: [
        {
          id: "call_edit",
          name: "edit",
          arguments: { path: "README.md", edits: [{ oldText: "# demo", newText: "# edited from node" }] },
        },
      ],
    },
    { text: "Edited." },
    { text: "A first word", hang: true },
  ],
};

test("ggd --acp: prompt, permission, fs/write_text_file and cancel", { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "gg-acp-"));
  const home = join(dir, "home");
  const ws = join(dir, "project");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(ws);
  writeFileSync(join(ws, "README.md"), "# demo\n");
  const model = await startModel(dir, SCRIPT);
  const env = { ...process.env, GG_HOME: home, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "test-key", GG_MODEL: "fake-model" };
  const agent = spawn(PYTHON, ["-m", "ggd.daemon", "--acp"], { cwd: ROOT, env, stdio: ["pipe", "pipe", "inherit"] });

  const updates = [];
  const permissions = [];
  const writes = [];
  const waiters = []; // [predicate, resolve]: woken by the update handler, no polling
  const waitFor = (pred) =>
    new Promise((ok) => (pred() ? ok() : waiters.push([pred, ok])));
  const app = acp
    .client({ name: "gg-acp-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
      for (const w of waiters.splice(0)) (w[0]() ? w[1]() : waiters.push(w));
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      writes.push(params);
      writeFileSync(params.path, params.content);
      return {};
    });
  const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
  try {
    await app.connectWith(stream, async (ctx) => {
      const init = await withTimeout(
        ctx.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
        }),
        60_000,
        "initialize",
      );
      assert.equal(init.protocolVersion, 1);
      assert.equal(init.agentCapabilities.loadSession, true);
      const { sessionId, modes } = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
      assert.equal(modes.currentModeId, "auto");

      const done = await withTimeout(
        ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "edit the title" }] }),
        90_000,
        "the first prompt",
      );
      assert.equal(done.stopReason, "end_turn");
      assert.equal(readFileSync(join(ws, "README.md"), "utf8"), "# edited from node\n");
      assert.deepEqual(writes.map((w) => [w.path, w.content]), [[join(ws, "README.md"), "# edited from node\n"]]);
      assert.equal(permissions.length, 1);
      assert.equal(permissions[0].toolCall.kind, "edit");
      assert.deepEqual(permissions[0].options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"]);
      const calls = updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => [u.toolCallId, u.kind]);
      assert.deepEqual(calls, [["call_read", "read"], ["call_edit", "edit"]]);
      const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
      assert.match(text, /Edited\./);

      // The next step hangs mid-stream: cancel once its first words arrived.
      const before = updates.length;
      const second = ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go on" }] });
      await withTimeout(
        waitFor(() => updates.slice(before).some((u) => u.sessionUpdate === "agent_message_chunk")),
        60_000,
        "streamed text of the second prompt",
      );
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      const canceled = await withTimeout(second, 60_000, "the canceled prompt");
      assert.equal(canceled.stopReason, "cancelled");
    });
  } finally {
    agent.stdin.end();
    await withTimeout(new Promise((r) => (agent.exitCode !== null ? r() : agent.once("exit", r))), 30_000, "ggd --acp to exit").catch(() => agent.kill());
    model.proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
