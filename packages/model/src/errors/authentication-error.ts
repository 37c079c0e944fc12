import { markerCheck } from '@strata/context';
import { ProviderError } from './provider-error.js';
import type { ProviderFailureDetails } from './provider-failure-error.js';

const MARKER = Symbol.for('strata.error.AuthenticationError');

/**
 * The provider refused the key (HTTP 401) or what the key may do (HTTP 403,
 * or an in-stream `authentication_error` / `permission_error`). Never
 * retried: the next attempt would be refused the same way. A
 * `ProviderError` too, so whatever ends a run on one ends it on this;
 * `keyVariable` is where the key came from (`OPENAI_API_KEY`), named in the
 * message, when the client knows it.
 */
export class AuthenticationError extends ProviderError {
  readonly [MARKER] = true;
  readonly keyVariable: string | undefined;

  constructor(options: ProviderFailureDetails & { message: string; keyVariable?: string }) {
    super(options);
    this.name = 'AuthenticationError';
    this.keyVariable = options.keyVariable;
  }

  static override isInstance(error: unknown): error is AuthenticationError {
    return markerCheck(MARKER)(error);
  }
}
