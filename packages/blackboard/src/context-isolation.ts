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
 * `role_pov`: keeps the worker's own role tags (`<prefix>.<pov>` and below),
 * hides every other role's tags and the user-only thought tags.
 */
export function filterInputsForRolePerspective(entries: readonly BlackboardEntry[], options: RolePerspectiveOptions): BlackboardEntry[] {
  const rolePrefix = `${options.roleTagsPrefix}.`;
  return entries.filter((entry) => {
    if (matchesAnyTagPattern(options.userOnlyTags, entry.tag)) return false;
    if (!entry.tag.startsWith(rolePrefix)) return true;
    const role = entry.tag.slice(rolePrefix.length).split('.')[0];
    return options.pov !== undefined && role === options.pov;
  });
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
  let kept: readonly BlackboardEntry[];
  switch (isolation.mode) {
    case 'none':
      return { entries, diagnostics: [] };
    case 'role_pov':
      kept = filterInputsForRolePerspective(entries, { ...isolation, pov: options.pov });
      break;
    case 'blind_review':
      kept = entries.filter((entry) => !matchesAnyTagPattern(isolation.hiddenTags, entry.tag));
      break;
  }
  const keptSet = new Set(kept);
  const hiddenTags = [...new Set(entries.filter((entry) => !keptSet.has(entry)).map((entry) => entry.tag))].sort();
  const diagnostics: BlackboardDiagnostic[] = hiddenTags.map((tag) => ({
    code: 'BLACKBOARD_ISOLATION_HIDDEN',
    subject: tag,
    message: `${isolation.mode} hid ${tag}`,
  }));
  return { entries: kept, diagnostics };
}
