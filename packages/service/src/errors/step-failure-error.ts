import { StrataError, markerCheck, redactCredentials } from '@strata/context';

const MARKER = Symbol.for('strata.error.StepFailureError');

/**
 * What a durable step (a tool call, a model turn) throws in place of the
 * error its work threw: DBOS records a thrown error in the step's output,
 * message, stack and fields alike, so the step throws this instead, built
 * from the original's name, message and stack with credentials redacted,
 * and without the original (neither as `cause` nor as a field).
 */
export class StepFailureError extends StrataError {
  readonly [MARKER] = true;
  /** The step, e.g. `tool:call_1` or `model-turn`. */
  readonly step: string;
  /** The name of the error the step's work threw (`TypeError`, a provider error's name). */
  readonly originalName: string;

  constructor(options: { step: string; thrown: unknown }) {
    const thrown = options.thrown;
    const original = thrown instanceof Error ? thrown : undefined;
    const text = original ? (original.message === '' ? original.name : original.message) : typeof thrown === 'string' ? thrown : safeJson(thrown);
    super({ name: 'StepFailureError', kind: 'internal', message: redactCredentials(`step ${options.step} failed: ${text}`).text });
    this.step = options.step;
    this.originalName = original?.name ?? typeof thrown;
    // The original's frames show where it failed; its first line is its (redacted) message.
    if (typeof original?.stack === 'string') this.stack = redactCredentials(`${this.name}: ${this.message}\n${original.stack}`).text;
  }

  static override isInstance(error: unknown): error is StepFailureError {
    return markerCheck(MARKER)(error);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
