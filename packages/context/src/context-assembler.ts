import { PROTECTED_SLOTS, type ContextScope } from './contributor.js';
import type { CollectionResult, ContextContributorRegistry } from './contributor-registry.js';
import type { ContextConfiguration, ContextMode, ResolvedContextBudget } from './context-configuration.js';
import type { ContextTraceV5 } from './context-trace.js';
import type { ContextValidator } from './context-validator.js';
import { ContextBudgetError } from './errors/context-budget-error.js';
import { ContextValidationError } from './errors/context-validation-error.js';
import { EMPTY_COMPACTION_TRACE, type CompactionReason, type CompactionTrace, type HistoryCompactor } from './history-compactor.js';
import { fitContext, prepareContext, sortToolsByName, unwindowedTokens, WINDOW_HEADROOM_SHARE, type FittedContext, type PreparedContext } from './context-fit.js';
import type { HistoryWindowPolicy } from './history-window.js';
import type { ContextMessageComposer } from './message-composer.js';
import type { CanonicalHistory, CanonicalMessage } from './messages.js';
import type { ModelInput } from './model-input.js';
import { planProgressOf } from './plan-progress.js';
import type { TraceSink } from './ports.js';
import type { SystemPromptRenderer } from './system-prompt-renderer.js';
import type { TokenEstimator, ToolSchema } from './token-estimator.js';

/** The replaceable stages of the pipeline; `default-pipeline.ts` wires the defaults. */
export interface ContextStages {
  readonly renderer: SystemPromptRenderer;
  readonly composer: ContextMessageComposer;
  readonly windowPolicy: HistoryWindowPolicy;
  readonly validator: ContextValidator;
}

export interface ContextAssemblerOptions {
  /** Frozen before the first turn. */
  readonly registry: ContextContributorRegistry;
  readonly budget: ResolvedContextBudget;
  readonly stages: ContextStages;
  readonly estimator: TokenEstimator;
  /** Exact counts for the model's tokenizer family, used when the estimate comes near the cap. */
  readonly exactEstimator?: TokenEstimator;
  readonly mode?: ContextMode;
  readonly compactor?: HistoryCompactor;
  /** Set to write one trace document per turn. */
  readonly traceSink?: TraceSink;
  /** Recorded in the trace beside the resolved budget. */
  readonly configuration?: ContextConfiguration;
  /** The legacy path's input (mode legacy and shadow). */
  readonly legacyInput: (request: TurnRequest) => ModelInput;
  readonly contributorTimeoutMs?: number;
  /** Clock for contributor durations in the trace. Default: performance.now. */
  readonly now?: () => number;
  /**
   * Share of the history budget a fresh window cut leaves free, so the next
   * turns keep the same start and the provider's prompt cache keeps hitting.
   * 0 fills the window to the cap every turn. Default 0.25.
   */
  readonly windowHeadroomShare?: number;
  /** Share of the cap above which final decisions use exact counts. Default 0.85. */
  readonly exactThresholdRatio?: number;
}

export interface TurnRequest {
  readonly contextId: string;
  /** 1-based model turn number. */
  readonly turn: number;
  readonly scope?: ContextScope;
  /** The canonical history; never mutated. */
  readonly history: CanonicalHistory;
  /** The governed tool set for this turn. */
  readonly tools: readonly ToolSchema[];
  readonly signal?: AbortSignal;
  /** Overflow recovery: run one forced pressure pass. */
  readonly recovery?: { readonly reason: string; readonly attempt: number };
}

export interface AssembledTurn {
  /** What to send to the model. */
  readonly input: ModelInput;
  readonly trace: ContextTraceV5;
  /** The canonical history after compaction, for the session to persist; the request's own when unchanged. */
  readonly history: CanonicalHistory;
  readonly historyChanged: boolean;
}



const WINDOW_STARTS_KEPT = 1_024;





/**
 * Decides, every model turn, exactly what the model sees. The pipeline:
 * message-count compaction → collect → budget → render → token pressure →
 * compaction → re-collect if history changed → compose → window → validate.
 */
export class ContextAssembler {
  private readonly options: ContextAssemblerOptions;
  /** Where each context's window started last turn, to keep the prompt prefix stable. */
  private readonly windowStarts = new Map<string, CanonicalMessage>();

  constructor(options: ContextAssemblerOptions) {
    this.options = options;
    options.registry.freeze();
  }

  get mode(): ContextMode {
    return this.options.mode ?? 'dynamic';
  }

  async assemble(request: TurnRequest): Promise<AssembledTurn> {
    const signal = request.signal ?? new AbortController().signal;
    signal.throwIfAborted();
    const scope = request.scope ?? 'main';
    const tools = sortToolsByName(request.tools);
    if (this.mode === 'legacy') {
      const input = this.options.legacyInput(request);
      const trace = await this.writeTrace(request, this.emptyTrace(request, scope, input));
      return { input, trace, history: request.history, historyChanged: false };
    }

    let history = request.history;
    let compaction: CompactionTrace = EMPTY_COMPACTION_TRACE;
    const compact = async (reason: CompactionReason, limits: { target: number; limit: number }, estimator: TokenEstimator) => {
      const result = await this.options.compactor!.compact({ contextId: request.contextId, history, reason, targetHistoryTokens: limits.target, limitHistoryTokens: limits.limit, estimator, signal });
      if (result.changed) history = result.history;
      compaction = { ...result.trace, recovery: request.recovery ?? null };
      return result.changed;
    };
    const { pressureTokens, inputCapTokens } = this.options.budget;
    if (this.options.compactor?.exceedsMessageCount(history)) await compact('message-count', { target: pressureTokens, limit: inputCapTokens }, this.options.estimator);

    let collected = await this.collect(request, scope, history, signal);
    // Token pressure is measured on what would be sent before any windowing. Prepared
    // contexts are kept by estimator for the fit below, until compaction changes the history.
    let prepared = new Map<TokenEstimator, PreparedContext>();
    const prepare = (estimator: TokenEstimator): PreparedContext => {
      let ready = prepared.get(estimator);
      if (!ready) prepared.set(estimator, (ready = prepareContext({ collected, history, tools, estimator, stages: this.options.stages, budget: this.options.budget })));
      return ready;
    };
    let measured = prepare(this.options.estimator);
    // Near the threshold, decide on exact counts when the tokenizer is known: estimates run high.
    if (this.options.exactEstimator && unwindowedTokens(measured) >= this.options.budget.pressureTokens) measured = prepare(this.options.exactEstimator);
    const fixed = measured.toolTokens + measured.systemTokens + measured.callLocalTokens;
    const pressure = unwindowedTokens(measured);
    if (this.options.compactor && (request.recovery || pressure >= pressureTokens)) {
      const limits = { target: Math.max(0, pressureTokens - fixed), limit: Math.max(0, inputCapTokens - fixed) };
      // The target is in the units pressure was measured in, so the compactor counts with the same estimator.
      if (await compact(request.recovery ? 'forced' : 'token-pressure', limits, measured.estimator)) {
        collected = await this.collect(request, scope, history, signal);
        prepared = new Map();
      }
    } else if (compaction.recovery === null && request.recovery) {
      compaction = { ...compaction, recovery: request.recovery };
    }
    const fit = this.fitWithBestCounts(prepare, this.windowStarts.get(request.contextId));
    this.rememberWindowStart(request.contextId, fit.window.start);

    const violations = this.options.stages.validator.validate({
      input: fit.input,
      protectedSectionIds: fit.admitted.sections.filter((section) => PROTECTED_SLOTS.has(section.slot)).map((section) => section.id),
      governedTools: tools,
      historyMessages: fit.composedHistory,
    });
    if (violations.length > 0) throw new ContextValidationError({ violations });

    const input = this.mode === 'shadow' ? this.options.legacyInput(request) : fit.input;
    const trace: ContextTraceV5 = {
      ...this.emptyTrace(request, scope, input),
      selectedPath: this.mode === 'shadow' ? 'legacy' : 'dynamic',
      budget: {
        ...this.options.budget,
        configuration: this.options.configuration
          ? { modelMaxTokens: this.options.configuration.modelMaxTokens, outputReserveTokens: this.options.configuration.outputReserveTokens, contextWindowTokens: this.options.configuration.contextWindowTokens }
          : null,
        toolTokens: fit.toolTokens,
        systemPromptUsedTokens: fit.systemTokens,
        callLocalTokens: fit.callLocalTokens,
        historyBudgetTokens: fit.historyBudgetTokens,
        countedWith: fit.estimator.exact ? 'exact' : 'estimate',
        tokenizerFamily: fit.estimator.family,
        totalTokens: fit.totalTokens,
      },
      contributors: collected.records,
      collection: collected.collection,
      admitted: { sections: fit.admitted.sections, attachments: fit.admitted.attachments, messages: fit.admitted.messages, diagnostics: fit.admitted.diagnostics },
      planProgress: planProgressOf({ original: request.history, visible: fit.window.messages }),
      renderedContext: {
        systemPrompt: fit.rendered.text,
        sectionIds: fit.rendered.sectionIds,
        history: fit.window.messages,
        tools: tools.map((tool) => tool.name),
        window: fit.window.stats,
        windowDiagnostics: fit.window.diagnostics,
      },
      compaction,
      diagnostics: [...collected.collection.diagnostics, ...fit.diagnostics],
    };
    return { input, trace: await this.writeTrace(request, trace), history, historyChanged: history !== request.history };
  }

  private rememberWindowStart(contextId: string, start: CanonicalMessage | undefined): void {
    this.windowStarts.delete(contextId);
    if (!start) return;
    // Bounded: an assembler shared by many contexts keeps only the most recent ones.
    if (this.windowStarts.size >= WINDOW_STARTS_KEPT) this.windowStarts.delete(this.windowStarts.keys().next().value!);
    this.windowStarts.set(contextId, start);
  }

  private collect(request: TurnRequest, scope: ContextScope, history: CanonicalHistory, signal: AbortSignal): Promise<CollectionResult> {
    return this.options.registry.collectDetailed({
      contextId: request.contextId,
      scope,
      turn: request.turn,
      history,
      signal,
      ...(this.options.contributorTimeoutMs === undefined ? {} : { timeoutMs: this.options.contributorTimeoutMs }),
      ...(this.options.now === undefined ? {} : { now: this.options.now }),
    });
  }

  /**
   * Fits with the fast estimator; when the result comes within 15% of the cap
   * (or does not fit) and an exact estimator is known, decides again on exact
   * counts, so tight budgets are used fully without risk.
   */
  private fitWithBestCounts(prepare: (estimator: TokenEstimator) => PreparedContext, previousStart: CanonicalMessage | undefined): FittedContext {
    const { exactEstimator, estimator } = this.options;
    const threshold = this.options.budget.inputCapTokens * (this.options.exactThresholdRatio ?? 0.85);
    const fit = (ready: PreparedContext) =>
      fitContext(ready, { stages: this.options.stages, budget: this.options.budget, previousStart, headroomShare: this.options.windowHeadroomShare ?? WINDOW_HEADROOM_SHARE });
    const estimate = prepare(estimator);
    // Exact counts decide whenever the window may have to cut: the estimate of everything is near the cap.
    if (exactEstimator && unwindowedTokens(estimate) >= threshold) return fit(prepare(exactEstimator));
    try {
      return fit(estimate);
    } catch (error) {
      if (exactEstimator && ContextBudgetError.isInstance(error)) return fit(prepare(exactEstimator));
      throw error;
    }
  }

  private emptyTrace(request: TurnRequest, scope: ContextScope, input: ModelInput): ContextTraceV5 {
    return {
      schemaVersion: 5,
      contextId: request.contextId,
      turn: request.turn,
      recoveryAttempt: request.recovery?.attempt ?? null,
      mode: this.mode,
      scope,
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

  /**
   * Traces are debugging data: a failed write never fails the turn. It is
   * reported in the returned trace's diagnostics instead.
   */
  private async writeTrace(request: TurnRequest, trace: ContextTraceV5): Promise<ContextTraceV5> {
    if (!this.options.traceSink) return trace;
    try {
      await this.options.traceSink.write({
        contextId: request.contextId,
        turn: request.turn,
        ...(request.recovery ? { recoveryAttempt: request.recovery.attempt } : {}),
        body: trace,
      });
      return trace;
    } catch (error) {
      const message = `trace of turn ${request.turn} was not written: ${error instanceof Error ? error.message : String(error)}`;
      return { ...trace, diagnostics: [...trace.diagnostics, { code: 'CONTEXT_TRACE_WRITE_FAILED', severity: 'warning', message }] };
    }
  }
}
