import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.TagError');

/** A blackboard tag or tag pattern is malformed. `culprit` is the offending text. */
export class TagError extends StrataError {
  readonly [MARKER] = true;
  readonly culprit: string;

  constructor(options: { culprit: string; message: string }) {
    super({ name: 'TagError', kind: 'input', message: options.message });
    this.culprit = options.culprit;
  }

  static override isInstance(error: unknown): error is TagError {
    return markerCheck(MARKER)(error);
  }
}
