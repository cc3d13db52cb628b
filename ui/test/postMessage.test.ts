import { describe, expect, it } from "vitest";
import { GgClient } from "../src/rpc/client";
import { PostMessageTransport, type BridgeEnvelope } from "../src/rpc/postMessage";
import type { TransportState } from "../src/rpc/transport";
import { flush, runEvent } from "./fakes";

function bridge() {
  const posted: unknown[] = [];
  const source = new EventTarget();
  const transport = new PostMessageTransport({ postMessage: (m) => posted.push(m) }, source as unknown as Window);
  const fromHost = (envelope: BridgeEnvelope) => source.dispatchEvent(new MessageEvent("message", { data: envelope }));
  return { posted, transport, fromHost };
}

const hello = { name: "ggd", version: "0.1.0", gg: { protocolVersion: "1.0", capabilities: ["sessions"] } };

describe("PostMessageTransport", () => {
  it("relays requests and answers, notifications and host state", async () => {
    const { posted, transport, fromHost } = bridge();
    const states: TransportState[] = [];
    transport.onStateChange((s) => states.push(s));
    fromHost({ gg: "state", state: { status: "open", attempt: 0, server: hello } });
    expect(states.at(-1)?.status).toBe("open");
    const answer = transport.request("gg/session.list", { limit: 5 });
    const sent = posted.at(-1) as { gg: string; message: { id: number; method: string } };
    expect(sent).toMatchObject({ gg: "rpc", message: { method: "gg/session.list", params: { limit: 5 } } });
    fromHost({ gg: "rpc", message: { jsonrpc: "2.0", id: sent.message.id, result: { sessions: [] } } });
    await expect(answer).resolves.toEqual({ sessions: [] });
    const seen: string[] = [];
    transport.onNotification((method) => seen.push(method));
    fromHost({ gg: "rpc", message: { jsonrpc: "2.0", method: "gg/session.event", params: {} } });
    expect(seen).toEqual(["gg/session.event"]);
  });

  it("lets GgClient resume runs when the host reconnects", async () => {
    const { posted, transport, fromHost } = bridge();
    const client = new GgClient(transport);
    fromHost({ gg: "state", state: { status: "open", attempt: 0, server: hello } });
    const subscribed = client.subscribeRun("r1", 0);
    const first = (posted.at(-1) as { message: { id: number } }).message.id;
    fromHost({ gg: "rpc", message: { jsonrpc: "2.0", id: first, result: {} } });
    await subscribed;
    fromHost({
      gg: "rpc",
      message: { jsonrpc: "2.0", method: "gg/run.event", params: runEvent(5, "text_delta", { text: "x" }) },
    });
    fromHost({ gg: "state", state: { status: "reconnecting", attempt: 1, retryInMs: 500 } });
    fromHost({ gg: "state", state: { status: "open", attempt: 0, server: hello, resumed: true } });
    await flush();
    expect(posted.at(-1)).toMatchObject({
      gg: "rpc",
      message: { method: "gg/run.subscribe", params: { runId: "r1", afterSequence: 5 } },
    });
  });
});
