import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ProviderError');

/** What every normalized provider failure carries. */
export interface ProviderFailureDetails {
  /** The provider id of the model that failed (`openai.chat`, `anthropic.messages`). */
  readonly provider: string;
  /** HTTP status when the failure came with one. */
  readonly statusCode?: number;
  /** The raw response body, verbatim, when there was one. */
  readonly responseBody?: string;
  readonly cause?: unknown;
}

/**
 * A provider failure that is neither an overflow, a rate limit nor
 * transient: bad request, authentication, permission, unknown model. Never
 * retried.
 */
export class ProviderError extends StrataError {
  readonly [MARKER] = true;
  readonly provider: string;
  readonly statusCode: number | undefined;
  readonly responseBody: string | undefined;

  constructor(options: ProviderFailureDetails & { message: string }) {
    super({ name: 'ProviderError', kind: 'provider', message: options.message, cause: options.cause });
    this.provider = options.provider;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
  }

  static override isInstance(error: unknown): error is ProviderError {
    return markerCheck(MARKER)(error);
  }
}
