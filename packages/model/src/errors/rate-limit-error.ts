import { StrataError, markerCheck } from '@strata/context';
import type { ProviderFailureDetails } from './provider-error.js';

const MARKER = Symbol.for('strata.error.RateLimitError');

/**
 * The provider refused the request for rate or quota (HTTP 429). Retried
 * with backoff within the client's bound; `retryAfterMs` is the provider's
 * own hint (`retry-after-ms` / `retry-after`) when it sent one.
 */
export class RateLimitError extends StrataError {
  readonly [MARKER] = true;
  readonly provider: string;
  readonly statusCode: number | undefined;
  readonly responseBody: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(options: ProviderFailureDetails & { message: string; retryAfterMs?: number }) {
    super({ name: 'RateLimitError', kind: 'provider', message: options.message, cause: options.cause });
    this.provider = options.provider;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
    this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(error: unknown): error is RateLimitError {
    return markerCheck(MARKER)(error);
  }
}
