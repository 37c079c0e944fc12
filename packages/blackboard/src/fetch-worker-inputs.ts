import { ENTRY_ROLE_ARCHIVED, type BlackboardEntry, type BlackboardStore } from './blackboard-store.js';
import { parseContextOrder, type ContextOrder } from './context-order.js';
import type { WorkerContract } from './resolve-worker-contract.js';
import { matchesAnyTagPattern, tagPatternWithinAny } from './tag-pattern.js';
import { DEFAULT_WELL_KNOWN_TAGS, type WellKnownTags } from './well-known-tags.js';

export interface FetchWorkerInputsOptions {
  readonly store: BlackboardStore;
  readonly contract: WorkerContract;
  /**
   * Read the projection order table and assemble in its order. Default: when
   * the worker has segments and may read the dialogue history (a play worker).
   */
  readonly useContextOrder?: boolean;
  readonly tags?: WellKnownTags;
  /**
   * Tags (patterns) whose archived entries the contract asks for by name.
   * Default none: archived previews stay on the board for history and audit
   * and are not worker inputs.
   */
  readonly archivedTags?: readonly string[];
  readonly signal?: AbortSignal;
}

export interface WorkerInputs {
  /** Entries within the contract's `inputTags`, oldest first; archived ones only where `archivedTags` names them. */
  readonly entries: readonly BlackboardEntry[];
  readonly contextOrder?: ContextOrder;
  /** Head revision the entries were read at. */
  readonly revision: number;
}

/**
 * Fetches exactly the contract's whitelist (and, for play workers, the order
 * table, which the runtime reads and the worker never sees as content).
 * After compress-after-worker the next worker receives only the final
 * products and the final summary (seed 004 §5): archived entries are left
 * out unless `archivedTags` asks for them by name.
 */
export async function fetchWorkerInputs(options: FetchWorkerInputsOptions): Promise<WorkerInputs> {
  const { store, contract, signal } = options;
  const tags = options.tags ?? DEFAULT_WELL_KNOWN_TAGS;
  const queryOptions = { signal };
  const revision = await store.headRevision(queryOptions);
  const archivedTags = options.archivedTags ?? [];
  const entries = (await store.query(contract.inputTags, queryOptions)).filter((entry) => entry.role !== ENTRY_ROLE_ARCHIVED || matchesAnyTagPattern(archivedTags, entry.tag));
  const useContextOrder = options.useContextOrder ?? (contract.segments !== undefined && tagPatternWithinAny(tags.history, contract.inputTags));
  if (!useContextOrder) return { entries, revision };
  const table = (await store.query([tags.contextOrder], queryOptions)).at(-1);
  return table === undefined ? { entries, revision } : { entries, revision, contextOrder: parseContextOrder(table.content) };
}
