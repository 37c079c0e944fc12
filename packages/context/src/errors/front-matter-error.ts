import { StrataError, markerCheck } from './strata-error.js';

const MARKER = Symbol.for('strata.error.FrontMatterError');

export type FrontMatterErrorCode =
  /** The first line is not a `---` fence. */
  | 'FRONT_MATTER_MISSING'
  /** No `---` line closes the block opened on line 1. */
  | 'FRONT_MATTER_UNTERMINATED'
  /** The block is not valid YAML. */
  | 'FRONT_MATTER_INVALID_YAML'
  /** The block is YAML, but not a mapping of fields. */
  | 'FRONT_MATTER_NOT_A_MAPPING';

/**
 * A file's YAML front matter cannot be read. `line` is 1-based, in the file;
 * `reason` is the message without the `file:line: ` prefix, so a reader that
 * wraps this error in its own can reuse it.
 */
export class FrontMatterError extends StrataError {
  readonly [MARKER] = true;
  readonly code: FrontMatterErrorCode;
  readonly file: string;
  readonly line: number;
  readonly reason: string;
  /** For `FRONT_MATTER_INVALID_YAML`: the YAML parser's own message (its first line). */
  readonly parserMessage: string | undefined;

  constructor(options: { code: FrontMatterErrorCode; file: string; line: number; reason: string; parserMessage?: string; cause?: unknown }) {
    super({ name: 'FrontMatterError', kind: 'input', message: `${options.file}:${options.line}: ${options.reason}`, cause: options.cause });
    this.code = options.code;
    this.file = options.file;
    this.line = options.line;
    this.reason = options.reason;
    this.parserMessage = options.parserMessage;
  }

  static override isInstance(error: unknown): error is FrontMatterError {
    return markerCheck(MARKER)(error);
  }
}
