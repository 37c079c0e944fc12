import type { Timers } from '@strata/context';

/**
 * Timers that fire only when the test says so; `fire(delayMs)` runs every
 * pending timer set with that delay; `whenPending()` yields event-loop turns
 * (no time passes) until a timer is pending, or 1,000 turns went by.
 */
export function manualTimers() {
  const pending = new Map<number, { callback: () => void; delayMs: number }>();
  let next = 0;
  const timers: Timers = {
    set: (callback, delayMs) => {
      next += 1;
      pending.set(next, { callback, delayMs });
      return next;
    },
    clear: (handle) => void pending.delete(handle as number),
  };
  const fire = (delayMs: number): number => {
    const due = [...pending.entries()].filter(([, timer]) => timer.delayMs === delayMs);
    for (const [handle, timer] of due) {
      pending.delete(handle);
      timer.callback();
    }
    return due.length;
  };
  const whenPending = async (): Promise<void> => {
    for (let turn = 0; turn < 1_000 && pending.size === 0; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return { timers, pending, fire, whenPending };
}
