import type { ElementContent } from "hast";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";

type Highlight = typeof import("./highlight").highlight;
let loaded: Highlight | null = null;
let loading: Promise<Highlight> | null = null;

/** The highlighter, loaded once on demand (a separate chunk: most pages never show code). */
export function loadHighlighter(): Promise<Highlight> {
  loading ??= import("./highlight").then((module) => (loaded = module.highlight));
  return loading;
}

function useHighlighter(wanted: boolean): Highlight | null {
  const [fn, setFn] = useState<Highlight | null>(() => loaded);
  useEffect(() => {
    if (!wanted || fn) return;
    let live = true;
    loadHighlighter().then(
      (f) => live && setFn(() => f),
      () => undefined, // plain text then
    );
    return () => {
      live = false;
    };
  }, [wanted, fn]);
  return fn;
}

/** React nodes from lowlight's tree: only spans with classes and text, so no raw HTML is involved. */
function render(nodes: ElementContent[], prefix: string): ReactNode[] {
  return nodes.map((node, i) => {
    if (node.type === "text") return node.value;
    if (node.type !== "element") return null;
    const className = node.properties?.className;
    const classes = Array.isArray(className) ? className.join(" ") : undefined;
    return (
      <span key={`${prefix}${i}`} className={classes}>
        {render(node.children, `${prefix}${i}.`)}
      </span>
    );
  });
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Older webviews without the async clipboard API.
  const area = document.createElement("textarea");
  area.value = text;
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("copy refused");
}

/** A fenced code block: language label, copy button, highlighted code. */
export function CodeBlock({ code, language }: { code: string; language?: string }) {
  const highlight = useHighlighter(Boolean(language));
  const tree = useMemo(() => (highlight ? highlight(code, language) : null), [highlight, code, language]);
  const [copied, setCopied] = useState<"" | "copied" | "failed">("");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const onCopy = () => {
    const shown = (state: "copied" | "failed") => {
      setCopied(state);
      // The label stays 2 s from when the copy finished, however long the clipboard took.
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(""), 2000);
    };
    copyText(code).then(
      () => shown("copied"),
      () => shown("failed"),
    );
  };
  const label = language || "text";
  return (
    <div className="code-block" data-testid="code-block" data-language={label}>
      <div className="code-head">
        <span className="code-lang">{label}</span>
        <button type="button" className="btn small ghost code-copy" onClick={onCopy} aria-label={`Copy ${label} code`}>
          {copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
        </button>
      </div>
      <pre>
        <code className={tree ? `hljs language-${language}` : undefined}>
          {tree ? render(tree.children as ElementContent[], "") : code}
        </code>
      </pre>
    </div>
  );
}
