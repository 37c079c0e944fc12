import { windowReceipts } from './compaction-receipts.js';
import type { CollectionResult } from './contributor-registry.js';
import type { ContextScope } from './contributor.js';
import type { ContextConfiguration, ContextMode, ResolvedContextBudget } from './context-configuration.js';
import { fixedTokens, tokensByContributor, type ContextCandidate } from './context-candidate.js';
import type { WindowStartMark } from './context-state.js';
import type { ContextTraceV5 } from './context-trace.js';
import { EMPTY_COMPACTION_TRACE, type CompactionTrace } from './history-compactor.js';
import type { HistoryWindow } from './history-window.js';
import type { CanonicalHistory } from './messages.js';
import type { ModelInput } from './model-input.js';
import { planProgressOf } from './plan-progress.js';

/** Who and which turn a trace is about. */
export interface TurnIdentity {
  readonly contextId: string;
  readonly turn: number;
  readonly scope: ContextScope;
  readonly mode: ContextMode;
  readonly recovery?: { readonly reason: string; readonly attempt: number };
}

/** The trace of a turn that took the legacy path: what was sent, nothing else. */
export function legacyTurnTrace(identity: TurnIdentity, input: ModelInput): ContextTraceV5 {
  return {
    schemaVersion: 5,
    contextId: identity.contextId,
    turn: identity.turn,
    recoveryAttempt: identity.recovery?.attempt ?? null,
    mode: identity.mode,
    scope: identity.scope,
    selectedPath: 'legacy',
    budget: null,
    contributors: [],
    collection: null,
    admitted: null,
    planProgress: null,
    renderedContext: null,
    compaction: EMPTY_COMPACTION_TRACE,
    diagnostics: [],
    llmInput: input,
  };
}

/** The trace of a dynamic (or shadow) turn: every decision of the pipeline, and what was sent. */
export function dynamicTurnTrace(options: {
  identity: TurnIdentity;
  /** What went to the model: the candidate's input, or the legacy input in shadow mode. */
  input: ModelInput;
  budget: ResolvedContextBudget;
  configuration: ContextConfiguration | undefined;
  collected: CollectionResult;
  candidate: ContextCandidate;
  window: HistoryWindow;
  historyBudgetTokens: number;
  compaction: CompactionTrace;
  /** The canonical history the turn was asked for, before compaction. */
  original: CanonicalHistory;
  /** Its latest plan call, when known (`null`: none). */
  declaredPlan?: { readonly index: number; readonly id: string } | null;
  /** The declaring call of the active plan as the run knows it, when compaction may have removed it from the history. */
  activePlanCallId?: string | undefined;
  /** Where the previous turn's window began (the state's `windowStart` before this turn), so window receipts name each departure once. */
  previousWindowStart?: WindowStartMark | undefined;
}): ContextTraceV5 {
  const { identity, candidate, window, collected, configuration } = options;
  // Only a cut lists dropped outputs: a window that kept every unit costs nothing here.
  const windowed = window.stats.droppedUnits > 0 ? windowReceipts({ history: candidate.composed.history, window: window.messages, count: (message) => candidate.counter.countMessage(message), previousStart: options.previousWindowStart }) : [];
  return {
    ...legacyTurnTrace(identity, options.input),
    selectedPath: identity.mode === 'shadow' ? 'legacy' : 'dynamic',
    budget: {
      ...options.budget,
      configuration: configuration
        ? { modelMaxTokens: configuration.modelMaxTokens, outputReserveTokens: configuration.outputReserveTokens, contextWindowTokens: configuration.contextWindowTokens }
        : null,
      toolTokens: candidate.toolTokens,
      systemPromptUsedTokens: candidate.systemTokens,
      callLocalTokens: candidate.callLocalTokens,
      historyBudgetTokens: options.historyBudgetTokens,
      contributorTokens: tokensByContributor(candidate, collected.collection),
      countedWith: candidate.counter.exact ? 'exact' : 'estimate',
      tokenizerFamily: candidate.counter.family,
      totalTokens: fixedTokens(candidate) + window.stats.usedTokens,
    },
    contributors: collected.records,
    collection: collected.collection,
    admitted: {
      sections: candidate.admitted.sections,
      attachments: candidate.admitted.attachments,
      messages: candidate.admitted.messages,
      diagnostics: candidate.admitted.diagnostics,
    },
    planProgress: planProgressOf({ original: options.original, visible: window.messages, declared: options.declaredPlan, activePlanCallId: options.activePlanCallId }),
    renderedContext: {
      systemPrompt: candidate.rendered.text,
      sectionIds: candidate.rendered.sectionIds,
      history: window.messages,
      tools: candidate.tools.map((tool) => tool.name),
      window: window.stats,
      windowDiagnostics: window.diagnostics,
      ...(windowed.length > 0 ? { windowReceipts: windowed } : {}),
    },
    compaction: options.compaction,
    diagnostics: [...collected.collection.diagnostics, ...candidate.admitted.diagnostics, ...candidate.composed.diagnostics, ...window.diagnostics],
  };
}
