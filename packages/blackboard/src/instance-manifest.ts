import { ManifestError } from './errors/manifest-error.js';
import { parseSegmentPolicy } from './segment-policy.js';
import type { WorkerSkill } from './worker-skill.js';

/** Per run skill: a predefined variant and a history policy. Never tags. */
export interface ContextProfile {
  readonly variant?: string;
  /** Any policy name; usually `last_N_turns`. Applies to the segment holding the history tag. */
  readonly historyPolicy?: string;
}

/** Written at instantiation (into `设计.worker集` or a Book manifest), seed 004 §6. */
export interface InstanceManifest {
  readonly runSkills: readonly string[];
  readonly contextProfile: Readonly<Record<string, ContextProfile>>;
}

/** Keys that would let a manifest list tags; rejected wherever they appear. */
export const TAG_LISTING_KEYS: readonly string[] = Object.freeze(['inputTags', 'outputTags', 'tags', 'contextSegments', 'segments', 'hiddenTags', 'userOnlyTags']);

export interface ParseInstanceManifestOptions {
  /** When given, skills and variants are checked against it. */
  readonly skills?: ReadonlyMap<string, WorkerSkill>;
}

/**
 * Reads an instance manifest (an object, or its JSON text). Rejects, with a
 * `ManifestError` naming the field: any attempt to list tags, a profile for
 * a skill not in `runSkills`, unknown profile fields, an unknown skill or
 * variant, a history policy that does not parse.
 */
export function parseInstanceManifest(input: unknown, options: ParseInstanceManifestOptions = {}): InstanceManifest {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input) as unknown;
    } catch (error) {
      throw new ManifestError({ field: '(document)', message: `is not JSON: ${(error as Error).message}` });
    }
  }
  if (!isRecord(value)) throw new ManifestError({ field: '(document)', message: 'must be an object with runSkills' });
  rejectTagLists(value, '');
  const runSkills = value['runSkills'];
  if (!Array.isArray(runSkills) || runSkills.some((skill) => typeof skill !== 'string' || skill.length === 0)) {
    throw new ManifestError({ field: 'runSkills', message: 'must be a list of skill names' });
  }
  const names = runSkills as string[];
  if (options.skills !== undefined) {
    names.forEach((name, index) => {
      if (!options.skills?.has(name)) throw new ManifestError({ field: `runSkills[${index}]`, message: `"${name}" is not a skill of the package` });
    });
  }
  const profiles = value['contextProfile'] ?? {};
  if (!isRecord(profiles)) throw new ManifestError({ field: 'contextProfile', message: 'must map skill names to { variant, historyPolicy }' });
  const contextProfile: Record<string, ContextProfile> = {};
  for (const skillName of Object.keys(profiles).sort()) {
    const field = `contextProfile.${skillName}`;
    const profile = profiles[skillName];
    if (!names.includes(skillName)) throw new ManifestError({ field, message: `"${skillName}" is not in runSkills` });
    if (!isRecord(profile)) throw new ManifestError({ field, message: 'must be { variant?, historyPolicy? }' });
    for (const key of Object.keys(profile)) {
      if (key !== 'variant' && key !== 'historyPolicy') throw new ManifestError({ field: `${field}.${key}`, message: 'is not a profile field (variant, historyPolicy)' });
    }
    const { variant, historyPolicy } = profile;
    if (variant !== undefined) {
      if (typeof variant !== 'string') throw new ManifestError({ field: `${field}.variant`, message: 'must be a variant name' });
      const skill = options.skills?.get(skillName);
      if (skill !== undefined && skill.variants[variant] === undefined) {
        throw new ManifestError({ field: `${field}.variant`, message: `"${variant}" is not a variant of ${skillName}` });
      }
    }
    if (historyPolicy !== undefined && (typeof historyPolicy !== 'string' || parseSegmentPolicy(historyPolicy) === undefined)) {
      throw new ManifestError({ field: `${field}.historyPolicy`, message: `${JSON.stringify(historyPolicy)} is not a policy (e.g. last_15_turns)` });
    }
    contextProfile[skillName] = {
      ...(variant === undefined ? {} : { variant: variant as string }),
      ...(historyPolicy === undefined ? {} : { historyPolicy: historyPolicy as string }),
    };
  }
  return { runSkills: [...names], contextProfile };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rejectTagLists(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => rejectTagLists(item, `${path}[${index}]`));
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const field = path.length === 0 ? key : `${path}.${key}`;
    if (TAG_LISTING_KEYS.includes(key)) {
      throw new ManifestError({ field, message: 'lists tags; agents choose a predefined variant, never tag lists (define a variant in the skill instead)' });
    }
    rejectTagLists(child, field);
  }
}
