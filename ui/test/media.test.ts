import { describe, expect, it } from "vitest";
import { mediaIdIn } from "../src/components/MediaView";
import { itemsFromMessages } from "../src/state/conversation";
import type { Message } from "../src/protocol";

describe("media in tool cards", () => {
  it("finds the media id a stored tool result names, and none in errors", () => {
    const messages = [
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c1", name: "image_generate", arguments: { prompt: "a blue box" } },
          { id: "c2", name: "tts", arguments: { text: "hi" } },
        ],
        timestamp: 1,
      },
      {
        role: "tool",
        toolCallId: "c1",
        toolName: "image_generate",
        content: "image saved as media m_0123456789abcdef (image/png, 9 bytes)",
        timestamp: 2,
      },
      {
        role: "tool",
        toolCallId: "c2",
        toolName: "tts",
        isError: true,
        content: "no m_fedcba9876543210 here: failed",
        timestamp: 3,
      },
    ] as unknown as Message[];
    const tools = itemsFromMessages(messages).filter((i) => i.kind === "tool");
    expect(tools.map((t) => (t.kind === "tool" ? [t.summary, t.mediaId] : []))).toEqual([
      ["a blue box", "m_0123456789abcdef"],
      ["hi", undefined],
    ]);
  });

  it("only accepts the exact id shape", () => {
    expect(mediaIdIn("see m_0123456789abcdef.")).toBe("m_0123456789abcdef");
    expect(mediaIdIn("m_0123 short, m_0123456789ABCDEF upper")).toBeUndefined();
  });
});
