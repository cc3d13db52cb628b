/** A minimal observable value for React's useSyncExternalStore. */
export class Store<T> {
  private value: T;
  private readonly listeners = new Set<() => void>();

  constructor(initial: T) {
    this.value = initial;
  }

  /** The current value (stable identity until the next set). */
  get = (): T => this.value;

  /** Listen to changes; returns an unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Replace the value and notify. */
  set(next: T): void {
    if (next === this.value) return;
    this.value = next;
    for (const listener of [...this.listeners]) listener();
  }

  /** Derive the next value from the current one. */
  update(change: (current: T) => T): void {
    this.set(change(this.value));
  }
}
