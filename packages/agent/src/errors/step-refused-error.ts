import { markerCheck, StrataError } from '@strata/context';

const MARKER = Symbol.for('strata.error.StepRefusedError');

/**
 * The model asked for a step the run cannot take: more tool calls than a
 * step may have, or calls whose results could not fit the input cap even
 * empty. Refused before any tool runs; the step is not stored.
 */
export class StepRefusedError extends StrataError {
  readonly [MARKER] = true;
  readonly code: 'AGENT_STEP_TOO_MANY_CALLS' | 'AGENT_STEP_CANNOT_FIT';
  readonly calls: number;

  constructor(options: { code: StepRefusedError['code']; calls: number; message: string }) {
    super({ name: 'StepRefusedError', kind: 'provider', message: options.message });
    this.code = options.code;
    this.calls = options.calls;
  }

  static override isInstance(error: unknown): error is StepRefusedError {
    return markerCheck(MARKER)(error);
  }
}
