import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.BlackboardConflictError');

/**
 * A commit named the head revision it was built against and the blackboard
 * has moved on since. Nothing of the commit was written.
 */
export class BlackboardConflictError extends StrataError {
  readonly [MARKER] = true;
  readonly expectedRevision: number;
  readonly actualRevision: number;

  constructor(options: { expectedRevision: number; actualRevision: number }) {
    super({
      name: 'BlackboardConflictError',
      kind: 'input',
      message: `blackboard head is at revision ${options.actualRevision}, the commit expected ${options.expectedRevision}`,
    });
    this.expectedRevision = options.expectedRevision;
    this.actualRevision = options.actualRevision;
  }

  static override isInstance(error: unknown): error is BlackboardConflictError {
    return markerCheck(MARKER)(error);
  }
}
