import type { TokenEstimator } from '@strata/context';
import { BlackboardIndex } from './blackboard-index.js';
import type { BlackboardEntry, BlackboardStore, BlackboardTagSummary } from './blackboard-store.js';
import { isRecapPattern, tagsMatching } from './chunk-renderer.js';
import { parseContextOrder, type ContextOrder } from './context-order.js';
import type { WorkerContract } from './resolve-worker-contract.js';
import { entriesNeeded, type SegmentPolicy } from './segment-policy.js';
import { tagPatternWithinAny } from './tag-pattern.js';
import { DEFAULT_WELL_KNOWN_TAGS, type WellKnownTags } from './well-known-tags.js';
import { defaultWorkerEstimator, workerPlacements } from './worker-context-sections.js';

/** Entries read per page when a segment needs more than a tag's newest; pages then double. */
const FIRST_PAGE_ENTRIES = 16;

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
  /** Counts for `tail_tokens_N` segments: the estimator the assembly will use. Default: the assembly's default. */
  readonly estimator?: TokenEstimator;
  readonly signal?: AbortSignal;
}

export interface WorkerInputs {
  /** The contract's board as read: every tag within `inputTags` and the newest entries its segments need. */
  readonly board: BlackboardIndex;
  /** The entries read, oldest first: each tag's newest, and more where a segment's policy needs them. */
  readonly entries: readonly BlackboardEntry[];
  readonly contextOrder?: ContextOrder;
  /** Head revision the entries were read at. */
  readonly revision: number;
}

/**
 * Fetches the contract's whitelist by index (and, for play workers, the
 * order table, which the runtime reads and the worker never sees as
 * content): the summary of every tag within `inputTags`, then for each
 * segment pattern as many of each tag's newest entries as its policy can
 * need were that tag alone (enough whatever isolation later hides), so the
 * read costs the segments, not the board. Assembling `board` gives the
 * prompt that all of the whitelist's entries give. After
 * compress-after-worker the next worker receives only the final products and
 * the final summary (seed 004 §5): archived entries are left out unless
 * `archivedTags` asks for them by name.
 */
export async function fetchWorkerInputs(options: FetchWorkerInputsOptions): Promise<WorkerInputs> {
  const { store, contract, signal } = options;
  const tags = options.tags ?? DEFAULT_WELL_KNOWN_TAGS;
  const readOptions = { signal, archivedTags: options.archivedTags ?? [] };
  const revision = await store.headRevision({ signal });
  const summaries = await store.summarizeTags(contract.inputTags, readOptions);
  const useContextOrder = options.useContextOrder ?? (contract.segments !== undefined && tagPatternWithinAny(tags.history, contract.inputTags));
  let contextOrder: ContextOrder | undefined;
  if (useContextOrder) {
    const tables = await store.summarizeTags([tags.contextOrder], { signal, archivedTags: ['**'] });
    const table = tables.reduce<BlackboardEntry | undefined>((newest, summary) => (newest === undefined || summary.newest.revision > newest.revision ? summary.newest : newest), undefined);
    if (table !== undefined) contextOrder = parseContextOrder(table.content);
  }

  const read = new Map<string, BlackboardEntry[]>(summaries.map((summary) => [summary.tag, [summary.newest]]));
  const summaryOf = new Map(summaries.map((summary) => [summary.tag, summary]));
  const estimator = options.estimator ?? defaultWorkerEstimator();
  const named = summaries.map((summary) => summary.tag);
  const index = BlackboardIndex.fromSummaries(summaries, []);
  for (const placement of workerPlacements({ contract, contextOrder, tags })) {
    for (const { pattern, policy } of placement.patterns) {
      if (isRecapPattern(pattern, tags)) continue;
      for (const tag of tagsMatching(index, named, pattern)) {
        await readEnough({ store, summary: summaryOf.get(tag) as BlackboardTagSummary, newestFirst: read.get(tag) as BlackboardEntry[], policy, estimator, readOptions });
      }
    }
  }
  const entries = [...read.values()].flat().sort((left, right) => left.revision - right.revision);
  return { board: BlackboardIndex.fromSummaries(summaries, entries), entries, contextOrder, revision };
}

/** Reads older entries of one tag into `newestFirst` until the policy has what it can need from the tag alone. */
async function readEnough(options: {
  store: BlackboardStore;
  summary: BlackboardTagSummary;
  newestFirst: BlackboardEntry[];
  policy: SegmentPolicy;
  estimator: TokenEstimator;
  readOptions: { signal?: AbortSignal; archivedTags: readonly string[] };
}): Promise<void> {
  const { newestFirst, summary } = options;
  while (newestFirst.length < summary.count && entriesNeeded(options.policy, newestFirst, options.estimator) === undefined) {
    const oldest = newestFirst[newestFirst.length - 1] as BlackboardEntry;
    const limit = Math.max(FIRST_PAGE_ENTRIES, newestFirst.length);
    const page = await options.store.readNewest(summary.tag, { ...options.readOptions, before: oldest.revision, limit });
    if (page.length === 0) return;
    newestFirst.push(...page);
  }
}
