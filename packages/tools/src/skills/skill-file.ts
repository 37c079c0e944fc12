import type { JsonValue } from '@strata/context';
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
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

const FENCE = /^---[ \t]*\r?$/;

/**
 * Parses a `SKILL.md`: a YAML frontmatter block between `---` lines, then the
 * body. Requires a non-empty string `name` (matching `SKILL_NAME_PATTERN`) and
 * `description`. Throws `SkillFormatError` naming `file` and the line.
 */
export function parseSkillFile(text: string, file: string): SkillFile {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split('\n');
  const fail = (code: SkillFormatError['code'], line: number, message: string): never => {
    throw new SkillFormatError({ code, file, line, message: `${file}:${line}: ${message}` });
  };
  if (!FENCE.test(lines[0] ?? '')) fail('SKILL_FRONTMATTER_MISSING', 1, 'a SKILL.md must start with a YAML frontmatter block opened by a "---" line (with at least name and description)');
  const closing = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (closing === -1) fail('SKILL_FRONTMATTER_UNTERMINATED', 1, 'the frontmatter opened on line 1 is never closed by a "---" line');

  const yamlText = lines.slice(1, closing).join('\n');
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter, prettyErrors: false });
  // Frontmatter line 1 is file line 2.
  const fileLine = (offset: number): number => lineCounter.linePos(offset).line + 1;
  const firstError = document.errors[0];
  if (firstError !== undefined) {
    fail('SKILL_FRONTMATTER_INVALID', fileLine(firstError.pos[0]), `the frontmatter is not valid YAML: ${firstError.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  const contents = document.contents;
  if (contents !== null && !isMap(contents)) fail('SKILL_FRONTMATTER_INVALID', 2, 'the frontmatter must be a YAML mapping of fields (name: ..., description: ...)');
  const lineOf = (key: string): number => {
    const item = isMap(contents) ? contents.items.find((entry) => isScalar(entry.key) && entry.key.value === key) : undefined;
    const offset = item !== undefined && isScalar(item.key) ? item.key.range?.[0] : undefined;
    return offset === undefined ? 1 : fileLine(offset);
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
    body: lines.slice(closing + 1).join('\n'),
    bodyLine: closing + 2,
  };
}
