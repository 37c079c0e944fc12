import type { ContextContribution, SectionSlot } from './contributor.js';

const SLOTS: ReadonlySet<string> = new Set<SectionSlot>(['identity', 'governance', 'run_contract', 'capabilities', 'skills', 'state', 'guidance']);
const TRUST: ReadonlySet<string> = new Set(['trusted_data', 'untrusted_data']);

export type ContributionVerdict = { ok: true; contribution: ContextContribution } | { ok: false; error: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks one contribution's shape and ids. `seenIds` maps every section,
 * message and attachment id already taken this turn to its contributor, so
 * ids stay unique across contributors. Nothing is recorded unless the whole
 * contribution is valid: an invalid contribution is dropped whole.
 */
export function validateContribution(contributorId: string, raw: unknown, seenIds: Map<string, string>): ContributionVerdict {
  if (raw === undefined || raw === null) return { ok: true, contribution: {} };
  if (!isRecord(raw)) return { ok: false, error: 'the contribution is not an object' };
  const ids: string[] = [];
  const claim = (kind: string, id: unknown): string | undefined => {
    if (typeof id !== 'string' || id === '') return `a ${kind} needs a non-empty string id`;
    const key = `${kind}:${id}`;
    const owner = seenIds.get(key);
    if (owner !== undefined || ids.includes(key)) return `duplicate ${kind} id "${id}" (already used by "${owner ?? contributorId}")`;
    ids.push(key);
    return undefined;
  };
  for (const [field, check] of [
    ['sections', (item: Record<string, unknown>) =>
      claim('section', item.id) ??
      (SLOTS.has(String(item.slot)) ? undefined : `section "${item.id}" has unknown slot ${JSON.stringify(item.slot)}`) ??
      (typeof item.content === 'string' ? undefined : `section "${item.id}" needs string content`)],
    ['messages', (item: Record<string, unknown>) =>
      claim('message', item.id) ??
      (item.role === 'user' ? undefined : `message "${item.id}" has role ${JSON.stringify(item.role)}; contributors may only add user messages, never assistant or tool messages`) ??
      (typeof item.content === 'string' ? undefined : `message "${item.id}" needs string content`)],
    ['attachments', (item: Record<string, unknown>) =>
      claim('attachment', item.id) ??
      (typeof item.source === 'string' && item.source !== '' ? undefined : `attachment "${item.id}" needs a source`) ??
      (TRUST.has(String(item.trust)) ? undefined : `attachment "${item.id}" has unknown trust ${JSON.stringify(item.trust)}`) ??
      (typeof item.content === 'string' ? undefined : `attachment "${item.id}" needs string content`)],
    ['diagnostics', (item: Record<string, unknown>) =>
      typeof item.code === 'string' && typeof item.message === 'string' ? undefined : 'a diagnostic needs a code and a message'],
  ] as const) {
    const list = raw[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return { ok: false, error: `${field} must be an array` };
    for (const item of list) {
      if (!isRecord(item)) return { ok: false, error: `an entry of ${field} is not an object` };
      const problem = check(item);
      if (problem) return { ok: false, error: problem };
    }
  }
  for (const key of ids) seenIds.set(key, contributorId);
  return { ok: true, contribution: raw as ContextContribution };
}
