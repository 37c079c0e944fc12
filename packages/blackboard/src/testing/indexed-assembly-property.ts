// The indexed assembly against a straightforward reference scan: the prompt
// (sections and flat form) a worker gets from a store's indexed reads, and from
// an entry list, equals what a scan of every whitelisted entry gives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// fast-check is a development dependency: loaded when the test runs, so importing this module needs none.
import type { Arbitrary } from 'fast-check';
import { ConservativeTokenEstimator, type TokenEstimator } from '@strata/context';
import { ENTRY_ROLE_ARCHIVED, type BlackboardEntry, type BlackboardStore } from '../blackboard-store.js';
import { applyContextIsolation } from '../context-isolation.js';
import { formatContextOrder, parseContextOrder, type ContextOrder } from '../context-order.js';
import type { BlackboardDiagnostic } from '../diagnostics.js';
import { fetchWorkerInputs } from '../fetch-worker-inputs.js';
import type { ResolvedSegment, WorkerContract } from '../resolve-worker-contract.js';
import { applySegmentPolicy, type SegmentPolicy } from '../segment-policy.js';
import { matchesAnyTagPattern, matchesTagPattern, tagPatternWithin, tagPatternWithinAny } from '../tag-pattern.js';
import { DEFAULT_WELL_KNOWN_TAGS } from '../well-known-tags.js';
import { DEFAULT_TAIL_LABELS, type Placement, type WorkerContextChunk, type WorkerContextTailItem } from '../worker-context-chunk.js';
import { assembleWorkerContextSections, workerPlacements, type WorkerContextSections } from '../worker-context-sections.js';
import { flattenWorkerContext } from '../worker-context.js';
import type { ContextIsolation } from '../worker-skill.js';
import { CODE_POINT_ESTIMATOR } from './fixtures.js';

const TAGS = DEFAULT_WELL_KNOWN_TAGS;
const LABELS = DEFAULT_TAIL_LABELS;
const BOARD_TAGS = ['运行.事件流', '运行.草稿', '对话.历史', '用户.最新输入', '可见信息', '世界.蓝图', '角色.林晚.心理', '角色.男人.秘密', '用户.心理', '创作.已验收内容.第一章', '创作.已验收内容.第二章', '上下文.定稿摘要'];
const PATTERNS = ['运行.*', '运行.事件流', '对话.历史', '用户.最新输入', '可见信息', '世界.蓝图', '角色.*', '用户.心理', '创作.已验收内容.*', '上下文.定稿摘要', '**'];
const LINES = ['雾更浓了。', '门铃响了', '', 'a', '他摇了摇头，看向窗外的雾。', '😀'];

// ---- the reference: every whitelisted entry, scanned, as assembly read them before the index ----

function referenceSections(options: { contract: WorkerContract; entries: readonly BlackboardEntry[]; contextOrder?: ContextOrder; pov?: string; task?: string; draftTag?: string; estimator: TokenEstimator }): WorkerContextSections {
  const { contract } = options;
  const diagnostics: BlackboardDiagnostic[] = [];
  const whitelisted = options.entries.filter((entry) => matchesAnyTagPattern(contract.inputTags, entry.tag)).sort((left, right) => left.revision - right.revision);
  const isolated = applyContextIsolation(whitelisted, { isolation: contract.isolation, pov: options.pov });
  diagnostics.push(...isolated.diagnostics);
  const entries = isolated.entries;
  const distinct = (list: readonly BlackboardEntry[]) => [...new Set(list.map((entry) => entry.tag))];
  const newest = (pattern: string) => entries.filter((entry) => matchesTagPattern(pattern, entry.tag)).at(-1);
  const chunks: WorkerContextChunk[] = [];
  if (contract.body.length > 0) chunks.push({ kind: 'block', id: 'skill-body', tier: 'static', tags: [], text: contract.body });
  let form: WorkerContextSections['form'];
  if (contract.segments === undefined) {
    form = 'fallback';
    const inputs: Record<string, string> = {};
    for (const pattern of contract.inputTags) {
      for (const entry of entries) if (matchesTagPattern(pattern, entry.tag) && !(entry.tag in inputs)) inputs[entry.tag] = (newest(entry.tag) as BlackboardEntry).content;
    }
    chunks.push({ kind: 'block', id: 'inputs', tier: 'dynamic', tags: distinct(entries), text: JSON.stringify(inputs, null, 2) });
  } else {
    form = options.contextOrder === undefined ? 'stack' : 'context_order';
    for (const placement of workerPlacements({ contract, contextOrder: options.contextOrder, tags: TAGS, diagnostics })) chunks.push(...referenceRender(placement, entries, options.estimator, diagnostics));
  }
  const shown = new Set(chunks.flatMap((chunk) => chunk.tags));
  const tail: WorkerContextTailItem[] = [];
  if (tagPatternWithinAny(TAGS.finalSummary, contract.inputTags) && !shown.has(TAGS.finalSummary)) {
    const summary = newest(TAGS.finalSummary);
    if (summary !== undefined) tail.push({ kind: 'final-summary', label: LABELS.finalSummary, text: summary.content });
  }
  if (options.draftTag !== undefined) {
    const draft = newest(options.draftTag);
    if (draft !== undefined && !shown.has(options.draftTag)) tail.push({ kind: 'draft', label: LABELS.draft, text: draft.content });
  }
  if (options.task !== undefined) tail.push({ kind: 'task', label: LABELS.task, text: options.task });
  return { skill: contract.skill, variant: contract.variant, form, chunks, tail, diagnostics };

  function referenceRender(placement: Placement, visible: readonly BlackboardEntry[], estimator: TokenEstimator, sink: BlackboardDiagnostic[]): WorkerContextChunk[] {
    const out: WorkerContextChunk[] = [];
    let parts: string[] = [];
    let partTags: string[] = [];
    const base = () => ({ id: placement.id, tier: placement.tier, label: out.length === 0 ? placement.label : undefined });
    const flush = () => {
      if (parts.length > 0) out.push({ ...base(), kind: 'block', tags: partTags, text: parts.join('\n\n') });
      parts = [];
      partTags = [];
    };
    for (const { pattern, policy } of placement.patterns) {
      const matched = visible.filter((entry) => matchesTagPattern(pattern, entry.tag));
      if (matched.length === 0) continue;
      if (tagPatternWithin(pattern, TAGS.acceptedContent) || tagPatternWithin(pattern, `${TAGS.acceptedContent}.*`)) {
        const units = distinct(matched).map((tag) => `### ${tag === TAGS.acceptedContent ? tag : tag.slice(TAGS.acceptedContent.length + 1)}\n${(matched.filter((entry) => entry.tag === tag).at(-1) as BlackboardEntry).content}`);
        parts.push([LABELS.recap, ...units].join('\n'));
        partTags.push(...distinct(matched));
        continue;
      }
      const trimmed = applySegmentPolicy(matched, { policy, subject: pattern, estimator });
      sink.push(...trimmed.diagnostics);
      if (trimmed.entries.length === 0) continue;
      const shownTags = distinct(trimmed.entries);
      if (pattern === TAGS.history) {
        flush();
        out.push({ ...base(), kind: 'history', tags: shownTags, turns: trimmed.entries.map((entry) => ({ role: entry.author.kind === 'user' ? 'user' : 'assistant', content: entry.content })) });
      } else if (pattern === TAGS.turn) {
        flush();
        out.push({ ...base(), kind: 'turn', tags: shownTags, text: trimmed.entries.map((entry) => entry.content).join('\n') });
      } else {
        parts.push(trimmed.entries.map((entry) => entry.content).join('\n'));
        partTags.push(...shownTags);
      }
    }
    flush();
    if (out.length === 0) sink.push({ code: 'BLACKBOARD_SEGMENT_EMPTY', subject: placement.id, message: `segment ${placement.id} matched no entry; left out` });
    return out;
  }
}

// ---- random boards and workers ----

interface BoardWrite {
  readonly tag: string;
  readonly content: string;
  readonly author: BlackboardEntry['author'];
  readonly role?: string;
}

type FastCheck = (typeof import('fast-check'))['default'];

/** Random board writes and workers. */
function arbitraries(fc: FastCheck) {
  const policyArbitrary: Arbitrary<SegmentPolicy> = fc.oneof(
    fc.constant<SegmentPolicy>({ kind: 'latest' }),
    fc.constant<SegmentPolicy>({ kind: 'concat' }),
    fc.integer({ min: 1, max: 6 }).map((lines): SegmentPolicy => ({ kind: 'tail_lines', lines })),
    fc.integer({ min: 1, max: 40 }).map((tokens): SegmentPolicy => ({ kind: 'tail_tokens', tokens })),
    fc.integer({ min: 1, max: 5 }).map((turns): SegmentPolicy => ({ kind: 'last_turns', turns })),
  );

  const writeArbitrary: Arbitrary<BoardWrite> = fc.record({
    tag: fc.constantFrom(...BOARD_TAGS),
    content: fc.array(fc.constantFrom(...LINES), { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n')),
    author: fc.constantFrom<BlackboardEntry['author']>({ kind: 'user' }, { kind: 'worker', name: 'narrator' }, { kind: 'runtime' }),
    role: fc.constantFrom(undefined, 'final', 'process', ENTRY_ROLE_ARCHIVED),
  });

  const isolationArbitrary: Arbitrary<ContextIsolation> = fc.constantFrom<ContextIsolation>(
    { mode: 'none' },
    { mode: 'role_pov', roleTagsPrefix: '角色', userOnlyTags: ['用户.心理'] },
    { mode: 'blind_review', hiddenTags: ['角色.男人.*', '运行.草稿'] },
  );

  const scenarioArbitrary = fc
    .record({
      inputTags: fc.uniqueArray(fc.constantFrom(...PATTERNS), { minLength: 1, maxLength: 6 }),
      withSegments: fc.boolean(),
      segmentPicks: fc.array(fc.record({ tier: fc.constantFrom('static' as const, 'dynamic' as const), picks: fc.array(fc.nat(20), { minLength: 1, maxLength: 3 }), policy: policyArbitrary, label: fc.option(fc.constantFrom('## 段', '## 事件'), { nil: undefined }) }), { minLength: 1, maxLength: 4 }),
      historyPolicy: fc.option(policyArbitrary, { nil: undefined }),
      isolation: isolationArbitrary,
      pov: fc.option(fc.constantFrom('林晚', '男人'), { nil: undefined }),
      order: fc.option(fc.array(fc.record({ order: fc.integer({ min: 0, max: 9 }), pick: fc.nat(20), policy: fc.option(fc.constantFrom('latest', 'concat', 'tail_lines_2', 'tail_tokens_9', 'last_2_turns'), { nil: undefined }) }), { maxLength: 4 }), { nil: undefined }),
      useContextOrder: fc.boolean(),
      draftTag: fc.option(fc.constantFrom('运行.草稿', '运行.*'), { nil: undefined }),
      archivedTags: fc.constantFrom<readonly string[]>([], ['运行.*']),
      codePointEstimator: fc.boolean(),
    })
    .map((scenario) => {
      const segments: ResolvedSegment[] = scenario.segmentPicks.map((segment, index) => ({
        id: `s${index}`,
        tier: segment.tier,
        tags: [...new Set(segment.picks.map((pick) => scenario.inputTags[pick % scenario.inputTags.length] as string))],
        label: segment.label,
        policy: segment.policy,
      }));
      const contract: WorkerContract = {
        skill: 'w',
        inputTags: scenario.inputTags,
        outputTags: [],
        finalTags: [],
        segments: scenario.withSegments ? segments : undefined,
        historyPolicy: scenario.historyPolicy,
        isolation: scenario.isolation,
        body: '体',
      };
      const order: ContextOrder | undefined =
        scenario.order === undefined ? undefined : { inserts: scenario.order.map((insert) => ({ order: insert.order, tag: PATTERNS[insert.pick % PATTERNS.length] as string, policy: insert.policy })) };
      const draftTag = scenario.draftTag !== undefined && tagPatternWithinAny(scenario.draftTag, scenario.inputTags) ? scenario.draftTag : undefined;
      const estimator = scenario.codePointEstimator ? CODE_POINT_ESTIMATOR : new ConservativeTokenEstimator();
      return { ...scenario, contract, order, draftTag, estimator };
    });
  return { writeArbitrary, scenarioArbitrary };
}

export interface IndexedAssemblyPropertyOptions {
  readonly name: string;
  /** A fresh, empty store per board. */
  readonly create: () => Promise<BlackboardStore>;
  /** Boards tried. Default 60. */
  readonly runs?: number;
}

/**
 * Registers the property test: on random boards (tags, roles, authors,
 * archived entries, an order table), random workers (segments and their
 * policies, a history policy, isolation, a draft tag, either estimator),
 * `fetchWorkerInputs` then assembly of its board, and assembly of the
 * entry list in shuffled order, each equal the reference scan.
 */
export function runIndexedAssemblyProperty(options: IndexedAssemblyPropertyOptions): void {
  test(`${options.name}: assembly by index gives the reference scan's prompt, byte for byte, on random boards`, async () => {
    const { default: fc } = await import('fast-check');
    const { writeArbitrary, scenarioArbitrary } = arbitraries(fc);
    await fc.assert(
      fc.asyncProperty(fc.array(writeArbitrary, { maxLength: 40 }), scenarioArbitrary, fc.integer(), async (writes, scenario, seed) => {
        const store = await options.create();
        try {
          for (const write of writes) await store.commit({ author: write.author, writes: [{ tag: write.tag, content: write.content, role: write.role }] });
          if (scenario.order !== undefined) await store.commit({ author: { kind: 'runtime' }, writes: [{ tag: TAGS.contextOrder, content: formatContextOrder(scenario.order) }] });
          const { contract, estimator, pov, draftTag } = scenario;
          const all = await store.query(['**']);
          // Today's read: every whitelisted entry, archived ones only where named, and the newest order table.
          const archived = scenario.archivedTags;
          const entries = all.filter((entry) => matchesAnyTagPattern(contract.inputTags, entry.tag) && (entry.role !== ENTRY_ROLE_ARCHIVED || matchesAnyTagPattern(archived, entry.tag)));
          const useOrder = scenario.useContextOrder;
          const table = useOrder ? all.filter((entry) => entry.tag === TAGS.contextOrder).at(-1) : undefined;
          const contextOrder = table === undefined ? undefined : parseContextOrder(table.content);
          const reference = referenceSections({ contract, entries, contextOrder, pov, task: '续写。', draftTag, estimator });

          const inputs = await fetchWorkerInputs({ store, contract, useContextOrder: useOrder, archivedTags: archived, estimator });
          assert.deepEqual(inputs.contextOrder, contextOrder);
          const indexed = assembleWorkerContextSections({ contract, board: inputs.board, contextOrder: inputs.contextOrder, pov, task: '续写。', draftTag, estimator });
          assert.deepEqual(indexed, reference);
          assert.deepEqual(flattenWorkerContext(indexed), flattenWorkerContext(reference));
          // The read costs the segments: never more entries than the whitelist holds.
          assert.ok(inputs.entries.length <= entries.length);

          const shuffled = entries.map((entry, index) => ({ entry, key: (index * 2_654_435_761 + seed) % 4_294_967_296 })).sort((left, right) => left.key - right.key).map(({ entry }) => entry);
          const listed = assembleWorkerContextSections({ contract, entries: shuffled, contextOrder, pov, task: '续写。', draftTag, estimator });
          assert.deepEqual(listed, reference);
        } finally {
          await store.close();
        }
      }),
      { numRuns: options.runs ?? 60 },
    );
  });
}
