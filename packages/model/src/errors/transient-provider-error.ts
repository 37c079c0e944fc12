import { StrataError, markerCheck } from '@strata/context';
import type { ProviderFailureDetails } from './provider-error.js';

const MARKER = Symbol.for('strata.error.TransientProviderError');

/**
 * A failure that may pass on its own: HTTP 408, 409, 5xx, 529 (overloaded),
 * or no answer at all (connection refused or reset). Retried with backoff
 * within the client's bound.
 */
export class TransientProviderError extends StrataError {
  readonly [MARKER] = true;
  readonly provider: string;
  readonly statusCode: number | undefined;
  readonly responseBody: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(options: ProviderFailureDetails & { message: string; retryAfterMs?: number }) {
    super({ name: 'TransientProviderError', kind: 'provider', message: options.message, cause: options.cause });
    this.provider = options.provider;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
    this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(error: unknown): error is TransientProviderError {
    return markerCheck(MARKER)(error);
  }
}
