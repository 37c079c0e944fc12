import { StrataError, markerCheck } from './strata-error.js';

const MARKER = Symbol.for('strata.error.ContextBudgetError');

/**
 * What must be sent does not fit the input cap: protected sections alone, or
 * the window's must-keep messages (anchor, checkpoint, newest step, open
 * units). Thrown before any provider call; authority is never truncated.
 */
export class ContextBudgetError extends StrataError {
  readonly [MARKER] = true;
  readonly code: string;
  readonly requiredTokens: number;
  readonly availableTokens: number;

  constructor(options: { code: string; requiredTokens: number; availableTokens: number; message: string }) {
    super({ name: 'ContextBudgetError', kind: 'input', message: options.message });
    this.code = options.code;
    this.requiredTokens = options.requiredTokens;
    this.availableTokens = options.availableTokens;
  }

  static override isInstance(error: unknown): error is ContextBudgetError {
    return markerCheck(MARKER)(error);
  }
}
