import { useState } from "react";
import type { TodoItem } from "../protocol";

const MARKS: Record<TodoItem["status"], string> = { completed: "☑", in_progress: "◐", pending: "☐" };
const LABELS: Record<TodoItem["status"], string> = {
  completed: "completed",
  in_progress: "in progress",
  pending: "pending",
};

/** The session's live todo list (what the model last wrote with todo_write), above the composer. */
export function TodoPanel({ todos }: { todos: TodoItem[] }) {
  const [open, setOpen] = useState(true);
  if (todos.length === 0) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  return (
    <section className="todo-panel" aria-label="Todo list" data-testid="todo-panel">
      <button type="button" className="todo-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span>Todo list</span>
        <span className="todo-count" data-testid="todo-count">
          {done}/{todos.length} done
        </span>
      </button>
      {open ? (
        <ol className="todo-items">
          {todos.map((t, i) => (
            <li key={i} className={`todo-item ${t.status}`} data-status={t.status}>
              <span className="todo-mark" aria-label={LABELS[t.status]}>
                {MARKS[t.status]}
              </span>
              <span className="todo-text">{t.content}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
