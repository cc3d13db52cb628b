"""The web UI as the VS Code chat view shows it: in a 320 px webview, behind a postMessage host.

A stand-in for the extension's bridge (clients/vscode/src/bridge.ts) is injected before the page
loads: `acquireVsCodeApi()` returns a host that owns one WebSocket to a real ggd, relays the page's
JSON-RPC, forwards gg/run.event and gg/session.event, and can post `{gg: "host", command:
"openSession", sessionId}`. Like the extension's "gg: Ask", the test starts a run on that one
connection and then asks the page to open the session: the page must show the run live.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from ..daemon import TOKEN
from .conftest import PageWatch, WebDaemon, screenshot
from .test_web_ui import wait_phase, write_call

pytestmark = pytest.mark.browser

Pages = Callable[..., PageWatch]
Start = Callable[..., WebDaemon]

# The extension's side, in the page's own realm (the real host is another process).
FAKE_HOST = """
(() => {
  const token = __TOKEN__;
  const toPage = (data) => window.postMessage(data, "*");
  const pending = new Map();
  const queue = [];
  let state = { status: "connecting", attempt: 0 };
  let nextId = 0;
  const ws = new WebSocket(`ws://${location.host}/ws`, ["gg.v1", `gg-token.${token}`]);
  const send = (message) => {
    const text = JSON.stringify({ jsonrpc: "2.0", ...message });
    if (state.status === "open") ws.send(text);
    else queue.push(text);
  };
  ws.onopen = () =>
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: "host-init", method: "initialize",
      params: { processId: null, clientInfo: { name: "fake-vscode", version: "0" }, capabilities: {} } }));
  ws.onmessage = (event) => {
    const m = JSON.parse(event.data);
    if (m.id === "host-init") {
      ws.send(JSON.stringify({ jsonrpc: "2.0", method: "initialized", params: {} }));
      const gg = m.result.capabilities.experimental.gg;
      state = { status: "open", attempt: 0, server: { name: "ggd", version: "", gg } };
      for (const text of queue.splice(0)) ws.send(text);
      toPage({ gg: "state", state });
      return;
    }
    if (typeof m.id === "string" && pending.has(m.id)) {
      const { resolve, reject } = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) reject(new Error(m.error.message));
      else resolve(m.result);
      return;
    }
    if (m.method === "gg/run.event" || m.method === "gg/session.event") {
      window.__host.events.push(m.params);
      toPage({ gg: "rpc", message: m });
    } else if (typeof m.id === "number") {
      toPage({ gg: "rpc", message: m });
    }
  };
  window.__host = {
    events: [],
    request(method, params) {
      const id = `host-${nextId++}`;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        send({ id, method, params });
      });
    },
    openSession(sessionId) {
      toPage({ gg: "host", command: "openSession", sessionId });
    },
  };
  window.acquireVsCodeApi = () => ({
    postMessage(envelope) {
      if (envelope.gg === "hello") toPage({ gg: "state", state });
      else if (envelope.gg === "rpc") send(envelope.message);
    },
  });
})();
"""


def test_open_session_from_the_host_shows_its_live_run(ggd_web: Start, pages: Pages) -> None:
    web = ggd_web([write_call("ext.txt", "x\n"), {"text": "Written from the extension's run."}])
    watch = pages(viewport=(320, 700))
    page: Any = watch.page
    page.add_init_script(FAKE_HOST.replace("__TOKEN__", json.dumps(TOKEN)))
    page.goto(web.daemon.http_url)
    page.wait_for_selector("[data-testid=connection][data-status=open]")

    # "gg: Ask": the extension creates a session and starts a run on its own connection.
    started = page.evaluate(
        """async () => {
          const snap = await __host.request("gg/session.create", {});
          const run = await __host.request("gg/run.start",
            { sessionId: snap.sessionId, prompt: "Write ext.txt", interactive: true });
          return { sessionId: snap.sessionId, runId: run.runId };
        }"""
    )
    # The page already gets that run's events (the bridge forwards them) but shows another view.
    page.wait_for_function(
        "() => __host.events.some(e => e.type === 'approval_requested')", polling=50
    )
    assert page.get_by_test_id("approval-card").count() == 0

    page.evaluate("id => __host.openSession(id)", started["sessionId"])
    card = page.get_by_test_id("approval-card")
    card.wait_for()
    page.get_by_test_id("msg-user").filter(has_text="Write ext.txt").wait_for()
    wait_phase(page, "waiting_approval")
    screenshot(page, "narrow-host-open")
    # The page subscribed to the run, and the session (unknown to it so far) is listed.
    row = page.locator(f"[data-testid=session-row][data-session-id='{started['sessionId']}']")
    assert row.count() == 1
    card.press("a")
    wait_phase(page, "completed")
    page.get_by_test_id("msg-assistant").filter(
        has_text="Written from the extension's run."
    ).wait_for()
    assert page.get_by_test_id("msg-assistant").count() == 1
