import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSkillMarkdown } from './parse-skill-markdown.js';
import { validateSkill } from './validate-skill.js';
import type { WorkerSkill } from './worker-skill.js';

/** A skill package: genre-wide constraints plus its workers, by name. */
export interface SkillPackage {
  /** `shared-context.md`, trimmed; empty when the package has none. */
  readonly sharedContext: string;
  /** Workers sorted by name. */
  readonly skills: ReadonlyMap<string, WorkerSkill>;
}

export interface LoadSkillPackageOptions {
  /** The package folder holding `shared-context.md` and `workers/<name>/SKILL.md`. */
  readonly directory: string;
  readonly signal?: AbortSignal;
}

/**
 * Reads and validates a skill package from disk. Any malformed or unsound
 * skill fails the whole load, naming the file (and line) or the skill and field.
 */
export async function loadSkillPackage(options: LoadSkillPackageOptions): Promise<SkillPackage> {
  const { directory, signal } = options;
  const sharedContext = await readOptional(join(directory, 'shared-context.md'), signal);
  const workersDirectory = join(directory, 'workers');
  const folders = (await readdir(workersDirectory, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const skills = new Map<string, WorkerSkill>();
  for (const name of folders) {
    signal?.throwIfAborted();
    const file = join(workersDirectory, name, 'SKILL.md');
    const text = await readOptional(file, signal);
    if (text === undefined) continue;
    const skill = parseSkillMarkdown({ text, file, name });
    validateSkill(skill);
    skills.set(name, skill);
  }
  return { sharedContext: sharedContext?.trim() ?? '', skills };
}

async function readOptional(file: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  try {
    return await readFile(file, { encoding: 'utf8', signal });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
