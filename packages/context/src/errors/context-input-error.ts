import { StrataError, markerCheck } from './strata-error.js';

const MARKER = Symbol.for('strata.error.ContextInputError');

/**
 * The caller gave the assembler something it cannot use: a duplicate id, a
 * contribution with a forbidden role, a malformed message. `culprit` names it
 * (a contributor id, a message index, a section id).
 */
export class ContextInputError extends StrataError {
  readonly [MARKER] = true;
  readonly code: string;
  readonly culprit: string;

  constructor(options: { code: string; culprit: string; message: string; cause?: unknown }) {
    super({ name: 'ContextInputError', kind: 'input', message: options.message, cause: options.cause });
    this.code = options.code;
    this.culprit = options.culprit;
  }

  static override isInstance(error: unknown): error is ContextInputError {
    return markerCheck(MARKER)(error);
  }
}
