import { StrataError, markerCheck } from './strata-error.js';

const MARKER = Symbol.for('strata.error.ContextValidationError');

export interface ContextViolation {
  readonly rule: string;
  readonly message: string;
}

/** The assembled input breaks an invariant; it is never sent. A bug in a stage or a custom stage. */
export class ContextValidationError extends StrataError {
  readonly [MARKER] = true;
  readonly violations: readonly ContextViolation[];

  constructor(options: { violations: readonly ContextViolation[] }) {
    super({ name: 'ContextValidationError', kind: 'internal', message: `assembled context is invalid: ${options.violations.map((violation) => violation.message).join('; ')}` });
    this.violations = options.violations;
  }

  static override isInstance(error: unknown): error is ContextValidationError {
    return markerCheck(MARKER)(error);
  }
}
