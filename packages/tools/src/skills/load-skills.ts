import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { JsonValue } from '@strata/context';
import { SkillFormatError } from '../errors/skill-format-error.js';
import { parseSkillFile } from './skill-file.js';
import { skillRevision } from './skill-revision.js';

export const SKILL_FILE_NAME = 'SKILL.md';

/** One skill of a catalog, as loaded. The body is not kept: it is read again by `read_skill`. */
export interface SkillEntry {
  readonly name: string;
  readonly description: string;
  readonly metadata: { readonly [key: string]: JsonValue };
  /** The skill's folder. */
  readonly directory: string;
  /** Its SKILL.md. */
  readonly file: string;
  /** The revision at load time. */
  readonly revision: string;
  /** The folder's other files, relative, with `/` separators, sorted. */
  readonly files: readonly string[];
}

export interface SkillCatalog {
  readonly directory: string;
  /** Sorted by name. */
  readonly skills: readonly SkillEntry[];
}

export interface LoadSkillsOptions {
  /** Files listed per skill at most (deeper folders are not listed past this). Default 200. */
  readonly maxFilesPerSkill?: number;
  readonly signal?: AbortSignal;
}

const DEFAULTS = Object.freeze({ maxFilesPerSkill: 200 });

/**
 * Loads every skill under `directory`: each child folder holding a
 * `SKILL.md`. Folders without one are ignored. A malformed SKILL.md or two
 * skills with one name throw `SkillFormatError` naming the file.
 */
export async function loadSkills(directory: string, options: LoadSkillsOptions = {}): Promise<SkillCatalog> {
  const { signal } = options;
  const maxFilesPerSkill = options.maxFilesPerSkill ?? DEFAULTS.maxFilesPerSkill;
  let entries: string[];
  try {
    entries = (await readdir(directory)).sort();
  } catch (error) {
    throw new SkillFormatError({ code: 'SKILL_DIRECTORY_UNREADABLE', file: directory, message: `cannot read the skills directory ${directory}: ${(error as Error).message}`, cause: error });
  }
  const skills: SkillEntry[] = [];
  const byName = new Map<string, SkillEntry>();
  for (const entry of entries) {
    signal?.throwIfAborted();
    const skillDirectory = join(directory, entry);
    if (!(await isDirectory(skillDirectory))) continue;
    const file = join(skillDirectory, SKILL_FILE_NAME);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new SkillFormatError({ code: 'SKILL_DIRECTORY_UNREADABLE', file, message: `cannot read ${file}: ${(error as Error).message}`, cause: error });
    }
    const parsed = parseSkillFile(bytes.toString('utf8'), file);
    const earlier = byName.get(parsed.name);
    if (earlier !== undefined) {
      throw new SkillFormatError({ code: 'SKILL_NAME_DUPLICATE', file, line: 1, message: `${file}: the skill name "${parsed.name}" is already used by ${earlier.file}` });
    }
    const skill: SkillEntry = {
      name: parsed.name,
      description: parsed.description,
      metadata: parsed.metadata,
      directory: skillDirectory,
      file,
      revision: skillRevision(bytes),
      files: await listFiles(skillDirectory, maxFilesPerSkill),
    };
    byName.set(skill.name, skill);
    skills.push(skill);
  }
  skills.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  return { directory, skills };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Regular files under `root` except its SKILL.md, breadth-first, sorted, at most `limit`. */
async function listFiles(root: string, limit: number): Promise<readonly string[]> {
  const found: string[] = [];
  const queue = [root];
  while (queue.length > 0 && found.length < limit) {
    const current = queue.shift()!;
    for (const name of (await readdir(current)).sort()) {
      const path = join(current, name);
      const info = await stat(path).catch(() => undefined);
      if (info === undefined) continue;
      if (info.isDirectory()) queue.push(path);
      else if (info.isFile() && path !== join(root, SKILL_FILE_NAME) && found.length < limit) found.push(relative(root, path).split(sep).join('/'));
    }
  }
  return found.sort();
}
