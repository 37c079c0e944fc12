import type { ContextBudgetPolicy } from './budget.js';
import { ContextBudgetError } from './errors/context-budget-error.js';
import type { Timers } from './timers.js';
import { BoundedCache } from './bounded-cache.js';
import { ContextMemory } from './context-memory.js';
import { checkContextState, withDefined, type ContextState } from './context-state.js';
import { calibratedBudget } from './usage-calibration.js';
import { countCandidate, fixedTokens, historyBudgetTokens, sortToolsByName, unwindowedTokens, WINDOW_HEADROOM_SHARE, type ContextCandidate } from './context-candidate.js';
import type { ContextConfiguration, ContextMode, ResolvedContextBudget } from './context-configuration.js';
import type { ContextTraceV5 } from './context-trace.js';
import type { ContextValidator } from './context-validator.js';
import { PROTECTED_SLOTS, type ContextDiagnostic, type ContextScope } from './contributor.js';
import type { CollectionResult, ContextContributorRegistry } from './contributor-registry.js';
import { chooseCounter } from './counting-policy.js';
import { OutputReferenceCheck } from './output-references.js';
import { ContextValidationError } from './errors/context-validation-error.js';
import { EMPTY_COMPACTION_TRACE, type CompactionReason, type CompactionTrace, type CompactionTrigger, type HistoryCompactor } from './history-compactor.js';
import type { HistoryWindow, HistoryWindowPolicy } from './history-window.js';
import type { ContextMessageComposer } from './message-composer.js';
import type { CanonicalHistory, CanonicalMessage } from './messages.js';
import type { ModelInput } from './model-input.js';
import type { ToolOutputStore, TraceSink } from './ports.js';
import type { SystemPromptRenderer } from './system-prompt-renderer.js';
import type { TokenEstimator, ToolSchema } from './token-estimator.js';
import type { TokenPressurePolicy } from './token-pressure.js';
import { dynamicTurnTrace, legacyTurnTrace, type TurnIdentity } from './turn-trace.js';

/**
 * The replaceable stages of a turn, in pipeline order; `default-pipeline.ts`
 * wires the defaults. Collection is the contributor registry, compaction the
 * optional `HistoryCompactor` and tracing the optional `TraceSink`: all three
 * are given by the caller, in `ContextAssemblerOptions`. The history lists the
 * stages and contributors are given are read only, and only ever grow at
 * their end: a later turn may give the same list with messages appended
 * (never one changed before them), so what a stage keeps of one stays true.
 */
export interface ContextStages {
  readonly budget: ContextBudgetPolicy;
  readonly renderer: SystemPromptRenderer;
  readonly pressure: TokenPressurePolicy;
  readonly composer: ContextMessageComposer;
  readonly windowPolicy: HistoryWindowPolicy;
  readonly validator: ContextValidator;
}

/** The stages a turn times, in pipeline order; budget, render and compose run again when compaction changed the history. */
export type ContextStageName = 'message-count-compaction' | 'collect' | 'budget' | 'render' | 'compose' | 'pressure' | 'compaction' | 'window' | 'validate' | 'trace';

/** One stage of one turn, timed with the assembler's clock. */
export interface ContextStageEvent {
  readonly contextId: string;
  readonly turn: number;
  readonly stage: ContextStageName;
  /** On the assembler's clock (`now`), in milliseconds. */
  readonly startedAt: number;
  readonly durationMs: number;
}

export interface ContextAssemblerOptions {
  /** The collect stage; frozen before the first turn. */
  readonly registry: ContextContributorRegistry;
  /** Resolved once per run (`resolveContextBudget`). */
  readonly budget: ResolvedContextBudget;
  readonly stages: ContextStages;
  /** The fast counter: conservative, it may over-count but never under-counts. */
  readonly estimator: TokenEstimator;
  /** Exact counts for the model's tokenizer family; see `chooseCounter` for when they decide. */
  readonly exactEstimator?: TokenEstimator;
  readonly mode?: ContextMode;
  /** The compact stage; without one the history is only windowed. */
  readonly compactor?: HistoryCompactor;
  /**
   * Where the context's tool outputs are stored. When given, every stored-output
   * reference the input points the model at is checked to read back before the call.
   */
  readonly outputStore?: ToolOutputStore;
  /** The trace stage: set to write one trace document per turn. */
  readonly traceSink?: TraceSink;
  /** Recorded in the trace beside the resolved budget. */
  readonly configuration?: ContextConfiguration;
  /** The legacy path's input (mode legacy and shadow). */
  readonly legacyInput: (request: TurnRequest) => ModelInput;
  readonly contributorTimeoutMs?: number;
  /** Clock for contributor and stage durations. Default: performance.now. */
  readonly now?: () => number;
  /** Run the contributor timeouts. Default: the process's timers. */
  readonly timers?: Timers;
  /** Called after each stage of a turn, with its duration: the hook for telemetry spans. */
  readonly onStage?: (event: ContextStageEvent) => void;
  /**
   * Share of the history budget a fresh window cut leaves free, so the next
   * turns keep the same start and the provider's prompt cache keeps hitting.
   * 0 fills the window to the cap every turn. Default `WINDOW_HEADROOM_SHARE` (0.5).
   */
  readonly windowHeadroomShare?: number;
  /** Share of the cap from which exact counts decide (see `chooseCounter`). Default 0.85. */
  readonly exactThresholdRatio?: number;
}

/** Why a turn is assembled again after the provider rejected it for overflow. */
export interface TurnRecovery {
  /** Recorded in the trace: the provider's message. */
  readonly reason: string;
  /** 1 for the first retry. */
  readonly attempt: number;
  /** What the provider said it counted and allows, when it said (any value: non-numbers are ignored). */
  readonly requestedTokens?: number;
  readonly limitTokens?: number;
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
  /** Overflow recovery: assemble for a smaller cap (see `recoveryBudget`) with one forced pressure pass. */
  readonly recovery?: TurnRecovery;
  /**
   * The context state the previous turn of this context returned
   * (`AssembledTurn.state`), as persisted with the session. Undefined (or
   * null): a context never assembled, which starts from the initial state.
   * The assembler keeps no decision of its own between turns: the same
   * history, request and state give the same input in any process.
   */
  readonly state?: ContextState | null;
  /** The `update_plan` call that declared the run's active plan, as the run's state knows it (compaction may have removed it from the history); for the trace's planProgress only. */
  readonly activePlanCallId?: string;
}

export interface AssembledTurn {
  /** What to send to the model. */
  readonly input: ModelInput;
  readonly trace: ContextTraceV5;
  /** The canonical history after compaction, for the session to persist; the request's own when unchanged. */
  readonly history: CanonicalHistory;
  readonly historyChanged: boolean;
  /** The context state after this turn: pass it with the next request, and persist it with the session. */
  readonly state: ContextState;
}

/** One turn's fixed facts, passed from stage to stage. */
interface Turn extends TurnIdentity {
  readonly request: TurnRequest;
  readonly memory: ContextMemory;
  /** The context state as the turn goes: what the request passed, with what this turn decided. */
  state: ContextState;
  readonly tools: readonly ToolSchema[];
  readonly signal: AbortSignal;
}

/** The assembler's caches are kept for this many contexts, the most recent ones. */
const CONTEXTS_KEPT = 1_024;

/**
 * Decides, every model turn, exactly what the model sees. `assemble` reads as
 * the pipeline: message-count compaction → collect → budget → render →
 * compose → token pressure → compaction → re-collect (only when the history
 * changed) → window → validate → trace. Pressure is measured on what the turn
 * would send: the composed history (as the composer shows it, previews
 * included) before windowing, with the system prompt, tools and call-local data.
 */
export class ContextAssembler {
  private readonly options: ContextAssemblerOptions;
  private readonly stages: ContextStages;
  /** Each context's caches (bounded: the most recent contexts); never a decision. */
  private readonly memories = new BoundedCache<string, ContextMemory>(CONTEXTS_KEPT);
  private readonly references: OutputReferenceCheck | undefined;
  private readonly countFunctions = new WeakMap<TokenEstimator, (message: CanonicalMessage) => number>();

  constructor(options: ContextAssemblerOptions) {
    this.options = options;
    this.stages = options.stages;
    this.references = options.outputStore && new OutputReferenceCheck(options.outputStore);
    options.registry.freeze();
  }

  get mode(): ContextMode {
    return this.options.mode ?? 'dynamic';
  }

  async assemble(given: TurnRequest): Promise<AssembledTurn> {
    // The caller's history array stays theirs to change after the turn (a host loop or a replay appends to it in place): the
    // turn works on the memory's own list of it (grown in place while the caller only appends), and nothing kept between turns
    // (ContextMemory, the stages' shared-prefix facts) is an array the caller holds. The history handed back is the caller's
    // own when unchanged, else a copy of the turn's.
    const signal = given.signal ?? new AbortController().signal;
    signal.throwIfAborted();
    const memory = this.memories.getOrCreate(given.contextId, () => new ContextMemory());
    // Any value in: a malformed history or state is one input error naming the message and field. The check makes the list.
    const request: TurnRequest = { ...given, history: memory.check(given.history) };
    const state = checkContextState(request.state);
    const turn: Turn = {
      request,
      contextId: request.contextId,
      turn: request.turn,
      scope: request.scope ?? 'main',
      mode: this.mode,
      recovery: request.recovery,
      tools: sortToolsByName(request.tools),
      signal,
      memory,
      state,
    };
    if (this.mode === 'legacy') {
      const input = this.options.legacyInput(request);
      return { input, trace: await this.writeTrace(turn, legacyTurnTrace(turn, input)), history: given.history, historyChanged: false, state };
    }
    // An exact counter that asks a provider (ProviderTokenCounter) counts what is new before the synchronous counts run.
    // What it could not count stays the estimate; its diagnostics (TOKEN_COUNT_FALLBACK) go into the turn's trace.
    const precounted = precountDiagnostics(await this.options.exactEstimator?.precount?.({ messages: request.history, tools: request.tools, signal }));
    // The usage calibration (the provider counts more than we do) shrinks every turn's cap; a recovery shrinks it again.
    const calibrated = calibratedBudget(this.options.budget, state);
    const budget = request.recovery ? recoveryBudget(calibrated, request.recovery, state.lastInputTokens) : calibrated;

    // 1. Message-count compaction, the trigger kept for compatibility.
    let history = request.history;
    let compaction: CompactionTrace = { ...EMPTY_COMPACTION_TRACE, recovery: tracedRecovery(request.recovery) };
    if (this.options.compactor?.exceedsMessageCount(history)) {
      const limits = { targetHistoryTokens: budget.pressureTokens, limitHistoryTokens: budget.inputCapTokens };
      const trigger = compactionTrigger('message-count', null, budget, history);
      ({ history, compaction } = await this.timed(turn, 'message-count-compaction', () => this.compact(turn, history, 'message-count', limits, this.options.estimator, trigger)));
      if (history !== request.history) reachCapacity(turn, history);
    }
    // 2. Collect → 3. budget → 4. render → 5. compose: the candidate input, before any window.
    let collected = await this.timed(turn, 'collect', () => this.collect(turn, history));
    let candidate = this.prepare(turn, collected, history);
    // 6. Token pressure, on everything the candidate would send.
    const pressure = this.timedSync(turn, 'pressure', () => this.stages.pressure.measure({ totalTokens: unwindowedTokens(candidate), fixedTokens: fixedTokens(candidate), budget }));
    // 7. Compaction under pressure, or forced by overflow recovery; counted in the units pressure was measured in.
    if (this.options.compactor && (request.recovery || pressure.compact)) {
      const reason = request.recovery ? 'forced' : 'token-pressure';
      const trigger = compactionTrigger(reason, unwindowedTokens(candidate), budget, history);
      const compacted = await this.timed(turn, 'compaction', () => this.compact(turn, history, reason, pressure, candidate.counter, trigger));
      // A pass that changed nothing keeps the message-count pass's record, if any.
      if (compacted.compaction.reason !== null || compaction.reason === null) compaction = compacted.compaction;
      // 8. Re-collect only if the model-visible history changed.
      if (compacted.history !== history) {
        history = compacted.history;
        reachCapacity(turn, history);
        collected = await this.timed(turn, 'collect', () => this.collect(turn, history));
        candidate = this.prepare(turn, collected, history);
      }
    }
    // 9. Window: the history into what the cap leaves, never splitting a tool call from its results.
    const { historyBudget, window, replaced } = await this.timed(turn, 'window', async () => {
      const fitted = this.fitWindow(turn, collected, history, candidate, budget);
      candidate = fitted.candidate;
      return { historyBudget: fitted.historyBudget, ...(await this.checkReferences(turn, fitted.selected)) };
    });
    if (window.stats.droppedUnits > 0) reachCapacity(turn, history);
    // Call-local data goes after the history: every call in it is answered, so nothing sits between a call and its results.
    const candidateInput: ModelInput = { messages: [...candidate.system, ...window.messages, ...candidate.composed.callLocal], tools: turn.tools };
    // 10. Validate: the last gate before a provider.
    this.timedSync(turn, 'validate', () => this.validate(turn, candidate, replaced, candidateInput));
    // 11. Trace. Shadow mode sends the legacy input and traces the dynamic candidate.
    const input = this.mode === 'shadow' ? this.options.legacyInput(request) : candidateInput;
    const trace = dynamicTurnTrace({
      identity: turn,
      input,
      budget,
      configuration: this.options.configuration,
      collected,
      candidate,
      window,
      historyBudgetTokens: historyBudget,
      compaction,
      original: request.history,
      declaredPlan: memory.latestPlanCall(),
      activePlanCallId: request.activePlanCallId,
      previousWindowStart: state.windowStart,
    });
    turn.state = withDefined({ ...turn.state, lastInputTokens: trace.budget!.totalTokens });
    const traced = precounted.length === 0 ? trace : { ...trace, diagnostics: [...trace.diagnostics, ...precounted] };
    // The caller comes back with the compacted history and what arrived since: the next turn walks it and appends.
    if (history !== request.history) memory.adopt(history);
    return { input, trace: await this.timed(turn, 'trace', () => this.writeTrace(turn, traced)), history: history === request.history ? given.history : history.slice(), historyChanged: history !== request.history, state: turn.state };
  }

  /** Runs one stage, reporting its duration to `onStage` when one is set. */
  private async timed<T>(turn: Turn, stage: ContextStageName, run: () => Promise<T>): Promise<T> {
    if (!this.options.onStage) return run();
    const startedAt = this.clock();
    try {
      return await run();
    } finally {
      this.reportStage(turn, stage, startedAt);
    }
  }

  private timedSync<T>(turn: Turn, stage: ContextStageName, run: () => T): T {
    if (!this.options.onStage) return run();
    const startedAt = this.clock();
    try {
      return run();
    } finally {
      this.reportStage(turn, stage, startedAt);
    }
  }

  private reportStage(turn: Turn, stage: ContextStageName, startedAt: number): void {
    this.options.onStage?.({ contextId: turn.contextId, turn: turn.turn, stage, startedAt, durationMs: this.clock() - startedAt });
  }

  private clock(): number {
    return this.options.now ? this.options.now() : performance.now();
  }

  private collect(turn: Turn, history: CanonicalHistory): Promise<CollectionResult> {
    return this.options.registry.collectDetailed({
      contextId: turn.contextId,
      scope: turn.scope,
      turn: turn.turn,
      history,
      signal: turn.signal,
      timeoutMs: this.options.contributorTimeoutMs,
      now: this.options.now,
      timers: this.options.timers,
    });
  }

  /**
   * Budget, render and compose, counted with the fast estimator; when the
   * counting policy asks for exact counts, once more with the exact counter,
   * so admission, pressure and window all decide in the same units.
   */
  private prepare(turn: Turn, collected: CollectionResult, history: CanonicalHistory, shrinkNewestStep = false): ContextCandidate {
    const prepareWith = (counter: TokenEstimator): ContextCandidate => {
      const admitted = this.timedSync(turn, 'budget', () => this.stages.budget.admit({ collection: collected.collection, limits: this.options.budget, estimator: counter }));
      const rendered = this.timedSync(turn, 'render', () => this.stages.renderer.render(admitted.sections));
      const composed = this.timedSync(turn, 'compose', () =>
        this.stages.composer.compose({ contextId: turn.contextId, history, messages: admitted.messages, attachments: admitted.attachments, capacityStep: turn.state.capacityStep, shrinkNewestStep }),
      );
      return countCandidate({ admitted, rendered, composed, tools: turn.tools, counter, historyTokens: turn.memory.historyTokens(composed.history, counter) });
    };
    const estimated = prepareWith(this.options.estimator);
    const counter = chooseCounter({
      estimator: this.options.estimator,
      exactEstimator: this.options.exactEstimator,
      budget: this.options.budget,
      exactCapShare: this.options.exactThresholdRatio,
      estimatedTokens: unwindowedTokens(estimated),
    });
    return counter === this.options.estimator ? estimated : prepareWith(counter);
  }

  private async compact(
    turn: Turn,
    history: CanonicalHistory,
    reason: CompactionReason,
    limits: { readonly targetHistoryTokens: number; readonly limitHistoryTokens: number },
    estimator: TokenEstimator,
    trigger: CompactionTrigger,
  ): Promise<{ history: CanonicalHistory; compaction: CompactionTrace }> {
    const result = await this.options.compactor!.compact({ contextId: turn.contextId, history, reason, ...limits, estimator, signal: turn.signal });
    const recovery = tracedRecovery(turn.recovery);
    // A pass that changed nothing is not a compaction: only its summary attempts are kept, for the record.
    if (!result.changed || result.history === history) {
      return { history, compaction: { ...EMPTY_COMPACTION_TRACE, summaryAttempts: result.trace.summaryAttempts, summaryRejections: result.trace.summaryRejections, recovery } };
    }
    return { history: result.history, compaction: { ...result.trace, trigger, recovery } };
  }

  /**
   * The window, and the candidate it was cut from. When what the window must
   * keep does not fit, the newest step shrinks as seed 000 allows (its large
   * bodies as head/tail + reference, its calls and result structure
   * unchanged) and the window is cut again; what still does not fit (an
   * over-large call argument, which nothing may shorten, or the requests) fails.
   */
  private fitWindow(turn: Turn, collected: CollectionResult, history: CanonicalHistory, candidate: ContextCandidate, budget: ResolvedContextBudget): { candidate: ContextCandidate; historyBudget: number; selected: HistoryWindow } {
    try {
      return { candidate, ...this.windowFor(turn, candidate, budget, false) };
    } catch (error) {
      // No room: what must be kept, or the newest step's full copies after the history, exceed what is left.
      if (!isMustKeepOverBudget(error) && !isNoRoomForHistory(error)) throw error;
      const shrunk = this.prepare(turn, collected, history, true);
      try {
        return { candidate: shrunk, ...this.windowFor(turn, shrunk, budget, true) };
      } catch (again) {
        if (!isMustKeepOverBudget(again)) throw again;
        throw new ContextBudgetError({
          code: again.code,
          requiredTokens: again.requiredTokens,
          availableTokens: again.availableTokens,
          message: `${again.message}, even with the newest step's stored results as head/tail previews (what is left is call arguments and requests, which are never shortened)`,
        });
      }
    }
  }

  /**
   * The history budget and the window cut to it. On the last attempt, a
   * recovery whose smaller cap cannot hold what the window must keep (the
   * task anchor, the newest step) sends just that: the smallest input there is.
   */
  private windowFor(turn: Turn, candidate: ContextCandidate, budget: ResolvedContextBudget, lastAttempt: boolean): { historyBudget: number; selected: HistoryWindow } {
    if (!turn.recovery) {
      const historyBudget = historyBudgetTokens(candidate, budget);
      return { historyBudget, selected: this.window(turn, candidate, historyBudget) };
    }
    const historyBudget = Math.max(0, budget.inputCapTokens - fixedTokens(candidate));
    try {
      return { historyBudget, selected: this.window(turn, candidate, historyBudget) };
    } catch (error) {
      if (!lastAttempt || !isMustKeepOverBudget(error)) throw error;
      return { historyBudget: error.requiredTokens, selected: this.window(turn, candidate, error.requiredTokens) };
    }
  }

  private window(turn: Turn, candidate: ContextCandidate, budgetTokens: number): HistoryWindow {
    const window = this.stages.windowPolicy.select({
      messages: candidate.composed.history,
      budgetTokens,
      count: this.countFunction(candidate.counter),
      contextId: turn.contextId,
      headroomTokens: Math.floor(budgetTokens * (this.options.windowHeadroomShare ?? WINDOW_HEADROOM_SHARE)),
      previousStart: turn.state.windowStart,
    });
    turn.state = withDefined({ ...turn.state, windowStart: window.start });
    return window;
  }

  /** Every stored-output pointer left in the window reads back, or its message is replaced by one with a note (never longer). */
  private async checkReferences(turn: Turn, window: HistoryWindow): Promise<{ window: HistoryWindow; replaced: ReadonlySet<CanonicalMessage> }> {
    if (!this.references) return { window, replaced: new Set() };
    const checked = await this.references.check(turn.contextId, window.messages, turn.memory.readableOutputRefs);
    if (checked.diagnostics.length === 0) return { window, replaced: new Set() };
    const replaced = new Set(checked.messages.filter((message, index) => message !== window.messages[index]));
    return { window: { ...window, messages: checked.messages, diagnostics: [...window.diagnostics, ...checked.diagnostics] }, replaced };
  }

  /** One count function per counter, the same every turn, so the window policy can keep its counts. */
  private countFunction(counter: TokenEstimator): (message: CanonicalMessage) => number {
    let count = this.countFunctions.get(counter);
    if (!count) this.countFunctions.set(counter, (count = (message) => counter.countMessage(message)));
    return count;
  }

  private validate(turn: Turn, candidate: ContextCandidate, replaced: ReadonlySet<CanonicalMessage>, input: ModelInput): void {
    const violations = this.stages.validator.validate({
      input,
      protectedSectionIds: candidate.admitted.sections.filter((section) => PROTECTED_SLOTS.has(section.slot)).map((section) => section.id),
      governedTools: turn.tools,
      historyMessages: { has: (message) => turn.memory.composedMessage(message) || replaced.has(message) },
      canonicalMessages: { has: (message) => turn.memory.canonicalSigned(message) },
    });
    if (violations.length > 0) throw new ContextValidationError({ violations });
  }

  /**
   * Traces are debugging data: a failed write never fails the turn. It is
   * reported in the returned trace's diagnostics instead.
   */
  private async writeTrace(turn: Turn, trace: ContextTraceV5): Promise<ContextTraceV5> {
    if (!this.options.traceSink) return trace;
    try {
      await this.options.traceSink.write({ contextId: turn.contextId, turn: turn.turn, recoveryAttempt: turn.recovery?.attempt, body: trace });
      return trace;
    } catch (error) {
      const message = `trace of turn ${turn.turn} was not written: ${error instanceof Error ? error.message : String(error)}`;
      return { ...trace, diagnostics: [...trace.diagnostics, { code: 'CONTEXT_TRACE_WRITE_FAILED', severity: 'warning', message }] };
    }
  }
}

/** Records that the context reached capacity now, at the step `history` ends with, unless it already had. */
function reachCapacity(turn: Turn, history: CanonicalHistory): void {
  if (turn.state.capacityStep !== undefined) return;
  let steps = 0;
  for (const message of history) if (message.role === 'assistant') steps += 1;
  turn.state = withDefined({ ...turn.state, capacityStep: steps });
}

/** The cap a recovery attempt aims for when the provider gave no figures: three quarters of the input it rejected. */
export const RECOVERY_SHARE = 0.75;
/** Below the provider's own limit, the share of it a recovery aims for: its count and ours still differ. */
export const RECOVERY_MARGIN = 0.9;

/**
 * The budget an overflow-recovery attempt is assembled for. The provider
 * rejected an input this context's counter put at `rejectedTokens` (or at
 * most the cap): the retry's cap is that input scaled by the provider's limit
 * over its count, less a tenth, when it gave both figures and they say the
 * input was over; by RECOVERY_SHARE otherwise. The pressure line scales with
 * the cap. So the retry is always smaller than what was rejected, by as much
 * as the provider says the counter was off.
 */
function recoveryBudget(budget: ResolvedContextBudget, recovery: TurnRecovery, rejectedTokens: number | undefined): ResolvedContextBudget {
  const { requestedTokens, limitTokens } = recovery;
  const stated = isPositiveNumber(requestedTokens) && isPositiveNumber(limitTokens) && requestedTokens > limitTokens;
  const share = stated ? (limitTokens / requestedTokens) * RECOVERY_MARGIN : RECOVERY_SHARE;
  const rejected = Math.min(budget.inputCapTokens, rejectedTokens ?? budget.inputCapTokens);
  const inputCapTokens = Math.max(1, Math.floor(rejected * share));
  return { ...budget, inputCapTokens, pressureTokens: Math.floor(budget.pressureTokens * (inputCapTokens / budget.inputCapTokens)) };
}

/** The recovery as the trace records it (its reason holds the provider's message, figures included). */
function tracedRecovery(recovery: TurnRecovery | undefined): CompactionTrace['recovery'] {
  return recovery ? { reason: recovery.reason, attempt: recovery.attempt } : null;
}

function isMustKeepOverBudget(error: unknown): error is ContextBudgetError {
  return ContextBudgetError.isInstance(error) && error.code === 'CONTEXT_WINDOW_MUST_KEEP_OVER_BUDGET';
}

function isNoRoomForHistory(error: unknown): error is ContextBudgetError {
  return ContextBudgetError.isInstance(error) && error.code === 'CONTEXT_NO_ROOM_FOR_HISTORY';
}

function isPositiveNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * The diagnostics of a precount report (`{ diagnostics: [{ code, message }] }`,
 * as ProviderTokenCounter returns), as warnings of the turn; nothing for any
 * other value, since `precount` may answer anything.
 */
function precountDiagnostics(report: unknown): ContextDiagnostic[] {
  const listed = typeof report === 'object' && report !== null ? (report as { diagnostics?: unknown }).diagnostics : undefined;
  if (!Array.isArray(listed)) return [];
  return listed.flatMap((entry: unknown) => {
    const { code, message } = (typeof entry === 'object' && entry !== null ? entry : {}) as { code?: unknown; message?: unknown };
    return typeof code === 'string' && typeof message === 'string' ? [{ code, severity: 'warning' as const, message }] : [];
  });
}

/** Why a compaction runs: what the turn would send (null when not measured) against the pressure threshold and the cap. */
function compactionTrigger(reason: CompactionReason, tokens: number | null, budget: ResolvedContextBudget, history: CanonicalHistory): CompactionTrigger {
  const capTokens = budget.inputCapTokens;
  return { reason, tokens, thresholdTokens: budget.pressureTokens, capTokens, pressure: tokens === null ? null : Math.round((tokens / capTokens) * 1000) / 1000, historyMessages: history.length };
}
