import { markerCheck } from '@strata/context';
import { type ProviderFailureDetails, ProviderFailureError } from './provider-failure-error.js';

const MARKER = Symbol.for('strata.error.TransientProviderError');

/**
 * A failure that may pass on its own: HTTP 408, 409, 5xx, 529 (overloaded),
 * or no answer at all (connection refused or reset). Retried with backoff
 * within the client's bound; `retryAfterMs` is the provider's hint when it
 * sent one.
 */
export class TransientProviderError extends ProviderFailureError {
  readonly [MARKER] = true;
  readonly retryAfterMs: number | undefined;

  constructor(options: ProviderFailureDetails & { message: string; retryAfterMs?: number }) {
    super({ ...options, name: 'TransientProviderError' });
    this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(error: unknown): error is TransientProviderError {
    return markerCheck(MARKER)(error);
  }
}
