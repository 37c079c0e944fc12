/** Timer functions, injectable so tests control time. */
export interface Timers {
  set(callback: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

/** The process's own timers (ref'd: a pending wait keeps the process alive, as AbortSignal.timeout would not). */
export const SYSTEM_TIMERS: Timers = Object.freeze({
  set: (callback: () => void, delayMs: number) => setTimeout(callback, delayMs),
  clear: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/** What `withTimeout` rejects with when the limit passes first. */
export class TimeLimitExceeded extends Error {
  readonly limitMs: number;
  constructor(limitMs: number) {
    super(`no answer within ${limitMs} ms`);
    this.name = 'TimeLimitExceeded';
    this.limitMs = limitMs;
  }
}

/**
 * Runs `run` with a signal that aborts when `limitMs` passes or `signal`
 * aborts, and settles as soon as either happens, even when `run` ignores its
 * signal: with `TimeLimitExceeded`, or with the signal's reason. Nothing is
 * left listening or pending afterwards.
 */
export async function withTimeout<T>(options: { run: (signal: AbortSignal) => T | Promise<T>; limitMs: number; signal: AbortSignal; timers?: Timers }): Promise<T> {
  const { signal, limitMs } = options;
  signal.throwIfAborted();
  const timers = options.timers ?? SYSTEM_TIMERS;
  const limit = new AbortController();
  let onAbort: (() => void) | undefined;
  let handle: unknown;
  const cutOff = new Promise<never>((_, reject) => {
    handle = timers.set(() => {
      const exceeded = new TimeLimitExceeded(limitMs);
      reject(exceeded);
      limit.abort(exceeded);
    }, limitMs);
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([Promise.resolve().then(() => options.run(AbortSignal.any([signal, limit.signal]))), cutOff]);
  } finally {
    timers.clear(handle);
    signal.removeEventListener('abort', onAbort!);
    cutOff.catch(() => undefined);
  }
}
