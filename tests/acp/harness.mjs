// Shared by the ACP tests: where the repo and its venv are, the scripted fake model, timeouts.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PYTHON = process.env.GG_PYTHON || join(ROOT, ".venv", "bin", "python");

/** Start the fake model on a script; resolves with its base URL (first stdout line) and the process. */
export function startModel(dir, script) {
  const scriptPath = join(dir, "script.json");
  writeFileSync(scriptPath, JSON.stringify(script));
  const proc = spawn(PYTHON, ["-m", "tests.fakes.fake_openai", "--script", scriptPath], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((ok, fail) => {
    proc.once("error", fail);
    createInterface({ input: proc.stdout }).once("line", (url) => ok({ url: url.trim(), proc }));
  });
}

/** The promise, or a rejection naming what was awaited once ms have passed. */
export function withTimeout(promise, ms, what) {
  let timer;
  const limit = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
