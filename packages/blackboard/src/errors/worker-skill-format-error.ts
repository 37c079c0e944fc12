import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.WorkerSkillFormatError');

/**
 * A SKILL.md (or shared-context.md) cannot be read as a skill: missing or
 * malformed YAML frontmatter, a field of the wrong type. `file` and `line`
 * (1-based, in the file, when known) locate it; `field` names the field.
 */
export class WorkerSkillFormatError extends StrataError {
  readonly [MARKER] = true;
  readonly file: string;
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor(options: { file: string; line?: number; field?: string; message: string; cause?: unknown }) {
    const where = options.line === undefined ? options.file : `${options.file}:${options.line}`;
    super({ name: 'WorkerSkillFormatError', kind: 'input', message: `${where}: ${options.message}`, cause: options.cause });
    this.file = options.file;
    this.line = options.line;
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is WorkerSkillFormatError {
    return markerCheck(MARKER)(error);
  }
}
