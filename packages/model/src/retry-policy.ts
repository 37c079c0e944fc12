import type { RateLimitError } from './errors/rate-limit-error.js';
import type { TransientProviderError } from './errors/transient-provider-error.js';

/** Bounded exponential backoff for rate limits and transient failures. */
export interface RetryOptions {
  /** Attempts in total, the first included. Default 3; 1 disables retries. */
  readonly maxAttempts?: number;
  /** Delay before the second attempt. Default 1,000 ms. */
  readonly initialDelayMs?: number;
  /** Growth of the delay per attempt. Default 2. */
  readonly backoffFactor?: number;
  /** Cap on any single delay, the provider's retry-after included. Default 60,000 ms. */
  readonly maxDelayMs?: number;
}

export const RETRY_DEFAULTS: Readonly<Required<RetryOptions>> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 1_000,
  backoffFactor: 2,
  maxDelayMs: 60_000,
});

/**
 * The wait before attempt `attempt + 1` after `error` failed attempt
 * `attempt` (1-based): the provider's retry-after when it sent one, else
 * `initialDelayMs * backoffFactor^(attempt - 1)`; never above `maxDelayMs`.
 */
export function retryDelayMs(options: { attempt: number; error: RateLimitError | TransientProviderError; retry: Required<RetryOptions> }): number {
  const { attempt, error, retry } = options;
  const backoff = retry.initialDelayMs * retry.backoffFactor ** (attempt - 1);
  return Math.min(retry.maxDelayMs, Math.max(0, error.retryAfterMs ?? backoff));
}

/** Waits `delayMs`, or rejects with the signal's reason when it fires first. */
export function abortableSleep(delayMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
