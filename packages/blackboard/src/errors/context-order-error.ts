import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.ContextOrderError');

/** A projection order table (`context_order`) is malformed. `field` names the culprit. */
export class ContextOrderError extends StrataError {
  readonly [MARKER] = true;
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super({ name: 'ContextOrderError', kind: 'input', message: `context_order ${options.field}: ${options.message}`, cause: options.cause });
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is ContextOrderError {
    return markerCheck(MARKER)(error);
  }
}
