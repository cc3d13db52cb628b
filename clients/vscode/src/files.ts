// The workspace files of a session (docs/checkpoints.md): the text of a restore's preview and the
// choices offered, kept free of the vscode API so the unit tests run them in node.
import type { FilesResult } from "../../../protocol/gg-protocol";

const MARK: Record<string, string> = { added: "A", modified: "M", deleted: "D", mode: "T" };

export const RESTORE = "Restore";
export const OVERWRITE = "Restore and overwrite";

/** One line per file (A/M/D/T, +added -removed, path), the skipped and the conflicting files. */
export function fileLines(res: FilesResult): string[] {
  const out = res.files.map((f) => {
    const counts = f.additions == null ? "binary" : `+${f.additions} -${f.deletions ?? 0}`;
    return `${MARK[f.status] ?? "?"} ${counts.padStart(10)}  ${f.path}`;
  });
  for (const p of res.skipped ?? []) out.push(`(skipped, over the size limit: ${p})`);
  for (const p of res.conflicts ?? []) out.push(`! changed outside gg: ${p}`);
  return out;
}

/** The preview document: a title, the file lines, then the patch (shown with the diff language). */
export function previewText(title: string, res: FilesResult): string {
  const parts = [title, ...fileLines(res)];
  if (res.patch) parts.push("", res.patch);
  return parts.join("\n");
}

/** The question and choices of a restore: a second, explicit choice when it overwrites conflicts. */
export function restoreQuestion(verb: string, res: FilesResult): { message: string; choices: string[] } {
  const n = res.files.length;
  const conflicts = res.conflicts ?? [];
  if (conflicts.length > 0) {
    return {
      message: `gg ${verb}: ${n} file(s) would change; ${conflicts.length} changed outside gg since the last checkpoint (${conflicts.slice(0, 3).join(", ")}${conflicts.length > 3 ? ", ..." : ""}).`,
      choices: [OVERWRITE],
    };
  }
  return { message: `gg ${verb}: restore ${n} file(s)?`, choices: [RESTORE] };
}
