import { parse as parseYaml } from 'yaml';
import { ContextOrderError } from './errors/context-order-error.js';
import { parseSegmentPolicy } from './segment-policy.js';
import { isValidTagPattern } from './tag-pattern.js';

/**
 * The projection order table (`context_order`): the flat order in which a
 * play worker's prompt is assembled. The dialogue history is an ordinary
 * insert. Tier is only a cache hint; this order is authoritative.
 */
export interface ContextOrder {
  /** Sorted by `order`, ties kept in table order. */
  readonly inserts: readonly ContextOrderInsert[];
}

export interface ContextOrderInsert {
  readonly order: number;
  /** A tag pattern; it must lie within the worker's `inputTags` to be shown. */
  readonly tag: string;
  /** Markdown heading; default: the label of the segment that holds exactly this pattern alone. */
  readonly label?: string;
  /** Trimming; default: the policy of the segment holding the pattern, else `latest`. */
  readonly policy?: string;
}

/**
 * Reads a table stored on the blackboard: JSON or YAML, either
 * `{ inserts: [...] }` or the bare list. Throws `ContextOrderError` naming the field.
 */
export function parseContextOrder(text: string): ContextOrder {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ContextOrderError({ field: '(document)', message: 'is neither JSON nor YAML', cause: error });
  }
  const list = Array.isArray(value) ? value : (value as { inserts?: unknown } | null)?.inserts;
  if (!Array.isArray(list)) throw new ContextOrderError({ field: 'inserts', message: 'must be a list of { order, tag }' });
  const inserts = list.map((item: unknown, index): ContextOrderInsert => {
    const field = `inserts[${index}]`;
    if (typeof item !== 'object' || item === null) throw new ContextOrderError({ field, message: 'must be a mapping { order, tag }' });
    const { order, tag, label, policy } = item as Record<string, unknown>;
    if (typeof order !== 'number' || !Number.isFinite(order)) throw new ContextOrderError({ field: `${field}.order`, message: 'must be a number' });
    if (typeof tag !== 'string' || !isValidTagPattern(tag)) throw new ContextOrderError({ field: `${field}.tag`, message: `${JSON.stringify(tag)} is not a tag pattern` });
    if (label !== undefined && typeof label !== 'string') throw new ContextOrderError({ field: `${field}.label`, message: 'must be a string' });
    if (policy !== undefined && (typeof policy !== 'string' || parseSegmentPolicy(policy) === undefined)) {
      throw new ContextOrderError({ field: `${field}.policy`, message: `${JSON.stringify(policy)} is not a policy` });
    }
    return { order, tag, ...(label === undefined ? {} : { label }), ...(policy === undefined ? {} : { policy }) };
  });
  return { inserts: sortInserts(inserts) };
}

export function sortInserts(inserts: readonly ContextOrderInsert[]): ContextOrderInsert[] {
  return inserts
    .map((insert, index) => ({ insert, index }))
    .sort((left, right) => left.insert.order - right.insert.order || left.index - right.index)
    .map(({ insert }) => insert);
}

/** Stable JSON for storing a table on the blackboard: same table, same bytes. */
export function formatContextOrder(order: ContextOrder): string {
  const inserts = sortInserts(order.inserts).map((insert) => ({
    order: insert.order,
    tag: insert.tag,
    label: insert.label,
    policy: insert.policy,
  }));
  return JSON.stringify({ inserts }, null, 2);
}
