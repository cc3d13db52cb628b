import { useEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from "react";
import { imageFiles, MAX_BYTES, prepareImage, type Attachment } from "../state/attachments";
import type { ApprovalMode, QueuedMessage } from "../state/session";

/** The approval modes offered (on-request behaves as auto for this interactive page). */
const MODES: Array<{ id: ApprovalMode; label: string; title: string }> = [
  { id: "auto", label: "Ask", title: "Ask before writes and commands" },
  { id: "yolo", label: "Allow all", title: "Writes and commands run; dangerous commands still ask" },
  { id: "never", label: "Never ask", title: "Writes and commands run; dangerous commands are denied" },
  { id: "plan", label: "Plan", title: "Only read-only tools run: research and end with a plan" },
];

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
  /** `images`: pictures pasted or dropped into the box (absent when none). */
  onSend: (text: string, images?: Attachment[]) => void;
  onSteer: (text: string, followUp: boolean) => void;
  onStop: () => void;
  /** The approval mode of the next run, and how to change it (absent: no picker). */
  mode?: ApprovalMode;
  onMode?: (mode: ApprovalMode) => void;
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
  mode,
  onMode,
}: ComposerProps) {
  const [text, setText] = useState("");
  const [images, setImages] = useState<Attachment[]>([]);
  const [imageError, setImageError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);

  const attach = async (files: File[]) => {
    setImageError(null);
    for (const file of files) {
      try {
        const item = await prepareImage(file);
        setImages((list) => {
          if (list.reduce((n, i) => n + i.size, item.size) > MAX_BYTES) {
            URL.revokeObjectURL(item.url);
            setImageError(`${item.name}: the images of one message may total 2.9 MB`);
            return list;
          }
          return [...list, item];
        });
      } catch (error) {
        setImageError(error instanceof Error ? error.message : String(error));
      }
    }
  };

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = imageFiles(event.clipboardData);
    if (files.length === 0 || busy) return; // text pastes as usual
    event.preventDefault();
    void attach(files);
  };

  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    setDragging(false);
    const files = imageFiles(event.dataTransfer);
    if (files.length === 0 || busy || disabled) return;
    event.preventDefault();
    void attach(files);
  };

  const remove = (item: Attachment) => {
    URL.revokeObjectURL(item.url);
    setImages((list) => list.filter((i) => i !== item));
  };

  useEffect(() => {
    if (!draft) return;
    setText(draft.text);
    ref.current?.focus();
  }, [draft]);

  const submit = (followUp: boolean) => {
    const value = text.trim();
    if (!value || disabled || (busy && !canSteer)) return;
    if (busy) onSteer(value, followUp);
    else {
      // The thumbnails' blob: URLs now belong to the sent message's previews.
      if (images.length > 0) onSend(value, images);
      else onSend(value);
      setImages([]);
      setImageError(null);
    }
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
      className={`composer${dragging ? " dragging" : ""}`}
      aria-label="Composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit(false);
      }}
      onDragOver={(event) => {
        if (busy || disabled || !Array.from(event.dataTransfer.types).includes("Files")) return;
        event.preventDefault(); // allows the drop
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      {images.length > 0 ? (
        <ul className="attachments" aria-label="Attached images" data-testid="attachments">
          {images.map((item) => (
            <li key={item.url} className="attachment">
              <img src={item.url} alt={item.name} data-testid="attachment-thumb" />
              <button
                type="button"
                className="btn small ghost"
                aria-label={`Remove ${item.name}`}
                onClick={() => remove(item)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {imageError ? (
        <div className="attachment-error" role="alert" data-testid="attachment-error">
          {imageError}
        </div>
      ) : null}
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
        onPaste={onPaste}
        placeholder={
          disabled && disabledReason
            ? disabledReason
            : busy
              ? "Steer the running turn (Enter), or queue a follow-up"
              : "Ask gg (Enter to send, Shift+Enter for a new line; paste or drop images)"
        }
        aria-label={busy ? "Steer message" : "Prompt"}
        rows={3}
        disabled={disabled}
      />
      <div className="composer-actions">
        {mode && onMode ? (
          <label className={`mode-picker ${mode}`} title={MODES.find((m) => m.id === mode)?.title}>
            Mode
            <select
              aria-label="Approval mode"
              value={mode}
              onChange={(event) => onMode(event.target.value as ApprovalMode)}
            >
              {MODES.map((m) => (
                <option key={m.id} value={m.id} title={m.title}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
        ) : null}
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
