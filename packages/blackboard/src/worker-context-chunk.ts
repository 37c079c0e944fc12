import type { SegmentPolicy } from './segment-policy.js';
import type { SegmentTier } from './worker-skill.js';

export interface HistoryTurn {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

interface ChunkBase {
  /** The segment id; in the `context_order` form the insert's tag when no segment holds it alone. */
  readonly id: string;
  /** Cache hint: a leading run of static chunks forms the stable prefix. */
  readonly tier: SegmentTier;
  readonly label?: string;
  /** The tags whose entries this chunk shows, in first-shown order. */
  readonly tags: readonly string[];
}

/** `block`: Markdown content; `history`: real dialogue turns; `turn`: the user's current input. */
export type WorkerContextChunk =
  | (ChunkBase & { readonly kind: 'block'; readonly text: string })
  | (ChunkBase & { readonly kind: 'history'; readonly turns: readonly HistoryTurn[] })
  | (ChunkBase & { readonly kind: 'turn'; readonly text: string });

export interface WorkerContextTailItem {
  readonly kind: 'final-summary' | 'draft' | 'task';
  readonly label: string;
  readonly text: string;
}

export interface TailLabels {
  readonly finalSummary: string;
  readonly draft: string;
  readonly task: string;
  /** First line of the read-only recap of accepted creation content. */
  readonly recap: string;
}

export const DEFAULT_TAIL_LABELS: TailLabels = Object.freeze({
  finalSummary: '## 定稿摘要',
  draft: '## 待改底稿',
  task: '## 本步任务',
  recap: '【前情提要·只读】',
});

/** Where a segment (or a `context_order` insert) puts which patterns. */
export interface Placement {
  readonly id: string;
  readonly tier: SegmentTier;
  readonly label?: string;
  readonly patterns: readonly { readonly pattern: string; readonly policy: SegmentPolicy }[];
}
