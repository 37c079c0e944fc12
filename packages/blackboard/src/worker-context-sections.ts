import { ConservativeTokenEstimator, type TokenEstimator } from '@strata/context';
import { ChunkRenderer, newest } from './chunk-renderer.js';
import type { BlackboardEntry } from './blackboard-store.js';
import { applyContextIsolation } from './context-isolation.js';
import type { ContextOrder } from './context-order.js';
import type { BlackboardDiagnostic } from './diagnostics.js';
import { TagError } from './errors/tag-error.js';
import type { ResolvedSegment, WorkerContract } from './resolve-worker-contract.js';
import { DEFAULT_SEGMENT_POLICY, parseSegmentPolicy } from './segment-policy.js';
import { matchesAnyTagPattern, matchesTagPattern, tagPatternWithinAny } from './tag-pattern.js';
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
  /** Blackboard entries fetched for the contract (`fetchWorkerInputs`); anything outside `inputTags` is ignored. */
  readonly entries: readonly BlackboardEntry[];
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
  // Revision order, whatever order the caller passed: same entries, same prompt.
  const whitelisted = options.entries
    .filter((entry) => matchesAnyTagPattern(contract.inputTags, entry.tag))
    .sort((left, right) => left.revision - right.revision);
  const isolated = applyContextIsolation(whitelisted, { isolation: contract.isolation, pov: options.pov });
  diagnostics.push(...isolated.diagnostics);
  const entries = isolated.entries;

  const chunks: WorkerContextChunk[] = [];
  const sharedContext = options.sharedContext?.trim() ?? '';
  if (sharedContext.length > 0) chunks.push({ kind: 'block', id: 'shared-context', tier: 'static', tags: [], text: sharedContext });
  if (contract.body.length > 0) chunks.push({ kind: 'block', id: 'skill-body', tier: 'static', tags: [], text: contract.body });

  const renderer = new ChunkRenderer({ entries, tags, labels, diagnostics, estimator: options.estimator ?? defaultEstimator() });
  let form: WorkerContextSections['form'];
  if (contract.segments === undefined) {
    form = 'fallback';
    const text = fallbackJson(contract.inputTags, entries);
    chunks.push({ kind: 'block', id: 'inputs', tier: 'dynamic', tags: [...new Set(entries.map((entry) => entry.tag))], text });
  } else if (options.contextOrder !== undefined) {
    form = 'context_order';
    for (const placement of orderPlacements(contract, options.contextOrder, tags, diagnostics)) chunks.push(...renderer.render(placement));
  } else {
    form = 'stack';
    const ordered = [...contract.segments.filter((segment) => segment.tier === 'static'), ...contract.segments.filter((segment) => segment.tier === 'dynamic')];
    for (const segment of ordered) chunks.push(...renderer.render(segmentPlacement(segment)));
  }

  const shown = new Set(chunks.flatMap((chunk) => chunk.tags));
  const tail: WorkerContextTailItem[] = [];
  if (tagPatternWithinAny(tags.finalSummary, contract.inputTags) && !shown.has(tags.finalSummary)) {
    const summary = newest(entries, tags.finalSummary);
    if (summary !== undefined) tail.push({ kind: 'final-summary', label: labels.finalSummary, text: summary.content });
  }
  if (options.draftTag !== undefined) {
    if (!tagPatternWithinAny(options.draftTag, contract.inputTags)) {
      throw new TagError({ culprit: options.draftTag, message: `draft tag "${options.draftTag}" is not within the inputTags of ${contract.skill}` });
    }
    const draft = newest(entries, options.draftTag);
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

function defaultEstimator(): TokenEstimator {
  sharedEstimator ??= new ConservativeTokenEstimator();
  return sharedEstimator;
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
function fallbackJson(inputTags: readonly string[], entries: readonly BlackboardEntry[]): string {
  const inputs: Record<string, string> = {};
  for (const pattern of inputTags) {
    for (const entry of entries) {
      if (!matchesTagPattern(pattern, entry.tag) || entry.tag in inputs) continue;
      inputs[entry.tag] = (newest(entries, entry.tag) as BlackboardEntry).content;
    }
  }
  return JSON.stringify(inputs, null, 2);
}
