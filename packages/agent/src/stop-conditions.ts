import type { AssistantMessage, TokenEstimator, ToolResultMessage } from '@strata/context';
import { StepRefusedError } from './errors/step-refused-error.js';

// When a run stops, in one place: the turn limit, the repeated-call bound
// and step refusal. The loop (`NativeAgent`) asks; durable execution reads
// the same limits.

/** Default: at most 50 model turns per run. */
export const DEFAULT_MAX_TURNS = 50;

/** Default: the third refusal of a repeated identical call stops the run. */
export const MAX_REPEATED_CALL_REFUSALS = 3;

/** Default: at most 128 tool calls in one assistant message. */
export const MAX_TOOL_CALLS_PER_STEP = 128;

/** Whether a run that has made `turns` model turns may make another (`maxTurns` default `DEFAULT_MAX_TURNS`). */
export function turnsLeft(turns: number, maxTurns: number | undefined): boolean {
  return turns < (maxTurns ?? DEFAULT_MAX_TURNS);
}

/** Whether `refusals` repeated-call refusals so far stop the run (`bound` default `MAX_REPEATED_CALL_REFUSALS`). */
export function repeatedCallsStop(refusals: number, bound: number | undefined): boolean {
  return refusals >= (bound ?? MAX_REPEATED_CALL_REFUSALS);
}

export interface StepAdmissionOptions {
  readonly message: AssistantMessage;
  readonly maxToolCalls: number;
  /** Everything sent to the model is charged against this cap. */
  readonly inputCapTokens: number;
  /**
   * What the turn's assembly left of the cap for history, once tools, the
   * system prompt and call-local data were charged (its trace's
   * `budget.historyBudgetTokens`): the step is sent inside it. Default: the cap.
   */
  readonly historyBudgetTokens?: number;
  readonly estimator: TokenEstimator;
}

/**
 * Refuses a step before its tools run when it has too many calls, or when
 * the assistant message and an empty result per call already exceed what
 * the cap leaves for history (the results, however small, could never be
 * sent). Cheap: one count per call. Returns undefined when the step may run.
 */
export function refuseStep(options: StepAdmissionOptions): StepRefusedError | undefined {
  const calls = options.message.toolCalls ?? [];
  if (calls.length > options.maxToolCalls) {
    return new StepRefusedError({
      code: 'AGENT_STEP_TOO_MANY_CALLS',
      calls: calls.length,
      message: `the model asked for ${calls.length} tool calls in one step; at most ${options.maxToolCalls} are run, so the step was refused before any tool ran`,
    });
  }
  let tokens = options.estimator.countMessage(options.message);
  for (const call of calls) {
    const empty: ToolResultMessage = { role: 'tool', toolCallId: call.id, toolName: call.name, content: '' };
    tokens += options.estimator.countMessage(empty);
  }
  const room = Math.min(options.inputCapTokens, options.historyBudgetTokens ?? options.inputCapTokens);
  if (tokens <= room) return undefined;
  return new StepRefusedError({
    code: 'AGENT_STEP_CANNOT_FIT',
    calls: calls.length,
    message: `the step's ${calls.length} tool calls need at least ${tokens} tokens with empty results, over the ${room} the input cap of ${options.inputCapTokens} leaves for history; the step was refused before any tool ran`,
  });
}
