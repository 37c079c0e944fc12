import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ProviderFailureError');

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
 * The base of every normalized provider failure (`ProviderError`,
 * `RateLimitError`, `TransientProviderError`, `ContextOverflowError`): whose
 * fault it is (`kind: 'provider'`), which provider, and what it answered.
 * Each subclass keeps its own marker, so `isInstance` of one never matches
 * another; this class's `isInstance` matches them all.
 */
export abstract class ProviderFailureError extends StrataError {
  readonly [MARKER] = true;
  readonly provider: string;
  readonly statusCode: number | undefined;
  readonly responseBody: string | undefined;

  protected constructor(options: ProviderFailureDetails & { name: string; message: string }) {
    super({ name: options.name, kind: 'provider', message: options.message, cause: options.cause });
    this.provider = options.provider;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
  }

  static override isInstance(error: unknown): error is ProviderFailureError {
    return markerCheck(MARKER)(error);
  }
}
