import { ConfigurationError, type TokenEstimator } from '@strata/context';
import type { BlackboardEntry } from './blackboard-store.js';
import type { BlackboardIndex } from './blackboard-index.js';
import type { BlackboardDiagnostic } from './diagnostics.js';
import { applySegmentPolicy, entriesNeeded, formatSegmentPolicy, type SegmentPolicy } from './segment-policy.js';
import { matchesTagPattern, parseTagPattern, tagPatternWithin } from './tag-pattern.js';
import type { WellKnownTags } from './well-known-tags.js';
import type { HistoryTurn, Placement, TailLabels, WorkerContextChunk } from './worker-context-chunk.js';

/** Entries a `tail_tokens_N` pattern reads first, doubled until the policy has enough. */
const FIRST_TOKEN_TAIL_ENTRIES = 8;

/**
 * The tags (of `tags`) a pattern matches, in first-write order: the order
 * in which their entries first appear by revision.
 */
export function tagsMatching(board: BlackboardIndex, tags: readonly string[], pattern: string): string[] {
  const parsed = parseTagPattern(pattern);
  return tags.filter((tag) => matchesTagPattern(parsed, tag)).sort((left, right) => board.compareFirstWrite(left, right));
}

/**
 * The entries of `tags` a policy keeps, oldest first, read newest first from
 * the board: only as many as the policy can need (`entriesNeeded`).
 */
export function takeByPolicy(options: { board: BlackboardIndex; tags: readonly string[]; policy: SegmentPolicy; subject: string; estimator?: TokenEstimator }) {
  const { board, tags, policy } = options;
  const total = tags.reduce((sum, tag) => sum + board.count(tag), 0);
  let size = Math.min(total, firstRead(policy, total));
  let newestFirst: BlackboardEntry[];
  for (;;) {
    newestFirst = board.newestAcross(tags, size);
    const needed = entriesNeeded(policy, newestFirst, options.estimator);
    if (needed !== undefined) {
      newestFirst = newestFirst.slice(0, needed);
      break;
    }
    if (newestFirst.length >= total) break;
    if (newestFirst.length < size) {
      throw new ConfigurationError({
        setting: 'board',
        message: `${formatSegmentPolicy(policy)} of ${options.subject} needs more entries than the board read: fetch and assemble with the same contract, order table and estimator`,
      });
    }
    size = Math.min(total, size * 2);
  }
  const oldestFirst = newestFirst.reverse();
  return applySegmentPolicy(oldestFirst, { policy, subject: options.subject, estimator: options.estimator, omitted: total - oldestFirst.length });
}

/** What to read first: as many entries as the policy keeps at most, when that is known. */
function firstRead(policy: SegmentPolicy, total: number): number {
  switch (policy.kind) {
    case 'latest':
      return 1;
    case 'last_turns':
      return policy.turns;
    // Every entry holds at least one line.
    case 'tail_lines':
      return policy.lines;
    case 'tail_tokens':
      return FIRST_TOKEN_TAIL_ENTRIES;
    case 'concat':
      return total;
  }
}

/**
 * Renders placements into chunks over the visible tags of one board,
 * collecting diagnostics. Internal to `assembleWorkerContextSections`.
 */
export class ChunkRenderer {
  readonly #board: BlackboardIndex;
  readonly #visible: readonly string[];
  readonly #tags: WellKnownTags;
  readonly #labels: TailLabels;
  readonly #diagnostics: BlackboardDiagnostic[];
  readonly #estimator: TokenEstimator | undefined;

  constructor(options: { board: BlackboardIndex; visible: readonly string[]; tags: WellKnownTags; labels: TailLabels; diagnostics: BlackboardDiagnostic[]; estimator?: TokenEstimator }) {
    this.#board = options.board;
    this.#visible = options.visible;
    this.#tags = options.tags;
    this.#labels = options.labels;
    this.#diagnostics = options.diagnostics;
    this.#estimator = options.estimator;
  }
  /**
   * One placement becomes one chunk, or several when it holds the history
   * or turn tag: those split out where they stand. The label goes on the first.
   */
  render(placement: Placement): WorkerContextChunk[] {
    const chunks: WorkerContextChunk[] = [];
    let blockParts: string[] = [];
    let blockTags: string[] = [];
    const base = () => ({
      id: placement.id,
      tier: placement.tier,
      label: chunks.length === 0 ? placement.label : undefined,
    });
    const flushBlock = () => {
      if (blockParts.length === 0) return;
      chunks.push({ ...base(), kind: 'block', tags: blockTags, text: blockParts.join('\n\n') });
      blockParts = [];
      blockTags = [];
    };
    for (const { pattern, policy } of placement.patterns) {
      const matched = tagsMatching(this.#board, this.#visible, pattern);
      if (matched.length === 0) continue;
      if (isRecapPattern(pattern, this.#tags)) {
        blockParts.push(this.#recap(matched));
        blockTags.push(...matched);
        continue;
      }
      const trimmed = takeByPolicy({ board: this.#board, tags: matched, policy, subject: pattern, estimator: this.#estimator });
      this.#diagnostics.push(...trimmed.diagnostics);
      if (trimmed.entries.length === 0) continue;
      const shownTags = distinctTags(trimmed.entries);
      if (pattern === this.#tags.history) {
        flushBlock();
        const turns = trimmed.entries.map((entry): HistoryTurn => ({ role: entry.author.kind === 'user' ? 'user' : 'assistant', content: entry.content }));
        chunks.push({ ...base(), kind: 'history', tags: shownTags, turns });
      } else if (pattern === this.#tags.turn) {
        flushBlock();
        chunks.push({ ...base(), kind: 'turn', tags: shownTags, text: trimmed.entries.map((entry) => entry.content).join('\n') });
      } else {
        blockParts.push(trimmed.entries.map((entry) => entry.content).join('\n'));
        blockTags.push(...shownTags);
      }
    }
    flushBlock();
    if (chunks.length === 0) {
      this.#diagnostics.push({ code: 'BLACKBOARD_SEGMENT_EMPTY', subject: placement.id, message: `segment ${placement.id} matched no entry; left out` });
    }
    return chunks;
  }

  /** The newest accepted slice of each unit (tag), units in first-accepted order (`tags` is), as a read-only recap. */
  #recap(tags: readonly string[]): string {
    const accepted = this.#tags.acceptedContent;
    const units = tags.map((tag) => {
      const unit = tag === accepted ? accepted : tag.slice(accepted.length + 1);
      return `### ${unit}\n${(this.#board.newest(tag) as BlackboardEntry).content}`;
    });
    return [this.#labels.recap, ...units].join('\n');
  }
}

/** Whether a pattern reads the accepted creation content, shown as a recap whatever its policy. */
export function isRecapPattern(pattern: string, tags: WellKnownTags): boolean {
  const accepted = tags.acceptedContent;
  return tagPatternWithin(pattern, accepted) || tagPatternWithin(pattern, `${accepted}.*`);
}

export function distinctTags(entries: readonly BlackboardEntry[]): string[] {
  return [...new Set(entries.map((entry) => entry.tag))];
}
