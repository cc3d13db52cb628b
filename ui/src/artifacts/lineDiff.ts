/** Work above this many line pairs falls back to a whole-block replacement (artifacts go up to 1 MiB). */
const MAX_CELLS = 4_000_000;

/**
 * A unified-style diff of two texts, line by line: common prefix and suffix kept as context,
 * the middle aligned by longest common subsequence when small enough.
 */
export function lineDiff(before: string, after: string, fromLabel: string, toLabel: string): string {
  const a = before.replace(/\n$/, "").split("\n");
  const b = after.replace(/\n$/, "").split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  for (const line of a.slice(Math.max(0, start - 3), start)) out.push(` ${line}`);
  out.push(...middle(a.slice(start, endA), b.slice(start, endB)));
  for (const line of a.slice(endA, endA + 3)) out.push(` ${line}`);
  if (start === a.length && start === b.length) out.push(" (no change)");
  return out.join("\n") + "\n";
}

function middle(a: string[], b: string[]): string[] {
  if (a.length * b.length > MAX_CELLS) return [...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)];
  // lcs[i][j]: length of the LCS of a[i..] and b[j..]
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push(`-${a[i++]}`);
    } else {
      out.push(`+${b[j++]}`);
    }
  }
  while (i < a.length) out.push(`-${a[i++]}`);
  while (j < b.length) out.push(`+${b[j++]}`);
  return out;
}
