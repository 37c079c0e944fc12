import type { Timers } from '@strata/agent';

/**
 * A clock that moves only when told (`advance`), with timers on it: a timer
 * fires, in due order, once the clock reaches its time. For the service's
 * deadline tests, where a scripted model call "takes" a fixed time.
 */
export class VirtualClock {
  #now = 0;
  #next = 0;
  readonly #pending = new Map<number, { readonly due: number; readonly callback: () => void }>();

  readonly now = (): number => this.#now;

  readonly timers: Timers = {
    set: (callback, delayMs) => {
      this.#next += 1;
      this.#pending.set(this.#next, { due: this.#now + Math.max(0, delayMs), callback });
      return this.#next;
    },
    clear: (handle) => void this.#pending.delete(handle as number),
  };

  /** Moves the clock `ms` forward, firing each timer due on the way at its own time. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const [handle, timer] = [...this.#pending].filter(([, candidate]) => candidate.due <= target).sort(([a, x], [b, y]) => x.due - y.due || a - b)[0] ?? [];
      if (handle === undefined || timer === undefined) break;
      this.#pending.delete(handle);
      this.#now = timer.due;
      timer.callback();
    }
    this.#now = target;
  }
}
