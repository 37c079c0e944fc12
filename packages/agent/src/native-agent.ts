import { StrataError, type AssistantMessage, type ContextAssembler, type ContextScope, type ToolCall, type ToolOutputStore } from '@strata/context';
import { ContextOverflowError, type ModelCallError, type ModelClient } from '@strata/model';
import type { ToolRegistry } from '@strata/tools';
import type { AgentEvent, AgentStopReason } from './agent-events.js';
import type { AgentRunState } from './agent-run-state.js';
import { runModelTurn } from './model-turn.js';
import { RunDeadline } from './run-deadline.js';
import { dispatchToolCalls } from './tool-dispatch.js';

/** What the loop does next. */
type NextStep =
  | { readonly type: 'model' }
  | { readonly type: 'tools'; readonly calls: readonly ToolCall[] }
  | { readonly type: 'stop'; readonly reason: AgentStopReason; readonly error?: unknown };

export interface NativeAgentOptions {
  readonly state: AgentRunState;
  readonly assembler: ContextAssembler;
  readonly client: ModelClient;
  readonly registry: ToolRegistry;
  readonly outputStore: ToolOutputStore;
  readonly deadline: RunDeadline;
  readonly scope?: ContextScope;
  /** Default 50 model turns. */
  readonly maxTurns?: number;
  readonly onEvent?: (event: AgentEvent) => void;
}

export interface AgentRunResult {
  readonly stopReason: AgentStopReason;
  /** The canonical history as the run left it (compacted where compaction ran). */
  readonly finalMessages: AgentRunState['history'];
  /** The last assistant text, when the run completed. */
  readonly text: string;
  readonly turns: number;
  readonly usage: AgentRunState['usage'];
  readonly error?: unknown;
}

/**
 * The native agent loop: assemble context, stream a model turn, run its tool
 * calls, repeat until the model stops calling tools, a limit is hit, or the
 * run is cancelled. Provider failures end the run with a stop reason.
 */
export class NativeAgent {
  private readonly options: NativeAgentOptions;

  constructor(options: NativeAgentOptions) {
    this.options = options;
  }

  async execute(): Promise<AgentRunResult> {
    let step: NextStep = { type: 'model' };
    try {
      while (step.type !== 'stop') {
        if (this.options.deadline.signal.aborted) step = this.interrupted(this.options.deadline.signal.reason);
        else if (step.type === 'model') step = await this.modelStep();
        else step = await this.toolStep(step.calls);
      }
    } catch (error) {
      // Errors that are not a provider's (a budget the must-keep history exceeds, a store failure) end the run with a reason too.
      step = this.options.deadline.signal.aborted ? this.interrupted(this.options.deadline.signal.reason) : { type: 'stop', reason: isContextError(error) ? 'context-error' : 'runtime-error', error };
    } finally {
      this.options.deadline.dispose();
    }
    const stop = step as Extract<NextStep, { type: 'stop' }>;
    this.emit({ type: 'run-end', stopReason: stop.reason });
    const { state } = this.options;
    const last = state.history.findLast((message): message is AssistantMessage => message.role === 'assistant');
    return {
      stopReason: stop.reason,
      finalMessages: state.history,
      text: stop.reason === 'completed' ? last?.content ?? '' : '',
      turns: state.turn,
      usage: state.usage,
      ...(stop.error === undefined ? {} : { error: stop.error }),
    };
  }

  private async modelStep(): Promise<NextStep> {
    const { state, assembler, client, registry, deadline } = this.options;
    if (state.turn >= (this.options.maxTurns ?? 50)) return { type: 'stop', reason: 'max-turns' };
    const turn = state.nextTurn();
    this.emit({ type: 'turn-start', turn });
    const outcome = await runModelTurn({
      assembler,
      client,
      request: { contextId: state.contextId, turn, scope: this.options.scope ?? 'main', history: state.history, tools: registry.visibleTools(), signal: deadline.signal },
      onEvent: (event) => {
        deadline.progress();
        if (event.type === 'text-delta' || event.type === 'reasoning-delta') this.emit(event);
      },
      onAssembled: async (assembled) => {
        this.emit({ type: 'context-assembled', turn, trace: assembled.trace });
        if (assembled.historyChanged) {
          const before = state.history.length;
          await state.replace(assembled.history, assembled.trace.compaction.reason ?? 'compaction');
          this.emit({ type: 'history-compacted', turn, reason: assembled.trace.compaction.reason ?? 'compaction', messagesBefore: before, messagesAfter: assembled.history.length });
        }
      },
      onRecovery: (attempt) => this.emit({ type: 'overflow-recovery', turn, attempt }),
    });
    if (outcome.type === 'aborted') return this.interrupted(outcome.reason, outcome.timedOut);
    if (outcome.type === 'error') return { type: 'stop', reason: errorReason(outcome.error), error: outcome.error };
    state.addUsage(outcome.usage);
    this.emit({ type: 'usage', usage: outcome.usage });
    await state.append([outcome.message]);
    this.emit({ type: 'turn-end', turn });
    const calls = outcome.message.toolCalls ?? [];
    return calls.length > 0 ? { type: 'tools', calls } : { type: 'stop', reason: 'completed' };
  }

  private async toolStep(calls: readonly ToolCall[]): Promise<NextStep> {
    const { state, registry, outputStore, deadline } = this.options;
    for (const call of calls) this.emit({ type: 'tool-call-start', call });
    const results = await dispatchToolCalls({
      registry,
      store: outputStore,
      contextId: state.contextId,
      calls,
      signal: deadline.signal,
      onResult: (call, result, data) => {
        deadline.progress();
        const reference = (data as { skillReference?: { name: string; revision: string } } | undefined)?.skillReference;
        if (reference && result.isError !== true) state.addSkillReference({ name: reference.name, revision: reference.revision, toolCallId: call.id });
        this.emit({ type: 'tool-call-end', call, result });
      },
    });
    // Results are stored before the history changes, so an abort here leaves no half-answered step.
    await state.append(results);
    return { type: 'model' };
  }

  private interrupted(reason: unknown, timedOut = false): NextStep {
    if (RunDeadline.isTimeout(reason)) return { type: 'stop', reason: reason.which === 'idle' ? 'idle-timeout' : 'timeout', error: reason };
    return { type: 'stop', reason: timedOut ? 'timeout' : 'interrupted', ...(reason === undefined ? {} : { error: reason }) };
  }

  private emit(event: AgentEvent): void {
    this.options.onEvent?.(event);
  }
}

/** Errors of the assembly pipeline (budget, input, validation) carry a `Context…` name. */
function isContextError(error: unknown): boolean {
  return StrataError.isInstance(error) && error.name.startsWith('Context');
}

function errorReason(error: ModelCallError): AgentStopReason {
  return ContextOverflowError.isInstance(error) ? 'context-overflow' : 'model-error';
}
