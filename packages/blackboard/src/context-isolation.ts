import { ConfigurationError } from '@strata/context';
import type { BlackboardEntry } from './blackboard-store.js';
import type { BlackboardDiagnostic } from './diagnostics.js';
import { matchesAnyTagPattern } from './tag-pattern.js';
import type { ContextIsolation } from './worker-skill.js';

export interface RolePerspectiveOptions {
  /** The role the worker speaks for; without one, every role's tags are hidden. */
  readonly pov?: string;
  readonly roleTagsPrefix: string;
  readonly userOnlyTags: readonly string[];
}

/**
 * `role_pov` (the seed's `filterInputsForRolePerspective`, applied after the
 * inputs are fetched and before they are assembled): keeps the worker's own
 * role tags (`<prefix>.<pov>` and below), hides every other role's tags and
 * the user-only thought tags. Takes any value: entries that are not an array
 * of tagged entries, or options without a string prefix and a string list of
 * user-only tags, are a `ConfigurationError` naming the field.
 */
export function filterInputsForRolePerspective(entries: readonly BlackboardEntry[], options: RolePerspectiveOptions): BlackboardEntry[] {
  if (!Array.isArray(entries)) throw new ConfigurationError({ setting: 'entries', message: `filterInputsForRolePerspective: entries must be an array of blackboard entries, got ${describe(entries)}` });
  const bad = entries.findIndex((entry) => typeof (entry as { tag?: unknown } | null)?.tag !== 'string');
  if (bad !== -1) throw new ConfigurationError({ setting: `entries[${bad}].tag`, message: `filterInputsForRolePerspective: entries[${bad}] must be a blackboard entry with a string tag, got ${describe(entries[bad])}` });
  const given = (options ?? {}) as Partial<Record<keyof RolePerspectiveOptions, unknown>>;
  if (typeof given.roleTagsPrefix !== 'string') throw new ConfigurationError({ setting: 'roleTagsPrefix', message: `filterInputsForRolePerspective: roleTagsPrefix must be a string, got ${describe(given.roleTagsPrefix)}` });
  if (!Array.isArray(given.userOnlyTags) || !given.userOnlyTags.every((tag) => typeof tag === 'string')) {
    throw new ConfigurationError({ setting: 'userOnlyTags', message: `filterInputsForRolePerspective: userOnlyTags must be an array of tag patterns, got ${describe(given.userOnlyTags)}` });
  }
  if (given.pov !== undefined && typeof given.pov !== 'string') throw new ConfigurationError({ setting: 'pov', message: `filterInputsForRolePerspective: pov must be a role name or undefined, got ${describe(given.pov)}` });
  return entries.filter((entry) => rolePerspectiveShows(entry.tag, options));
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? JSON.stringify(value) : typeof value;
}

function rolePerspectiveShows(tag: string, options: RolePerspectiveOptions): boolean {
  const rolePrefix = `${options.roleTagsPrefix}.`;
  if (matchesAnyTagPattern(options.userOnlyTags, tag)) return false;
  if (!tag.startsWith(rolePrefix)) return true;
  const role = tag.slice(rolePrefix.length).split('.')[0];
  return options.pov !== undefined && role === options.pov;
}

/** Whether isolation shows a tag's entries: it decides by tag alone, so a board indexed by tag is isolated tag by tag. */
export function isolationShowsTag(tag: string, options: ApplyContextIsolationOptions): boolean {
  const { isolation } = options;
  switch (isolation.mode) {
    case 'none':
      return true;
    case 'role_pov':
      return rolePerspectiveShows(tag, { ...isolation, pov: options.pov });
    case 'blind_review':
      return !matchesAnyTagPattern(isolation.hiddenTags, tag);
  }
}

/** The diagnostic of a tag isolation hid. */
export function isolationHidden(tag: string, isolation: ContextIsolation): BlackboardDiagnostic {
  return { code: 'BLACKBOARD_ISOLATION_HIDDEN', subject: tag, message: `${isolation.mode} hid ${tag}` };
}

export interface ApplyContextIsolationOptions {
  readonly isolation: ContextIsolation;
  readonly pov?: string;
}

export interface ContextIsolationResult {
  readonly entries: readonly BlackboardEntry[];
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

/** Applied after fetching and before assembly (seed 004 §7). Reports the hidden tags, sorted. */
export function applyContextIsolation(entries: readonly BlackboardEntry[], options: ApplyContextIsolationOptions): ContextIsolationResult {
  const { isolation } = options;
  if (isolation.mode === 'none') return { entries, diagnostics: [] };
  const kept = entries.filter((entry) => isolationShowsTag(entry.tag, options));
  const hiddenTags = [...new Set(entries.filter((entry) => !isolationShowsTag(entry.tag, options)).map((entry) => entry.tag))].sort();
  return { entries: kept, diagnostics: hiddenTags.map((tag) => isolationHidden(tag, isolation)) };
}
