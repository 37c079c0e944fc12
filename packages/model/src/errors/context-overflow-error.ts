import { markerCheck } from '@strata/context';
import { type ProviderFailureDetails, ProviderFailureError } from './provider-failure-error.js';

const MARKER = Symbol.for('strata.error.ContextOverflowError');

/**
 * The provider rejected the request because the prompt does not fit the
 * model's context window (OpenAI `context_length_exceeded`, Anthropic
 * "prompt is too long", an OpenAI-compatible server's overflow message).
 * Never retried by the model layer: the runtime's overflow recovery compacts
 * and tries again. The token figures are parsed from the provider's message
 * when it states them.
 */
export class ContextOverflowError extends ProviderFailureError {
  readonly [MARKER] = true;
  /** Tokens the request needed, when the provider said. */
  readonly requestedTokens: number | undefined;
  /** The context window the provider enforced, when it said. */
  readonly limitTokens: number | undefined;

  constructor(options: ProviderFailureDetails & { message: string; requestedTokens?: number; limitTokens?: number }) {
    super({ ...options, name: 'ContextOverflowError' });
    this.requestedTokens = options.requestedTokens;
    this.limitTokens = options.limitTokens;
  }

  static override isInstance(error: unknown): error is ContextOverflowError {
    return markerCheck(MARKER)(error);
  }
}
