import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

// No rehype-raw: raw HTML in model output is shown as text, never executed. react-markdown's default
// urlTransform drops javascript: and other unsafe link targets.
const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
  img: ({ alt }) => <span className="md-img">[image: {alt ?? ""}]</span>,
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
