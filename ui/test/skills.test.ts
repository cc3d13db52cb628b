import { describe, expect, it } from "vitest";
import { expandSkillPrompt } from "../src/state/skills";

/** A client double that records calls and answers like the daemon's gg/skill.expand. */
function fakeClient(answer: (prompt: string) => string) {
  const calls: Array<{ method: string; params: { prompt: string } }> = [];
  const client = {
    call: async (method: string, params: { prompt: string }) => {
      calls.push({ method, params });
      return { prompt: answer(params.prompt), skill: "release" };
    },
  };
  return { client: client as never, calls };
}

describe("expandSkillPrompt", () => {
  it("asks the daemon to expand a leading /skill:", async () => {
    const { client, calls } = fakeClient((p) => `<skill name="release">body</skill>\n\n${p.slice(15)}`);
    const out = await expandSkillPrompt(client, "/skill:release 1.4.0");
    expect(calls).toEqual([{ method: "gg/skill.expand", params: { prompt: "/skill:release 1.4.0" } }]);
    expect(out).toBe('<skill name="release">body</skill>\n\n1.4.0');
  });

  it("sends any other text unchanged without a request", async () => {
    const { client, calls } = fakeClient(() => "never");
    expect(await expandSkillPrompt(client, "please use /skill:release")).toBe("please use /skill:release");
    expect(calls).toEqual([]);
  });

  it("passes the daemon's error on (unknown skill)", async () => {
    const client = {
      call: async () => {
        throw new Error("unknown skill 'nope'; known skills: release");
      },
    };
    await expect(expandSkillPrompt(client as never, "/skill:nope x")).rejects.toThrow("known skills: release");
  });
});
