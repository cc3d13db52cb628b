import type { Root } from "hast";
import { createLowlight } from "lowlight";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

// Loaded on the first code block (its own chunk), with a few common languages and their aliases
// (sh, py, js, ts, html, yml, ...): the whole highlight.js set would triple the bundle.
const lowlight = createLowlight({ bash, css, diff, go, javascript, json, python, rust, sql, typescript, xml, yaml });
lowlight.registerAlias({ bash: ["shell", "console", "zsh"], typescript: ["tsx"], javascript: ["jsx"] });

/** The hast of highlighted code, or null when the language is unknown. */
export function highlight(code: string, language: string | undefined): Root | null {
  if (!language || !lowlight.registered(language)) return null;
  try {
    return lowlight.highlight(language, code);
  } catch {
    return null;
  }
}
