import type { CompactionReceipt } from './compaction-receipts.js';
import type { CanonicalHistory, ToolOutputRef } from './messages.js';
import type { TokenEstimator } from './token-estimator.js';

export type CompactionReason = 'token-pressure' | 'message-count' | 'forced';

export interface CompactionRequest {
  readonly contextId: string;
  readonly history: CanonicalHistory;
  readonly reason: CompactionReason;
  /** Tokens the history may use after compaction to relieve pressure. */
  readonly targetHistoryTokens: number;
  /**
   * The most the history can use at all (the input cap less everything else).
   * The newest step's bodies are masked only to get under this. Default: the target.
   */
  readonly limitHistoryTokens?: number;
  readonly estimator: TokenEstimator;
  readonly signal: AbortSignal;
}

/** What the trace records of one compaction; empty fields when none ran. */
export interface CompactionTrace {
  readonly reason: CompactionReason | null;
  readonly estimatedTokensBefore: number | null;
  readonly estimatedTokensAfter: number | null;
  readonly compactedOutputRefs: readonly ToolOutputRef[];
  readonly summarySourceTokens: number | null;
  readonly summarySourceMessages: number | null;
  readonly checkpointTokens: number | null;
  readonly summaryAttempts: number;
  readonly summaryRejections: ReadonlyArray<{ readonly attempt: number; readonly reason: string }>;
  readonly summarizedMessages: number;
  readonly recovery: { readonly reason: string; readonly attempt: number } | null;
  /**
   * Every item that left the window in this compaction, in the order it left,
   * with its tokens before and after, where it lives now and how to get it back.
   * Present when a compaction changed the history; absent in traces written before receipts.
   */
  readonly receipts?: readonly CompactionReceipt[];
  /** Why it ran: the threshold and the pressure that crossed it (set by the assembler). */
  readonly trigger?: CompactionTrigger;
}

export const EMPTY_COMPACTION_TRACE: CompactionTrace = Object.freeze({
  reason: null,
  estimatedTokensBefore: null,
  estimatedTokensAfter: null,
  compactedOutputRefs: [],
  summarySourceTokens: null,
  summarySourceMessages: null,
  checkpointTokens: null,
  summaryAttempts: 0,
  summaryRejections: [],
  summarizedMessages: 0,
  recovery: null,
});

export interface CompactionResult {
  /**
   * The compacted canonical history (a new array; the input is never
   * mutated). The assembler keeps it as the context's history list and may
   * append the next turns' messages to it in place: never change it after.
   */
  readonly history: CanonicalHistory;
  readonly changed: boolean;
  readonly trace: CompactionTrace;
}

/**
 * The seam where history compaction plugs into the assembler. Run on token
 * pressure, when a message-count threshold is crossed, or when forced by
 * overflow recovery.
 */
export interface HistoryCompactor {
  /** True when the compatibility message-count threshold is crossed. */
  exceedsMessageCount(history: CanonicalHistory): boolean;
  compact(request: CompactionRequest): Promise<CompactionResult>;
}

/** Why a compaction ran: the trigger, the thresholds, and the pressure that crossed them. */
export interface CompactionTrigger {
  readonly reason: CompactionReason;
  /** Everything the turn would send before compaction (tools, system prompt, data, history); null when not measured (message-count trigger). */
  readonly tokens: number | null;
  /** The budget's pressure threshold (`pressureTokens`). */
  readonly thresholdTokens: number;
  /** The input cap (`inputCapTokens`). */
  readonly capTokens: number;
  /** `tokens / capTokens`, rounded to 3 places; null when tokens were not measured. */
  readonly pressure: number | null;
  /** Messages in the history when it ran. */
  readonly historyMessages: number;
}
