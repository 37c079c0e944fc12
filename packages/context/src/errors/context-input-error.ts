import { StrataError, markerCheck } from './strata-error.js';

const MARKER = Symbol.for('strata.error.ContextInputError');

/**
 * The caller gave the assembler something it cannot use: a duplicate id, a
 * contribution with a forbidden role, a malformed message. `culprit` names it
 * (a contributor id, a field path such as `messages[3].content`, a section id).
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

  /**
   * The error for a value of the wrong shape at `path`:
   * `messages[3].content: expected a string or an array of content parts, got number`.
   * `actual` is described by its kind only, never printed (it may be huge or private).
   */
  static unexpected(options: { code: string; path: string; expected: string; actual: unknown }): ContextInputError {
    return new ContextInputError({ code: options.code, culprit: options.path, message: `${options.path}: expected ${options.expected}, got ${describeKind(options.actual)}` });
  }
}

/** `null`, `array`, `object`, `string`, `number`, ... : what a value is, in a word. */
export function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
