import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, PROTOCOL_VERSION, majorOf } from "../src/protocol";

const generated = readFileSync(resolve(__dirname, "../../protocol/gg-protocol.d.ts"), "utf8");

describe("protocol constants", () => {
  it("match the generated declarations", () => {
    expect(generated).toContain(`export const PROTOCOL_VERSION = "${PROTOCOL_VERSION}";`);
    expect(generated).toContain(`event_history_expired: ${ErrorCode.eventHistoryExpired},`);
    expect(generated).toContain(`approval_expired: ${ErrorCode.approvalExpired},`);
    expect(majorOf("1.7")).toBe("1");
  });
});
