import type { Timers } from '@strata/context';

/** Timers that fire only when the test says so; `fire(delayMs)` runs every pending timer set with that delay. */
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
  return { timers, pending, fire };
}
