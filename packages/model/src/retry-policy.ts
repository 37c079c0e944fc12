import { setTimeout } from 'node:timers/promises';
import { backoffDelayMs, withDefaults } from '@strata/context';
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

/** The retry options with every default filled in; an undefined field takes its default. */
export function retrySettings(options: RetryOptions = {}): Required<RetryOptions> {
  const { maxAttempts, initialDelayMs, backoffFactor, maxDelayMs } = withDefaults(RETRY_DEFAULTS, options);
  return { maxAttempts, initialDelayMs, backoffFactor, maxDelayMs };
}

/**
 * The wait before attempt `attempt + 1` after `error` failed attempt
 * `attempt` (1-based): the provider's retry-after when it sent one, exactly
 * (never above `maxDelayMs`); else `backoffDelayMs`, the exponential backoff
 * with equal jitter.
 */
export function retryDelayMs(options: {
  attempt: number;
  error: RateLimitError | TransientProviderError;
  retry: Required<RetryOptions>;
  random: () => number;
}): number {
  const { attempt, error, retry, random } = options;
  if (error.retryAfterMs !== undefined) return Math.min(retry.maxDelayMs, Math.max(0, error.retryAfterMs));
  return backoffDelayMs({ attempt, initialDelayMs: retry.initialDelayMs, backoffFactor: retry.backoffFactor, maxDelayMs: retry.maxDelayMs, random });
}

/** Waits `delayMs`, or rejects with the signal's reason when it fires first. */
export async function abortableSleep(delayMs: number, signal: AbortSignal): Promise<void> {
  try {
    await setTimeout(delayMs, undefined, { signal });
  } catch (error) {
    // node:timers/promises rejects with its own AbortError; callers expect the signal's reason.
    throw signal.aborted ? signal.reason : error;
  }
}
