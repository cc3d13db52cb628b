import type { UsageInfo } from "../protocol";

/** Token usage of the run and how full the context window is. */
export function UsageMeter({ usage }: { usage: UsageInfo | null }) {
  if (!usage) return null;
  const total = usage.totalTokens ?? 0;
  const used = usage.contextTokens ?? usage.promptTokens ?? 0;
  const window = usage.contextWindow ?? 0;
  const share = window > 0 ? Math.min(1, used / window) : 0;
  if (total <= 0 && used <= 0) return null;
  return (
    <span className="usage" data-testid="usage">
      {total > 0 ? <span>{total.toLocaleString()} tokens</span> : null}
      {window > 0 ? (
        <>
          <meter
            className="context-meter"
            min={0}
            max={window}
            value={used}
            low={window * 0.6}
            high={window * 0.85}
            optimum={0}
            aria-label={`Context ${Math.round(share * 100)}% full`}
          />
          <span>{Math.round(share * 100)}% context</span>
        </>
      ) : used > 0 ? (
        <span>{used.toLocaleString()} tokens in context</span>
      ) : null}
    </span>
  );
}
