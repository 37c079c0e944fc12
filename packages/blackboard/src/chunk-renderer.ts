import type { TokenEstimator } from '@strata/context';
import type { BlackboardEntry } from './blackboard-store.js';
import type { BlackboardDiagnostic } from './diagnostics.js';
import { applySegmentPolicy } from './segment-policy.js';
import { matchesTagPattern, tagPatternWithin } from './tag-pattern.js';
import type { WellKnownTags } from './well-known-tags.js';
import type { HistoryTurn, Placement, TailLabels, WorkerContextChunk } from './worker-context-chunk.js';

/**
 * Renders placements into chunks over one isolated snapshot of entries,
 * collecting diagnostics. Internal to `assembleWorkerContextSections`.
 */
export class ChunkRenderer {
  readonly #entries: readonly BlackboardEntry[];
  readonly #tags: WellKnownTags;
  readonly #labels: TailLabels;
  readonly #diagnostics: BlackboardDiagnostic[];
  readonly #estimator: TokenEstimator | undefined;

  constructor(options: { entries: readonly BlackboardEntry[]; tags: WellKnownTags; labels: TailLabels; diagnostics: BlackboardDiagnostic[]; estimator?: TokenEstimator }) {
    this.#entries = options.entries;
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
      const matched = this.#entries.filter((entry) => matchesTagPattern(pattern, entry.tag));
      if (matched.length === 0) continue;
      if (this.#isRecap(pattern)) {
        blockParts.push(this.#recap(matched));
        blockTags.push(...distinctTags(matched));
        continue;
      }
      const trimmed = applySegmentPolicy(matched, { policy, subject: pattern, estimator: this.#estimator });
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

  #isRecap(pattern: string): boolean {
    const accepted = this.#tags.acceptedContent;
    return tagPatternWithin(pattern, accepted) || tagPatternWithin(pattern, `${accepted}.*`);
  }

  /** The newest accepted slice of each unit (tag), units in first-accepted order, as a read-only recap. */
  #recap(entries: readonly BlackboardEntry[]): string {
    const accepted = this.#tags.acceptedContent;
    const units = distinctTags(entries).map((tag) => {
      const unit = tag === accepted ? accepted : tag.slice(accepted.length + 1);
      return `### ${unit}\n${(newest(entries, tag) as BlackboardEntry).content}`;
    });
    return [this.#labels.recap, ...units].join('\n');
  }
}

export function distinctTags(entries: readonly BlackboardEntry[]): string[] {
  return [...new Set(entries.map((entry) => entry.tag))];
}

/** The newest entry whose tag matches `tag` (a tag or pattern). */
export function newest(entries: readonly BlackboardEntry[], tag: string): BlackboardEntry | undefined {
  return entries.filter((entry) => matchesTagPattern(tag, entry.tag)).at(-1);
}
