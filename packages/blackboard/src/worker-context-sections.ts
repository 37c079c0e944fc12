import { ConfigurationError, ConservativeTokenEstimator, type TokenEstimator } from '@strata/context';
import { ChunkRenderer, tagsMatching } from './chunk-renderer.js';
import { BlackboardIndex } from './blackboard-index.js';
import type { BlackboardEntry } from './blackboard-store.js';
import { isolationHidden, isolationShowsTag } from './context-isolation.js';
import type { ContextOrder } from './context-order.js';
import type { BlackboardDiagnostic } from './diagnostics.js';
import { TagError } from './errors/tag-error.js';
import type { ResolvedSegment, WorkerContract } from './resolve-worker-contract.js';
import { DEFAULT_SEGMENT_POLICY, parseSegmentPolicy } from './segment-policy.js';
import { matchesAnyTagPattern, parseTagPattern, tagPatternWithinAny } from './tag-pattern.js';
import { DEFAULT_WELL_KNOWN_TAGS, type WellKnownTags } from './well-known-tags.js';
import {
  DEFAULT_TAIL_LABELS,
  type Placement,
  type TailLabels,
  type WorkerContextChunk,
  type WorkerContextTailItem,
} from './worker-context-chunk.js';

export interface WorkerContextSections {
  readonly skill: string;
  readonly variant?: string;
  /** `stack`: static then dynamic segments; `context_order`: the table's flat order; `fallback`: inputs as JSON. */
  readonly form: 'stack' | 'context_order' | 'fallback';
  readonly chunks: readonly WorkerContextChunk[];
  /** After every chunk: final-draft summary, draft under revision, this step's task (the task last). */
  readonly tail: readonly WorkerContextTailItem[];
  readonly diagnostics: readonly BlackboardDiagnostic[];
}

export interface AssembleWorkerContextOptions {
  readonly contract: WorkerContract;
  /** Blackboard entries, in any order; anything outside `inputTags` is ignored. Give this or `board`. */
  readonly entries?: readonly BlackboardEntry[];
  /**
   * The board indexed by tag (`fetchWorkerInputs` reads one for the contract,
   * `BlackboardIndex.fromEntries` builds one), instead of `entries`: the
   * assembly then costs what its segments take. Same board, same prompt.
   */
  readonly board?: BlackboardIndex;
  /** The role a `role_pov` worker speaks for. */
  readonly pov?: string;
  /** `shared-context.md` of the skill package. */
  readonly sharedContext?: string;
  /** The projection order table; when present it decides the order. */
  readonly contextOrder?: ContextOrder;
  /** This step's task, last in the tail. */
  readonly task?: string;
  /** A tag within `inputTags` holding the draft under revision (its newest entry goes in the tail). */
  readonly draftTag?: string;
  /** Counts for `tail_tokens_N` policies. Default: the conservative estimator of `@strata/context` (unknown family). */
  readonly estimator?: TokenEstimator;
  readonly tags?: WellKnownTags;
  readonly labels?: TailLabels;
}

/**
 * The single assembly point, in sections (seed 004 §9). Isolation runs first
 * (after fetching, before assembly); then chunks in stack order (shared
 * context, skill body, static segments, dynamic segments) or in the flat
 * order of `context_order`; then the tail. Pure: same input, same output.
 */
export function assembleWorkerContextSections(options: AssembleWorkerContextOptions): WorkerContextSections {
  const { contract } = options;
  const tags = options.tags ?? DEFAULT_WELL_KNOWN_TAGS;
  const labels = options.labels ?? DEFAULT_TAIL_LABELS;
  const diagnostics: BlackboardDiagnostic[] = [];
  if (options.board !== undefined && options.entries !== undefined) {
    throw new ConfigurationError({ setting: 'board', message: `assembling ${contract.skill}: give entries or a board, not both` });
  }
  // Revision order, whatever order the caller passed: same entries, same prompt.
  const board = options.board ?? BlackboardIndex.fromEntries(options.entries ?? []);
  const inputTags = contract.inputTags.map((pattern) => parseTagPattern(pattern));
  const whitelisted = [...board.tags()].filter((tag) => matchesAnyTagPattern(inputTags, tag));
  const isolation = { isolation: contract.isolation, pov: options.pov };
  const hidden = whitelisted.filter((tag) => !isolationShowsTag(tag, isolation)).sort();
  diagnostics.push(...hidden.map((tag) => isolationHidden(tag, contract.isolation)));
  const visible = hidden.length === 0 ? whitelisted : whitelisted.filter((tag) => isolationShowsTag(tag, isolation));
  const newest = (pattern: string) => board.newestOf(tagsMatching(board, visible, pattern));

  const chunks: WorkerContextChunk[] = [];
  const sharedContext = options.sharedContext?.trim() ?? '';
  if (sharedContext.length > 0) chunks.push({ kind: 'block', id: 'shared-context', tier: 'static', tags: [], text: sharedContext });
  if (contract.body.length > 0) chunks.push({ kind: 'block', id: 'skill-body', tier: 'static', tags: [], text: contract.body });

  const renderer = new ChunkRenderer({ board, visible, tags, labels, diagnostics, estimator: options.estimator ?? defaultWorkerEstimator() });
  let form: WorkerContextSections['form'];
  if (contract.segments === undefined) {
    form = 'fallback';
    const text = fallbackJson(contract.inputTags, board, visible);
    chunks.push({ kind: 'block', id: 'inputs', tier: 'dynamic', tags: tagsMatching(board, visible, '**'), text });
  } else {
    form = options.contextOrder === undefined ? 'stack' : 'context_order';
    for (const placement of workerPlacements({ contract, contextOrder: options.contextOrder, tags, diagnostics })) chunks.push(...renderer.render(placement));
  }

  const shown = new Set(chunks.flatMap((chunk) => chunk.tags));
  const tail: WorkerContextTailItem[] = [];
  if (tagPatternWithinAny(tags.finalSummary, contract.inputTags) && !shown.has(tags.finalSummary)) {
    const summary = newest(tags.finalSummary);
    if (summary !== undefined) tail.push({ kind: 'final-summary', label: labels.finalSummary, text: summary.content });
  }
  if (options.draftTag !== undefined) {
    if (!tagPatternWithinAny(options.draftTag, contract.inputTags)) {
      throw new TagError({ culprit: options.draftTag, message: `draft tag "${options.draftTag}" is not within the inputTags of ${contract.skill}` });
    }
    const draft = newest(options.draftTag);
    if (draft !== undefined && !shown.has(options.draftTag)) tail.push({ kind: 'draft', label: labels.draft, text: draft.content });
  }
  const task = options.task?.trim() ?? '';
  if (task.length > 0) tail.push({ kind: 'task', label: labels.task, text: task });

  return {
    skill: contract.skill,
    variant: contract.variant,
    form,
    chunks,
    tail,
    diagnostics,
  };
}

let sharedEstimator: TokenEstimator | undefined;

/** The estimator for `tail_tokens_N` when none is given: the conservative estimator of `@strata/context`. */
export function defaultWorkerEstimator(): TokenEstimator {
  sharedEstimator ??= new ConservativeTokenEstimator();
  return sharedEstimator;
}

/**
 * Where a worker's segments go: the order table's inserts then what it
 * leaves out, or static then dynamic segments; none without segments.
 * Problems of the table are reported to `diagnostics`.
 */
export function workerPlacements(options: { contract: WorkerContract; contextOrder?: ContextOrder; tags: WellKnownTags; diagnostics?: BlackboardDiagnostic[] }): Placement[] {
  const { contract } = options;
  if (contract.segments === undefined) return [];
  if (options.contextOrder !== undefined) return orderPlacements(contract, options.contextOrder, options.tags, options.diagnostics ?? []);
  const ordered = [...contract.segments.filter((segment) => segment.tier === 'static'), ...contract.segments.filter((segment) => segment.tier === 'dynamic')];
  return ordered.map(segmentPlacement);
}

function segmentPlacement(segment: ResolvedSegment): Placement {
  return {
    id: segment.id,
    tier: segment.tier,
    label: segment.label,
    patterns: segment.tags.map((pattern) => ({ pattern, policy: segment.policy })),
  };
}

/** The table's inserts as placements, then any segment pattern the table leaves out (reported). */
function orderPlacements(contract: WorkerContract, order: ContextOrder, tags: WellKnownTags, diagnostics: BlackboardDiagnostic[]): Placement[] {
  const segments = contract.segments ?? [];
  const placements: Placement[] = [];
  const placed = new Set<string>();
  for (const insert of order.inserts) {
    if (!tagPatternWithinAny(insert.tag, contract.inputTags)) {
      diagnostics.push({ code: 'BLACKBOARD_ORDER_OUTSIDE_CONTRACT', subject: insert.tag, message: `context_order insert ${insert.tag} is outside the inputTags of ${contract.skill}; skipped` });
      continue;
    }
    placed.add(insert.tag);
    const segment = segments.find((candidate) => candidate.tags.includes(insert.tag));
    let policy = insert.policy === undefined ? segment?.policy ?? DEFAULT_SEGMENT_POLICY : (parseSegmentPolicy(insert.policy) ?? DEFAULT_SEGMENT_POLICY);
    if (contract.historyPolicy !== undefined && insert.tag === tags.history) policy = contract.historyPolicy;
    const alone = segment !== undefined && segment.tags.length === 1;
    const label = insert.label ?? (alone ? segment.label : undefined);
    placements.push({
      id: alone ? segment.id : insert.tag,
      tier: segment?.tier ?? 'dynamic',
      label,
      patterns: [{ pattern: insert.tag, policy }],
    });
  }
  const ordered = [...segments.filter((segment) => segment.tier === 'static'), ...segments.filter((segment) => segment.tier === 'dynamic')];
  for (const segment of ordered) {
    const unplaced = segment.tags.filter((pattern) => !placed.has(pattern));
    if (unplaced.length === 0) continue;
    for (const pattern of unplaced) {
      diagnostics.push({ code: 'BLACKBOARD_ORDER_PATTERN_UNLISTED', subject: pattern, message: `segment ${segment.id} pattern ${pattern} is not in context_order; appended after the table` });
    }
    const whole = unplaced.length === segment.tags.length;
    placements.push({
      id: segment.id,
      tier: segment.tier,
      label: whole ? segment.label : undefined,
      patterns: unplaced.map((pattern) => ({ pattern, policy: segment.policy })),
    });
  }
  return placements;
}

/** The fallback without `contextSegments`: `{ tag: newest content }` in `inputTags` order, then tag first-write order. */
function fallbackJson(inputTags: readonly string[], board: BlackboardIndex, visible: readonly string[]): string {
  const inputs: Record<string, string> = {};
  for (const pattern of inputTags) {
    for (const tag of tagsMatching(board, visible, pattern)) {
      if (tag in inputs) continue;
      inputs[tag] = (board.newest(tag) as BlackboardEntry).content;
    }
  }
  return JSON.stringify(inputs, null, 2);
}
