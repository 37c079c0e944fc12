import type { HistoryTurn } from './worker-context-chunk.js';
import type { WorkerContextSections } from './worker-context-sections.js';
import { renderChunkText, renderTailItem } from './worker-context.js';

/** A rendered block (label and content) with the segment it came from, so a preset can bind it elsewhere. */
export interface BagBlock {
  readonly id: string;
  readonly text: string;
}

/**
 * The five bags a preset places (seed 004 §9): blocks before the history,
 * the history as real turns, blocks after it, the user's current turn, and
 * the tail after the turn.
 */
export interface WorkerContextBags {
  readonly before: readonly BagBlock[];
  readonly history: readonly HistoryTurn[];
  readonly after: readonly BagBlock[];
  /** Current-turn texts; sent as one user message. */
  readonly turn: readonly string[];
  /** Tail items (summary, draft, task) rendered with their labels. */
  readonly postTurn: readonly string[];
}

/**
 * Splits sections into bags: blocks before the first history chunk go to
 * `before`, blocks after it to `after` (without a history chunk, all go to
 * `before`); turn chunks go to `turn` wherever they stand; the tail to `postTurn`.
 */
export function workerContextToBags(sections: WorkerContextSections): WorkerContextBags {
  const before: BagBlock[] = [];
  const history: HistoryTurn[] = [];
  const after: BagBlock[] = [];
  const turn: string[] = [];
  let seenHistory = false;
  for (const chunk of sections.chunks) {
    if (chunk.kind === 'history') {
      seenHistory = true;
      history.push(...chunk.turns);
    } else if (chunk.kind === 'turn') {
      turn.push(chunk.text);
    } else {
      (seenHistory ? after : before).push({ id: chunk.id, text: renderChunkText(chunk) });
    }
  }
  return { before, history, after, turn, postTurn: sections.tail.map(renderTailItem) };
}

export function hasHistory(sections: WorkerContextSections): boolean {
  return sections.chunks.some((chunk) => chunk.kind === 'history');
}
