import type { CompactionReceipt } from './compaction-receipts.js';
import type { ContextConfiguration, ContextMode, ResolvedContextBudget } from './context-configuration.js';
import type { ContextDiagnostic, ContextScope, ContributedMessage, DataAttachment, SystemSection } from './contributor.js';
import type { ContributorRunRecord, ValidatedCollection } from './contributor-registry.js';
import type { HistoryWindowStats } from './history-window.js';
import type { CompactionTrace } from './history-compactor.js';
import type { AssistantMessage, CanonicalMessage } from './messages.js';
import type { ModelInput } from './model-input.js';
import type { TokenizerFamily } from './token-estimator.js';

export const CONTEXT_TRACE_SCHEMA_VERSION = 5;

/** Observation only: where the active plan stands. Never steers the run. */
export interface PlanProgress {
  readonly toolCallId: string | null;
  /** False when compaction removed the declaring `update_plan` call; then no age counters. */
  readonly anchorFound: boolean;
  readonly laterModelSteps?: number;
  readonly completedNonPlanToolResults?: number;
}

/**
 * What the model made of a turn's input, recorded by the agent once the call
 * ends. Absent from traces written without a model call (replays, adapters
 * that hand the input to another loop).
 */
export interface ModelCallTrace {
  readonly outcome: 'finish' | 'error' | 'aborted';
  /** The assistant message the model returned; null when the call failed or was cut off. */
  readonly output: AssistantMessage | null;
  /** The error's name and message (credentials redacted) when the call failed. */
  readonly error: { readonly name: string; readonly message: string } | null;
  /** What the provider reported, beside our estimate in `budget.totalTokens`; null when it reported nothing. */
  readonly usage: {
    readonly inputTokens: number | null;
    readonly outputTokens: number | null;
    readonly cachedInputTokens: number | null;
    readonly cacheWriteInputTokens: number | null;
  } | null;
  /** Time spent assembling this input and waiting for the model, on the run's clock. */
  readonly latencyMs: { readonly assembly: number; readonly model: number };
}

/**
 * One model turn, as written to `<trace-dir>/<context-id>/turn-0001.json`.
 * Sensitive: it holds user messages, tool results and the full prompt.
 */
export interface ContextTraceV5 {
  readonly schemaVersion: 5;
  readonly contextId: string;
  readonly turn: number;
  readonly recoveryAttempt: number | null;
  readonly mode: ContextMode;
  readonly scope: ContextScope;
  /** Which input went to the model. */
  readonly selectedPath: 'dynamic' | 'legacy';
  readonly budget: ResolvedContextBudget & {
    readonly configuration: Pick<ContextConfiguration, 'modelMaxTokens' | 'outputReserveTokens' | 'contextWindowTokens'> | null;
    readonly toolTokens: number;
    readonly systemPromptUsedTokens: number;
    readonly callLocalTokens: number;
    readonly historyBudgetTokens: number;
    /** What each contributor's admitted sections, attachments and messages cost this turn, by contributor id. */
    readonly contributorTokens?: { readonly [contributorId: string]: number };
    readonly countedWith: 'estimate' | 'exact';
    readonly tokenizerFamily: TokenizerFamily;
    readonly totalTokens: number;
  } | null;
  readonly contributors: readonly ContributorRunRecord[];
  /** Validated contributions before budget admission. */
  readonly collection: ValidatedCollection | null;
  readonly admitted: {
    readonly sections: readonly SystemSection[];
    readonly attachments: readonly DataAttachment[];
    readonly messages: readonly ContributedMessage[];
    readonly diagnostics: readonly ContextDiagnostic[];
  } | null;
  readonly planProgress: PlanProgress | null;
  /** In shadow mode this is the dynamic candidate, while llmInput is the legacy input. */
  readonly renderedContext: {
    readonly systemPrompt: string;
    readonly sectionIds: readonly string[];
    readonly history: readonly CanonicalMessage[];
    readonly tools: readonly string[];
    readonly window: HistoryWindowStats;
    readonly windowDiagnostics: readonly ContextDiagnostic[];
    /**
     * One receipt per stored output whose step the window dropped and listed
     * in `<earlier_outputs>` (its reference, tokens, `read_tool_output` call).
     * Absent when the window listed none, and in traces written before it.
     */
    readonly windowReceipts?: readonly CompactionReceipt[];
  } | null;
  readonly compaction: CompactionTrace;
  readonly diagnostics: readonly ContextDiagnostic[];
  /** Exactly what the model client received. */
  readonly llmInput: ModelInput;
  /** What the model made of it (written by the agent once the call ends). */
  readonly modelCall?: ModelCallTrace;
}
