import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolDefinition, ToolOutcome } from '@strata/context';
import { SkillFormatError } from '../errors/skill-format-error.js';
import { describeThrown, toolErrorOutcome } from '../tool-error.js';
import type { SkillCatalog } from './load-skills.js';
import { parseSkillFile } from './skill-file.js';
import { type SkillReference, skillRevision } from './skill-revision.js';

export const READ_SKILL_NAME = 'read_skill';

export interface ReadSkillToolOptions {
  readonly catalog: SkillCatalog;
  /** A skill's extra file is cut past this many characters. Default 100,000. */
  readonly maxFileChars?: number;
}

const DEFAULTS = Object.freeze({ maxFileChars: 100_000 });

/**
 * `read_skill`: the one way a skill body enters the context. Reads SKILL.md
 * at call time, so the answer carries the revision of the bytes actually
 * read; the outcome's `data.skillReference` is the durable `{ name,
 * revision }` (plus `file` for one of the skill's other files).
 */
export function createReadSkillTool(options: ReadSkillToolOptions): ToolDefinition {
  const { catalog } = options;
  const maxFileChars = options.maxFileChars ?? DEFAULTS.maxFileChars;
  const byName = new Map(catalog.skills.map((skill) => [skill.name, skill]));
  return {
    name: READ_SKILL_NAME,
    description: "Load a skill's full instructions by name (from the skills list), or one of the skill's other files by its relative path.",
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, description: 'The skill name as listed.' },
        file: { type: 'string', minLength: 1, description: "Optional: a file of the skill, by the relative path listed with it." },
      },
      required: ['name'],
      additionalProperties: false,
    },
    concurrencySafe: true,
    async execute(input, { signal }): Promise<ToolOutcome> {
      const { name, file } = input as { name: string; file?: string };
      const skill = byName.get(name);
      if (skill === undefined) {
        return toolErrorOutcome({ code: 'SKILL_UNKNOWN', tool: READ_SKILL_NAME, message: `there is no skill named ${JSON.stringify(name)}`, details: { availableSkills: [...byName.keys()] } });
      }
      if (file !== undefined && !skill.files.includes(file)) {
        return toolErrorOutcome({ code: 'SKILL_FILE_INVALID', tool: READ_SKILL_NAME, message: `skill "${name}" has no file ${JSON.stringify(file)}`, details: { files: [...skill.files] } });
      }
      const path = file === undefined ? skill.file : join(skill.directory, ...file.split('/'));
      let bytes: Buffer;
      try {
        bytes = await readFile(path, { signal });
      } catch (error) {
        if (signal.aborted) throw error;
        return toolErrorOutcome({ code: 'SKILL_UNREADABLE', tool: READ_SKILL_NAME, message: `cannot read ${file ?? 'SKILL.md'} of skill "${name}": ${describeThrown(error)}` });
      }
      const revision = skillRevision(bytes);
      const text = bytes.toString('utf8');
      if (file !== undefined) {
        const shown = text.length > maxFileChars ? `${text.slice(0, maxFileChars)}\n[cut at ${maxFileChars} of ${text.length} chars]` : text;
        return {
          content: `${openTag({ name, revision, file })}\n${shown}\n</skill-file>`,
          data: { skillReference: { name, revision, file } },
        };
      }
      let body: string;
      try {
        body = parseSkillFile(text, skill.file).body;
      } catch (error) {
        if (!SkillFormatError.isInstance(error)) throw error;
        return toolErrorOutcome({ code: 'SKILL_UNREADABLE', tool: READ_SKILL_NAME, message: `skill "${name}" is malformed now: ${error.message}` });
      }
      const listing = skill.files.length === 0 ? '' : `\nFiles of this skill (read one with read_skill {"name":${JSON.stringify(name)},"file":"<path>"}): ${skill.files.join(', ')}`;
      return {
        content: `${openTag({ name, revision })}\n${body.replace(/^\r?\n/, '').trimEnd()}\n</skill>${listing}`,
        data: { skillReference: { name, revision } },
      };
    },
  };
}

function openTag(reference: SkillReference & { readonly file?: string }): string {
  return reference.file === undefined
    ? `<skill name=${JSON.stringify(reference.name)} revision="${reference.revision}">`
    : `<skill-file skill=${JSON.stringify(reference.name)} file=${JSON.stringify(reference.file)} revision="${reference.revision}">`;
}

/**
 * The reference a `read_skill` result's content carries in its first line, so
 * history alone tells which skill revision is still in context; undefined
 * for any other content (including a skill's extra file).
 */
export function skillReferenceFromContent(content: string): SkillReference | undefined {
  const match = /^<skill name=("(?:[^"\\]|\\.)*") revision="(sha256:[0-9a-f]{64})">/.exec(content);
  if (match === null) return undefined;
  return { name: JSON.parse(match[1]!) as string, revision: match[2]! };
}
