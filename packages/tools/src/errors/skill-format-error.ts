import { StrataError, markerCheck } from '@strata/context';

const MARKER = Symbol.for('strata.error.SkillFormatError');

export type SkillFormatErrorCode =
  | 'SKILL_FRONTMATTER_MISSING'
  | 'SKILL_FRONTMATTER_UNTERMINATED'
  | 'SKILL_FRONTMATTER_INVALID'
  | 'SKILL_NAME_MISSING'
  | 'SKILL_NAME_INVALID'
  | 'SKILL_DESCRIPTION_MISSING'
  | 'SKILL_METADATA_INVALID'
  | 'SKILL_NAME_DUPLICATE'
  | 'SKILL_DIRECTORY_UNREADABLE';

/** A skill folder cannot be loaded. `file` is the SKILL.md (or folder); `line` is 1-based when known. */
export class SkillFormatError extends StrataError {
  readonly [MARKER] = true;
  readonly code: SkillFormatErrorCode;
  readonly file: string;
  readonly line: number | undefined;

  constructor(options: { code: SkillFormatErrorCode; file: string; line?: number; message: string; cause?: unknown }) {
    super({ name: 'SkillFormatError', kind: 'input', message: options.message, cause: options.cause });
    this.code = options.code;
    this.file = options.file;
    this.line = options.line;
  }

  static override isInstance(error: unknown): error is SkillFormatError {
    return markerCheck(MARKER)(error);
  }
}
