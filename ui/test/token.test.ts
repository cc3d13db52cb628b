import { describe, expect, it } from "vitest";
import { socketUrl, takeToken, type TokenStorage } from "../src/rpc/token";

function memory(): TokenStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

describe("takeToken", () => {
  it("moves the token from the fragment to sessionStorage and cleans the URL", () => {
    window.history.replaceState(null, "", "/app?x=1#token=abc123");
    const storage = memory();
    expect(takeToken(window.location, window.history, storage)).toBe("abc123");
    expect(storage.data.get("gg.token")).toBe("abc123");
    expect(window.location.hash).toBe("");
    expect(window.location.search).toBe("?x=1");
    // A reload (no fragment) finds it again.
    expect(takeToken(window.location, window.history, storage)).toBe("abc123");
  });

  it("derives the socket URL from the page", () => {
    expect(socketUrl({ protocol: "http:", host: "127.0.0.1:8123" } as Location)).toBe("ws://127.0.0.1:8123/ws");
  });
});
