import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe("source rules", () => {
  const sources = files(resolve(__dirname, "../src"));

  it("uses no `any` type", () => {
    const offenders = sources.filter((path) => /(:\s*any\b|\bas any\b|<any>|any\[\])/.test(readFileSync(path, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("never renders raw HTML", () => {
    const offenders = sources.filter((path) =>
      /dangerouslySetInnerHTML|from "rehype-raw"|innerHTML\s*=/.test(readFileSync(path, "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});
