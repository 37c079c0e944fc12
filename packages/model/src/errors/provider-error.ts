import { markerCheck } from '@strata/context';
import { type ProviderFailureDetails, ProviderFailureError } from './provider-failure-error.js';

const MARKER = Symbol.for('strata.error.ProviderError');

/**
 * A provider failure that is neither an overflow, a rate limit nor
 * transient: bad request, authentication, permission, unknown model. Never
 * retried.
 */
export class ProviderError extends ProviderFailureError {
  readonly [MARKER] = true;

  constructor(options: ProviderFailureDetails & { message: string }) {
    super({ ...options, name: 'ProviderError' });
  }

  static override isInstance(error: unknown): error is ProviderError {
    return markerCheck(MARKER)(error);
  }
}
