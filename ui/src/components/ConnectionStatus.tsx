import type { TransportState } from "../rpc/transport";

/** A short line about the connection to the daemon. */
export function ConnectionStatus({ state }: { state: TransportState }) {
  let text: string;
  switch (state.status) {
    case "open":
      text = "Connected";
      break;
    case "connecting":
      text = "Connecting…";
      break;
    case "reconnecting":
      text = `${state.error ?? "Disconnected."} Retrying in ${Math.ceil((state.retryInMs ?? 0) / 1000)} s (attempt ${state.attempt}).`;
      break;
    case "failed":
      text = state.error ?? "Cannot connect.";
      break;
    case "closed":
      text = "Disconnected.";
      break;
  }
  return (
    <span
      className={`conn conn-${state.status}`}
      role="status"
      aria-live="polite"
      data-testid="connection"
      data-status={state.status}
    >
      <span className="conn-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
