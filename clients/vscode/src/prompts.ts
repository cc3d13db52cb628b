// Prompt text for the editor commands. The agent reads files itself (it runs in the workspace), so a
// prompt names the file and carries only what the user selected. No vscode import.

/** Longest selection sent inline; longer ones are cut with a note (the agent can read the file). */
export const MAX_SELECTION_CHARS = 20000;

/** A fence that the text itself cannot close. */
function fence(text: string): string {
  let ticks = "```";
  while (text.includes(ticks)) ticks += "`";
  return ticks;
}

/** Prompt for gg: Ask About Selection. */
export function selectionPrompt(question: string, file: string, startLine: number, endLine: number, languageId: string, text: string): string {
  let body = text;
  let note = "";
  if (body.length > MAX_SELECTION_CHARS) {
    body = body.slice(0, MAX_SELECTION_CHARS);
    note = `\n(The selection was cut at ${MAX_SELECTION_CHARS} characters; read the file for the rest.)`;
  }
  const f = fence(body);
  return `${question.trim()}\n\nSelection from \`${file}\`, lines ${startLine}-${endLine}:\n\n${f}${languageId}\n${body}\n${f}${note}`;
}

/** Prompt for gg: Explain File. */
export function explainFilePrompt(file: string): string {
  return `Explain the file \`${file}\`: what it is for, how it is structured, and anything surprising in it. Read it first.`;
}

/** Files gg: Ask About Image attaches (the formats every model API takes). */
export const IMAGE_EXTENSIONS = [".png", ".jpg", ".jpeg", ".webp", ".gif"];

/** Whether a path names an image gg can attach. */
export function isImageFile(path: string): boolean {
  const lower = path.toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/**
 * gg/run.start `images` for image files on this machine: ggd (local, like the editor) reads,
 * checks and downscales them by path.
 */
export function imageParams(paths: string[]): { path: string }[] {
  return paths.filter(isImageFile).map((path) => ({ path }));
}
