import { ContextWorkspaceInputError } from './errors/context-workspace-input-error.js';
import { describe } from './validate.js';

/** Lowest first: the rank of an urgency is its index here. */
export const URGENCIES = Object.freeze(['LOW', 'NORMAL', 'HIGH', 'CRITICAL'] as const);

export type Urgency = (typeof URGENCIES)[number];

export const DEFAULT_URGENCY: Urgency = 'NORMAL';

export function urgencyRank(urgency: Urgency): number {
  return URGENCIES.indexOf(urgency);
}

/** The highest of the given urgencies; `NORMAL` for none. */
export function highestUrgency(urgencies: Iterable<Urgency>): Urgency {
  let highest: Urgency | undefined;
  for (const urgency of urgencies) {
    if (highest === undefined || urgencyRank(urgency) > urgencyRank(highest)) highest = urgency;
  }
  return highest ?? DEFAULT_URGENCY;
}

export function parseUrgency(value: unknown, field: string): Urgency {
  if (typeof value !== 'string' || !(URGENCIES as readonly string[]).includes(value)) {
    throw new ContextWorkspaceInputError({
      code: 'WORKSPACE_UNKNOWN_URGENCY',
      field,
      message: `${field} is ${describe(value)}, not an urgency (${URGENCIES.join(', ')})`,
    });
  }
  return value as Urgency;
}
