import { markerCheck } from '@strata/context';
import { type ProviderFailureDetails, ProviderFailureError } from './provider-failure-error.js';

const MARKER = Symbol.for('strata.error.RateLimitError');

/**
 * The provider refused the request for rate or quota (HTTP 429). Retried
 * with backoff within the client's bound; `retryAfterMs` is the provider's
 * own hint (`retry-after-ms` / `retry-after`) when it sent one.
 */
export class RateLimitError extends ProviderFailureError {
  readonly [MARKER] = true;
  readonly retryAfterMs: number | undefined;

  constructor(options: ProviderFailureDetails & { message: string; retryAfterMs?: number }) {
    super({ ...options, name: 'RateLimitError' });
    this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(error: unknown): error is RateLimitError {
    return markerCheck(MARKER)(error);
  }
}
