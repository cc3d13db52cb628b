import type { GgClient } from "../rpc/client";

/** A prompt starting with this forces a skill: `/skill:release 1.4.0`. */
export const FORCE_PREFIX = "/skill:";

/**
 * The prompt to send to gg/run.start: a leading `/skill:<name>` is expanded by the daemon
 * (gg/skill.expand inlines the skill's SKILL.md); any other text is sent as typed. An unknown
 * skill rejects with the daemon's message, which lists the known ones.
 */
export async function expandSkillPrompt(client: Pick<GgClient, "call">, text: string): Promise<string> {
  if (!text.trimStart().startsWith(FORCE_PREFIX)) return text;
  const { prompt } = await client.call("gg/skill.expand", { prompt: text });
  return prompt;
}
