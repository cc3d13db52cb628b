import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { QueuedMessage } from "../state/session";

export interface ComposerProps {
  busy: boolean;
  disabled: boolean;
  /** False when the daemon does not advertise steering: a busy run can only be stopped. */
  canSteer?: boolean;
  draft: { text: string; serial: number } | null;
  /** Steers and follow-ups the model has not taken yet. */
  queued: QueuedMessage[];
  /** Why the composer is disabled, shown in the box (e.g. the connection is lost). */
  disabledReason?: string;
  onSend: (text: string) => void;
  onSteer: (text: string, followUp: boolean) => void;
  onStop: () => void;
}

/** The prompt box: Enter sends (or steers while a run is busy), Shift+Enter is a newline. */
export function Composer({
  busy,
  disabled,
  canSteer = true,
  draft,
  queued,
  disabledReason,
  onSend,
  onSteer,
  onStop,
}: ComposerProps) {
  const [text, setText] = useState("");
  const ref = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (!draft) return;
    setText(draft.text);
    ref.current?.focus();
  }, [draft]);

  const submit = (followUp: boolean) => {
    const value = text.trim();
    if (!value || disabled || (busy && !canSteer)) return;
    if (busy) onSteer(value, followUp);
    else onSend(value);
    setText("");
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // keyCode 229: some IMEs report the confirming Enter this way without isComposing.
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      submit(event.altKey && busy);
    }
  };

  return (
    <form
      className="composer"
      aria-label="Composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit(false);
      }}
    >
      {queued.length > 0 ? (
        <ul className="queued" aria-label="Queued messages" data-testid="queued">
          {queued.map((item) => (
            <li key={item.id} className={`queued-pill ${item.followUp ? "follow-up" : "steer"}`}>
              <span className="queued-kind">{item.followUp ? "Follow-up queued" : "Steer queued"}</span>
              <span className="queued-text" title={item.text}>
                {item.text}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      <textarea
        ref={ref}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        placeholder={
          disabled && disabledReason
            ? disabledReason
            : busy
              ? "Steer the running turn (Enter), or queue a follow-up"
              : "Ask gg (Enter to send, Shift+Enter for a new line)"
        }
        aria-label={busy ? "Steer message" : "Prompt"}
        rows={3}
        disabled={disabled}
      />
      <div className="composer-actions">
        {busy ? (
          <>
            {canSteer ? (
              <>
                <button type="submit" className="btn primary" disabled={disabled || !text.trim()}>
                  Steer
                </button>
                <button type="button" className="btn" disabled={disabled || !text.trim()} onClick={() => submit(true)}>
                  Queue follow-up
                </button>
              </>
            ) : null}
            <button type="button" className="btn danger" onClick={onStop} disabled={disabled}>
              Stop
            </button>
          </>
        ) : (
          <button type="submit" className="btn primary" disabled={disabled || !text.trim()}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}
