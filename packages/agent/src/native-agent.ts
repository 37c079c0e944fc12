import { calibrateContextState, ContextBudgetError, ContextInputError, ContextValidationError, INITIAL_CONTEXT_STATE, redactCredentials, type AssembledTurn, type AssistantMessage, type ContextAssembler, type ContextDiagnostic, type ContextScope, type CredentialVault, type ModelCallTrace, type TokenEstimator, type ToolOutputStore, type TurnRecovery } from '@strata/context';
import { ContextOverflowError, type ModelCallError, type ModelClient } from '@strata/model';
import { toolErrorCodeOf, type ToolRegistry } from '@strata/tools';
import type { AgentEvent, AgentStopReason } from './agent-events.js';
import { SESSION_WRITE_ATTEMPTS, type AgentRunState } from './agent-run-state.js';
import type { RunLanes } from './lanes/run-lanes.js';
import { runModelTurn, type ModelAttempt } from './model-turn.js';
import { RunDeadline } from './run-deadline.js';
import type { RunTraceSink } from './run-trace-sink.js';
import { MAX_TOOL_CALLS_PER_STEP, refuseStep, repeatedCallsStop, turnsLeft } from './stop-conditions.js';
import { dispatchToolCalls } from './tool-dispatch.js';

/** What the loop does next. */
type NextStep =
  | { readonly type: 'model' }
  | { readonly type: 'tools'; readonly message: AssistantMessage }
  | { readonly type: 'stop'; readonly reason: AgentStopReason; readonly error?: unknown };

export interface NativeAgentOptions {
  readonly state: AgentRunState;
  /** The run's structured state, updated at the tool-result boundary in declared order. */
  readonly lanes: RunLanes;
  readonly assembler: ContextAssembler;
  readonly client: ModelClient;
  readonly registry: ToolRegistry;
  readonly outputStore: ToolOutputStore;
  /** The run's credential vault (`redactToolOutputs: false`); see `dispatchToolCalls`. */
  readonly vault?: CredentialVault;
  readonly deadline: RunDeadline;
  /** The input cap and the estimator a step's calls are checked against before they run. */
  readonly inputCapTokens: number;
  readonly estimator: TokenEstimator;
  /** The sink the assembler writes to, held until each assembly is committed. */
  readonly traceSink?: RunTraceSink;
  readonly scope?: ContextScope;
  /** Default `DEFAULT_MAX_TURNS` (50) model turns per run. */
  readonly maxTurns?: number;
  /**
   * Stop at the first turn boundary (a step's tools ran and the run would go
   * on) with `turn-end`: durable execution runs one turn per workflow step
   * and executes again for the next. Default false.
   */
  readonly stopAtTurnEnd?: boolean;
  /** Default `MAX_TOOL_CALLS_PER_STEP` (128). */
  readonly maxToolCallsPerStep?: number;
  /** Refusals of repeated identical calls before the run stops with `loop-guard`. Default `MAX_REPEATED_CALL_REFUSALS` (3). */
  readonly maxRepeatedCallRefusals?: number;
  readonly onEvent?: (event: AgentEvent) => void;
  /** The run's clock, for the latencies in traces. Default: performance.now. */
  readonly now?: () => number;
}

export interface AgentRunResult {
  readonly stopReason: AgentStopReason;
  /** The canonical history as the run left it (compacted where compaction ran); the stored session holds the same. */
  readonly finalMessages: AgentRunState['history'];
  /** The last assistant text, when the run completed. */
  readonly text: string;
  /** Model turns this run made. */
  readonly turns: number;
  readonly usage: AgentRunState['usage'];
  /** What the run noticed and went on from: failed trace writes, discarded late tool results, redactions, session conflicts. */
  readonly diagnostics: readonly ContextDiagnostic[];
  readonly error?: unknown;
}

/**
 * The native agent loop: assemble context, stream a model turn, run its tool
 * calls, repeat until the model stops calling tools, a limit is hit, or the
 * run is cancelled. Provider failures end the run with a stop reason. A step
 * (an assistant message and all its results) is stored whole, after its tools.
 */
export class NativeAgent {
  private readonly options: NativeAgentOptions;
  private readonly diagnostics: ContextDiagnostic[] = [];
  private turns = 0;
  private repeatedCallRefusals = 0;

  constructor(options: NativeAgentOptions) {
    this.options = options;
  }

  async execute(): Promise<AgentRunResult> {
    const { deadline, state } = this.options;
    let step: NextStep = { type: 'model' };
    try {
      while (step.type !== 'stop') {
        // A step whose message is in hand is closed and stored even when the run was stopped meanwhile.
        if (step.type === 'tools') step = await this.toolStep(step.message);
        else if (deadline.signal.aborted) step = this.stopOnAbort(deadline.signal.reason);
        else step = await this.modelStep();
      }
    } catch (error) {
      // Errors that are not a provider's (a budget the must-keep history exceeds, a store failure) end the run with a reason too.
      step = deadline.signal.aborted ? this.stopOnAbort(deadline.signal.reason) : { type: 'stop', reason: isContextError(error) ? 'context-error' : 'runtime-error', error };
    } finally {
      deadline.dispose();
      // A trace still held (its call threw before it could be recorded) is written all the same.
      for (const failure of (await this.options.traceSink?.flush()) ?? []) this.diagnose(failure);
    }
    const stop = step as Extract<NextStep, { type: 'stop' }>;
    // A turn boundary is a pause, not the run's end.
    if (stop.reason !== 'turn-end') this.emit({ type: 'run-end', stopReason: stop.reason });
    const last = state.history.findLast((message): message is AssistantMessage => message.role === 'assistant');
    return {
      stopReason: stop.reason,
      finalMessages: state.history,
      text: stop.reason === 'completed' ? last?.content ?? '' : '',
      turns: this.turns,
      usage: state.usage,
      diagnostics: [...this.diagnostics],
      ...(stop.error === undefined ? {} : { error: stop.error }),
    };
  }

  private async modelStep(): Promise<NextStep> {
    const { state, client, deadline } = this.options;
    if (!turnsLeft(this.turns, this.options.maxTurns)) return { type: 'stop', reason: 'max-turns' };
    this.turns += 1;
    const turn = state.nextTurn();
    this.emit({ type: 'turn-start', turn });
    const outcome = await runModelTurn({
      assemble: (recovery) => this.assemble(turn, recovery),
      client,
      signal: deadline.signal,
      onEvent: (event) => {
        deadline.progress();
        if (event.type === 'text-delta' || event.type === 'reasoning-delta') this.emit(event);
      },
      onRecovery: (attempt) => this.emit({ type: 'overflow-recovery', turn, attempt }),
      onAttempt: (attempt) => this.traceAttempt(attempt),
      now: this.options.now,
    });
    if (outcome.type === 'aborted') return this.stopOnAbort(outcome.reason, outcome.timedOut);
    if (outcome.type === 'error') return { type: 'stop', reason: errorReason(outcome.error), error: redactError(outcome.error) };
    state.addUsage(outcome.usage);
    this.emit({ type: 'usage', usage: outcome.usage, ...(outcome.finishReason === undefined ? {} : { finishReason: outcome.finishReason }), ...(outcome.response === undefined ? {} : { response: outcome.response }) });
    this.calibrate(turn, outcome.assembled, outcome.usage.inputTokens);
    const message = outcome.message;
    if ((message.toolCalls ?? []).length === 0) {
      await state.commitStep([message]);
      this.emit({ type: 'turn-end', turn });
      return { type: 'stop', reason: 'completed' };
    }
    this.emit({ type: 'turn-end', turn });
    // What a turn at the full cap leaves for history (a recovery attempt was assembled for a smaller cap).
    const budget = outcome.assembled.trace.budget;
    const refused = refuseStep({
      message,
      maxToolCalls: this.options.maxToolCallsPerStep ?? MAX_TOOL_CALLS_PER_STEP,
      inputCapTokens: this.options.inputCapTokens,
      historyBudgetTokens: budget ? budget.historyBudgetTokens + this.options.inputCapTokens - budget.inputCapTokens : undefined,
      estimator: this.options.estimator,
    });
    if (refused) {
      this.diagnose({ code: refused.code, severity: 'error', subject: `turn ${turn}`, message: refused.message });
      return { type: 'stop', reason: 'step-refused', error: refused };
    }
    return { type: 'tools', message };
  }

  /**
   * Assembles the turn and commits its compaction. When another writer
   * changed the session meanwhile, the compaction is made again over the
   * newest version (and the discarded assembly's trace is dropped).
   */
  private async assemble(turn: number, recovery?: TurnRecovery): Promise<AssembledTurn> {
    const { state, assembler, registry, deadline, traceSink } = this.options;
    // Every attempt starts from the state the turn found: a discarded assembly leaves nothing behind.
    const startState = state.contextState;
    for (let attempt = 1; ; attempt += 1) {
      const before = state.history.length;
      const assembled = await assembler.assemble({
        state: startState,
        contextId: state.contextId,
        turn,
        scope: this.options.scope ?? 'main',
        history: state.history,
        // Read at every call: tools promoted by search_tools or refreshed by an MCP server appear from the next call.
        tools: registry.visibleTools(),
        signal: deadline.signal,
        recovery,
        activePlanCallId: this.options.lanes.entries('plan')[0]?.toolCallId,
      });
      const reason = assembled.trace.compaction.reason ?? 'compaction';
      state.adoptContextState(assembled.state);
      const conflict = assembled.historyChanged ? await state.commitCompaction(assembled.history, reason) : undefined;
      if (conflict) {
        // Another writer changed the session: the compaction was recorded over its version; assemble again so the model sees its messages.
        traceSink?.discard();
        state.adoptContextState(startState);
        this.diagnose({ code: 'AGENT_SESSION_CONFLICT', severity: 'info', subject: `turn ${turn}`, message: `another writer changed the session while turn ${turn} compacted it; the context is assembled again over version ${state.version}` });
        if (attempt >= SESSION_WRITE_ATTEMPTS) throw conflict;
        continue;
      }
      this.emit({ type: 'context-assembled', turn, trace: assembled.trace });
      if (assembled.historyChanged) this.emit({ type: 'history-compacted', turn, reason, messagesBefore: before, messagesAfter: assembled.history.length });
      return assembled;
    }
  }

  private async toolStep(message: AssistantMessage): Promise<NextStep> {
    const { state, registry, outputStore, deadline, lanes } = this.options;
    const calls = message.toolCalls ?? [];
    for (const call of calls) this.emit({ type: 'tool-call-start', call });
    let refusals = 0;
    const outcome = await dispatchToolCalls({
      registry,
      store: outputStore,
      contextId: state.contextId,
      calls,
      signal: deadline.signal,
      vault: this.options.vault,
      onResult: (call, result, data) => {
        deadline.progress();
        if (toolErrorCodeOf({ content: result.content, isError: result.isError, data: data as never }) === 'TOOL_CALL_REPEATED') refusals += 1;
        this.noteNeutralised(call.id, data);
        this.emit({ type: 'tool-call-end', call, result });
      },
      onDiagnostic: (diagnostic) => this.diagnose(diagnostic),
    });
    // Lanes change at the tool-result boundary, in the order the model declared the calls, however they finished.
    calls.forEach((call, index) => {
      const updates = lanes.apply(call, outcome.results[index]!);
      if (updates.length > 0) this.emit({ type: 'lane-update', call, updates });
    });
    // The step is stored whole: the message with every result (interrupted ones when the run was stopped).
    await state.commitStep([message, ...outcome.results]);
    if (outcome.aborted) return this.stopOnAbort(deadline.signal.reason);
    this.repeatedCallRefusals += refusals;
    if (refusals > 0 && repeatedCallsStop(this.repeatedCallRefusals, this.options.maxRepeatedCallRefusals)) {
      this.diagnose({ code: 'AGENT_LOOP_GUARD', severity: 'error', subject: `turn ${state.turn}`, message: `the model repeated identical tool calls ${this.repeatedCallRefusals} times after the loop guard refused them; the run stops` });
      return { type: 'stop', reason: 'loop-guard' };
    }
    return this.options.stopAtTurnEnd ? { type: 'stop', reason: 'turn-end' } : { type: 'model' };
  }

  /**
   * Usage feedback: the provider's count of the input against ours. The
   * calibrated context state is stored with the turn's step, so the next
   * turn, in this process or any other, is assembled for it.
   */
  private calibrate(turn: number, assembled: AssembledTurn, reportedTokens: number | undefined): void {
    const countedTokens = assembled.trace.budget?.totalTokens;
    if (countedTokens === undefined) return;
    const calibrated = calibrateContextState(this.options.state.contextState ?? INITIAL_CONTEXT_STATE, { countedTokens, reportedTokens, turn });
    this.options.state.adoptContextState(calibrated.state);
    for (const diagnostic of calibrated.diagnostics) this.diagnose(diagnostic);
  }

  /** Remote output that imitated our control markers was cleaned before it was stored: say what. */
  private noteNeutralised(callId: string, data: unknown): void {
    const neutralised = (data as { controlMarkersNeutralised?: unknown } | undefined)?.controlMarkersNeutralised;
    if (!Array.isArray(neutralised) || neutralised.length === 0) return;
    this.diagnose({ code: 'AGENT_REMOTE_OUTPUT_NEUTRALISED', severity: 'warning', subject: callId, message: `the output of call ${callId} imitated control markers; neutralised before it was stored: ${neutralised.join(', ')}` });
  }

  /** Writes the attempt's held trace with what the model made of its input: output, the provider's usage, latencies. */
  private async traceAttempt({ outcome, assemblyMs, modelMs }: ModelAttempt): Promise<void> {
    const traceSink = this.options.traceSink;
    if (!traceSink) return;
    const usage = outcome.type === 'finish' ? outcome.usage : undefined;
    const modelCall: ModelCallTrace = {
      outcome: outcome.type,
      output: outcome.type === 'finish' ? outcome.message : null,
      error: outcome.type === 'error' ? { name: outcome.error.name, message: redactCredentials(outcome.error.message).text } : null,
      usage: usage
        ? { inputTokens: usage.inputTokens ?? null, outputTokens: usage.outputTokens ?? null, cachedInputTokens: usage.cachedInputTokens ?? null, cacheWriteInputTokens: usage.cacheWriteInputTokens ?? null }
        : null,
      latencyMs: { assembly: assemblyMs, model: modelMs },
    };
    for (const failure of await traceSink.flush(modelCall)) this.diagnose(failure);
  }

  /** Why an aborted run stops: its deadline (`timeout`, `idle-timeout`), the model call's own timeout, else `cancelled` (the caller's signal, Ctrl-C, a service cancel). */
  private stopOnAbort(reason: unknown, timedOut = false): NextStep {
    if (RunDeadline.isTimeout(reason)) return { type: 'stop', reason: reason.which === 'idle' ? 'idle-timeout' : 'timeout', error: reason };
    return { type: 'stop', reason: timedOut ? 'timeout' : 'cancelled', ...(reason === undefined ? {} : { error: reason }) };
  }

  private diagnose(diagnostic: ContextDiagnostic): void {
    this.diagnostics.push(diagnostic);
    this.emit({ type: 'diagnostic', diagnostic });
  }

  private emit(event: AgentEvent): void {
    this.options.onEvent?.(event);
  }
}

/** Errors of the assembly pipeline (budget, input, validation) carry a `Context…` name. */
/** The assembler could not build a valid input: classified by the errors' markers. */
function isContextError(error: unknown): boolean {
  return ContextInputError.isInstance(error) || ContextBudgetError.isInstance(error) || ContextValidationError.isInstance(error);
}

function errorReason(error: ModelCallError): AgentStopReason {
  return ContextOverflowError.isInstance(error) ? 'context-overflow' : 'model-error';
}

/** A provider's error text may echo a key or a header: its message is redacted before the run reports it. */
function redactError(error: ModelCallError): ModelCallError {
  const redacted = redactCredentials(error.message);
  if (redacted.redactions.length > 0) error.message = redacted.text;
  return error;
}
