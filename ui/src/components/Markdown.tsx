import type { Element, ElementContent } from "hast";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./CodeBlock";

function textOf(nodes: ElementContent[]): string {
  return nodes.map((n) => (n.type === "text" ? n.value : n.type === "element" ? textOf(n.children) : "")).join("");
}

/** A fenced block's code element and language, from react-markdown's hast `pre` node. */
function fenced(node: Element | undefined): { code: string; language?: string } | null {
  const code = node?.children.find((c): c is Element => c.type === "element" && c.tagName === "code");
  if (!code) return null;
  const className = code.properties?.className;
  const classes = Array.isArray(className) ? className.map(String) : [];
  const language = classes.find((c) => c.startsWith("language-"))?.slice("language-".length);
  return { code: textOf(code.children).replace(/\n$/, ""), language };
}

// No rehype-raw: raw HTML in model output is shown as text, never executed. react-markdown's default
// urlTransform drops javascript: and other unsafe link targets.
const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
  img: ({ alt }) => <span className="md-img">[image: {alt ?? ""}]</span>,
  pre: ({ node, children }) => {
    const block = fenced(node);
    return block ? <CodeBlock code={block.code} language={block.language} /> : <pre>{children}</pre>;
  },
  table: ({ children }) => (
    <div className="md-table">
      <table>{children}</table>
    </div>
  ),
};

/** Model text rendered as Markdown, safely (no raw HTML, no remote images). */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml={false} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
