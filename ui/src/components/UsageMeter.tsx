import type { UsageInfo } from "../protocol";

/** USD as a person reads it: four decimals below a dollar (a turn often costs cents). */
export function formatUsd(cost: number): string {
  return cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

/** Input tokens, and the cached and written parts of them, for the meter's tooltip. */
function breakdown(usage: UsageInfo): string {
  const parts = [`${(usage.promptTokens ?? 0).toLocaleString()} input`];
  if (usage.cacheReadTokens) parts.push(`${usage.cacheReadTokens.toLocaleString()} of them read from cache`);
  if (usage.cacheWriteTokens) parts.push(`${usage.cacheWriteTokens.toLocaleString()} written to cache`);
  parts.push(`${(usage.completionTokens ?? 0).toLocaleString()} output`);
  if (usage.reasoningTokens) parts.push(`${usage.reasoningTokens.toLocaleString()} of them reasoning`);
  return parts.join(", ");
}

/**
 * Tokens and cost of the run, the session's cost, and how full the context window is.
 * No cost is shown when the daemon sent none: the model has no known price (tokens only).
 */
export function UsageMeter({ usage, session }: { usage: UsageInfo | null; session?: UsageInfo | null }) {
  const sessionCost = session?.costUsd;
  if (!usage && sessionCost == null) return null;
  const total = usage?.totalTokens ?? 0;
  const used = usage?.contextTokens ?? usage?.promptTokens ?? 0;
  const window = usage?.contextWindow ?? 0;
  const share = window > 0 ? Math.min(1, used / window) : 0;
  const cost = usage?.costUsd;
  if (total <= 0 && used <= 0 && sessionCost == null) return null;
  return (
    <span className="usage" data-testid="usage">
      {usage && total > 0 ? (
        <span title={breakdown(usage)} data-testid="usage-tokens">
          {total.toLocaleString()} tokens
          {usage.cacheReadTokens ? ` (${usage.cacheReadTokens.toLocaleString()} cached)` : ""}
        </span>
      ) : null}
      {cost != null ? <span data-testid="usage-cost">{formatUsd(cost)}</span> : null}
      {sessionCost != null ? (
        <span data-testid="usage-session-cost" title="every request of this session">
          session {formatUsd(sessionCost)}
        </span>
      ) : null}
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
