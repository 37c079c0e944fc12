import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.StoreInputError');

/**
 * The caller handed a store something it cannot keep: an empty context id, a
 * history that is not JSON, a trace turn that is not a positive integer, a
 * trace file that already exists. `culprit` names the field or file.
 */
export class StoreInputError extends StrataError {
  readonly [MARKER] = true;
  readonly code: string;
  readonly culprit: string;

  constructor(options: { code: string; culprit: string; message: string; cause?: unknown }) {
    super({ name: 'StoreInputError', kind: 'input', message: options.message, cause: options.cause });
    this.code = options.code;
    this.culprit = options.culprit;
  }

  static override isInstance(error: unknown): error is StoreInputError {
    return markerCheck(MARKER)(error);
  }
}
