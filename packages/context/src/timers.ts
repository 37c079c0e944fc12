import { untilAborted } from './abort-race.js';

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

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` (1-based)
 * failed: `initialDelayMs * backoffFactor^(attempt - 1)`, at most
 * `maxDelayMs`, with equal jitter (between half of it and all of it, by
 * `random()` in [0, 1)), so that clients that failed together do not retry
 * together. A whole number of milliseconds.
 */
export function backoffDelayMs(options: { attempt: number; initialDelayMs: number; backoffFactor: number; maxDelayMs: number; random: () => number }): number {
  const backoff = Math.min(options.maxDelayMs, options.initialDelayMs * options.backoffFactor ** (options.attempt - 1));
  return Math.round(backoff / 2 + (options.random() * backoff) / 2);
}

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
 * signal (`untilAborted`): with `TimeLimitExceeded`, or with the signal's
 * reason. No timer is left pending afterwards.
 */
export async function withTimeout<T>(options: { run: (signal: AbortSignal) => T | Promise<T>; limitMs: number; signal: AbortSignal; timers?: Timers }): Promise<T> {
  const { limitMs } = options;
  options.signal.throwIfAborted();
  const timers = options.timers ?? SYSTEM_TIMERS;
  const limit = new AbortController();
  const handle = timers.set(() => limit.abort(new TimeLimitExceeded(limitMs)), limitMs);
  const signal = AbortSignal.any([options.signal, limit.signal]);
  try {
    return await untilAborted(Promise.resolve().then(() => options.run(signal)), signal);
  } finally {
    timers.clear(handle);
  }
}
