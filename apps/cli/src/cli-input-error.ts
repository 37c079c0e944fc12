import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.CliInputError');

/**
 * The command line was given something it cannot use: an unknown command or
 * option, a missing file, a number out of range. The message is one line
 * that names the culprit; the command prints it and exits non-zero.
 */
export class CliInputError extends StrataError {
  readonly [MARKER] = true;
  /** The option, file or argument at fault (`--window`, `runs/a.json`). */
  readonly culprit: string;

  constructor(options: { culprit: string; message: string; cause?: unknown }) {
    super({ name: 'CliInputError', kind: 'input', message: options.message, cause: options.cause });
    this.culprit = options.culprit;
  }

  static override isInstance(error: unknown): error is CliInputError {
    return markerCheck(MARKER)(error);
  }
}
