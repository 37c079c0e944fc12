import { FrontMatterError, readFrontMatter, type FrontMatter, type FrontMatterErrorCode, type JsonValue } from '@strata/context';
import { isMap, isScalar } from 'yaml';
import { SkillFormatError } from '../errors/skill-format-error.js';

/** The parsed `SKILL.md`: frontmatter fields and the instruction body. */
export interface SkillFile {
  readonly name: string;
  readonly description: string;
  /** The frontmatter's optional `metadata` map; `{}` when absent. */
  readonly metadata: { readonly [key: string]: JsonValue };
  /** Every frontmatter field, as JSON. */
  readonly frontmatter: { readonly [key: string]: JsonValue };
  /** Everything after the closing `---` line, verbatim. */
  readonly body: string;
  /** The 1-based line of `SKILL.md` where the body starts. */
  readonly bodyLine: number;
}

/** Skill names: letters or digits, then letters, digits, `_`, `.` or `-`; at most 64 characters. */
export const SKILL_NAME_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,63}$/u;

/** What each front-matter fault is called here; the fence rules live in `readFrontMatter`. */
const FRONT_MATTER_CODES: { readonly [code in FrontMatterErrorCode]: SkillFormatError['code'] } = {
  FRONT_MATTER_MISSING: 'SKILL_FRONTMATTER_MISSING',
  FRONT_MATTER_UNTERMINATED: 'SKILL_FRONTMATTER_UNTERMINATED',
  FRONT_MATTER_INVALID_YAML: 'SKILL_FRONTMATTER_INVALID',
  FRONT_MATTER_NOT_A_MAPPING: 'SKILL_FRONTMATTER_INVALID',
};

/**
 * Parses a `SKILL.md`: a YAML frontmatter block between `---` lines, then the
 * body. Requires a non-empty string `name` (matching `SKILL_NAME_PATTERN`) and
 * `description`. Throws `SkillFormatError` naming `file` and the line.
 */
export function parseSkillFile(text: string, file: string): SkillFile {
  const fail = (code: SkillFormatError['code'], line: number, message: string, cause?: unknown): never => {
    throw new SkillFormatError({ code, file, line, message: `${file}:${line}: ${message}`, cause });
  };
  let frontMatter: FrontMatter;
  try {
    frontMatter = readFrontMatter({ text, file });
  } catch (error) {
    if (!FrontMatterError.isInstance(error)) throw error;
    // An unterminated block is reported where it opens, line 1.
    return fail(FRONT_MATTER_CODES[error.code], error.code === 'FRONT_MATTER_UNTERMINATED' ? 1 : error.line, frontMatterMessage(error), error);
  }
  const { document } = frontMatter;
  const contents = document.contents;
  const lineOf = (key: string): number => {
    const item = isMap(contents) ? contents.items.find((entry) => isScalar(entry.key) && entry.key.value === key) : undefined;
    const offset = item !== undefined && isScalar(item.key) ? item.key.range?.[0] : undefined;
    return offset === undefined ? 1 : frontMatter.lineOf(offset);
  };
  const fields = (document.toJS() ?? {}) as { [key: string]: JsonValue };

  const name = fields['name'];
  if (name === undefined || name === null || (typeof name === 'string' && name.trim() === '')) {
    fail('SKILL_NAME_MISSING', name === undefined ? 1 : lineOf('name'), 'the frontmatter has no "name" field; add name: <skill-name>');
  }
  if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name)) {
    fail('SKILL_NAME_INVALID', lineOf('name'), `"name" must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit (got ${JSON.stringify(name)})`);
  }
  const description = fields['description'];
  if (typeof description !== 'string' || description.trim() === '') {
    fail('SKILL_DESCRIPTION_MISSING', description === undefined ? 1 : lineOf('description'), 'the frontmatter needs a non-empty "description" saying when to use the skill');
  }
  const metadata = fields['metadata'] ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    fail('SKILL_METADATA_INVALID', lineOf('metadata'), '"metadata" must be a mapping of fields');
  }
  return {
    name: name as string,
    description: (description as string).trim(),
    metadata: metadata as { [key: string]: JsonValue },
    frontmatter: fields,
    body: frontMatter.body,
    bodyLine: frontMatter.bodyLine,
  };
}

function frontMatterMessage(error: FrontMatterError): string {
  switch (error.code) {
    case 'FRONT_MATTER_MISSING':
      return 'a SKILL.md must start with a YAML frontmatter block opened by a "---" line (with at least name and description)';
    case 'FRONT_MATTER_UNTERMINATED':
      return 'the frontmatter opened on line 1 is never closed by a "---" line';
    case 'FRONT_MATTER_INVALID_YAML':
      return `the frontmatter is not valid YAML: ${error.parserMessage}`;
    case 'FRONT_MATTER_NOT_A_MAPPING':
      return 'the frontmatter must be a YAML mapping of fields (name: ..., description: ...)';
  }
}
