import { applyContextBudget, type AdmittedContext } from './budget.js';
import type { ContextDiagnostic } from './contributor.js';
import type { CollectionResult } from './contributor-registry.js';
import type { ResolvedContextBudget } from './context-configuration.js';
import { ContextBudgetError } from './errors/context-budget-error.js';
import type { HistoryWindow, HistoryWindowPolicy } from './history-window.js';
import type { ComposedMessages, ContextMessageComposer } from './message-composer.js';
import type { CanonicalHistory, CanonicalMessage } from './messages.js';
import type { ModelInput } from './model-input.js';
import type { RenderedSystemPrompt, SystemPromptRenderer } from './system-prompt-renderer.js';
import type { TokenEstimator, ToolSchema } from './token-estimator.js';

/** Share of the history budget a fresh window cut leaves free, so the next turns keep the same start. */
export const WINDOW_HEADROOM_SHARE = 0.25;

/** Admission, rendering and composition for one estimator: everything but the window. */
export interface PreparedContext {
  readonly admitted: AdmittedContext;
  readonly rendered: RenderedSystemPrompt;
  readonly composed: ComposedMessages;
  readonly system: readonly CanonicalMessage[];
  readonly tools: readonly ToolSchema[];
  readonly estimator: TokenEstimator;
  readonly toolTokens: number;
  readonly systemTokens: number;
  readonly callLocalTokens: number;
  /** The composed history before windowing. */
  readonly historyTokens: number;
}

/** A prepared context with its window chosen: the candidate model input. */
export interface FittedContext {
  readonly admitted: AdmittedContext;
  readonly rendered: RenderedSystemPrompt;
  readonly window: HistoryWindow;
  readonly input: ModelInput;
  readonly composedHistory: ReadonlySet<CanonicalMessage>;
  readonly diagnostics: readonly ContextDiagnostic[];
  readonly toolTokens: number;
  readonly systemTokens: number;
  readonly callLocalTokens: number;
  readonly historyBudgetTokens: number;
  readonly totalTokens: number;
  readonly estimator: TokenEstimator;
}

interface Stages {
  readonly renderer: SystemPromptRenderer;
  readonly composer: ContextMessageComposer;
  readonly windowPolicy: HistoryWindowPolicy;
}

/** Tools in a stable order, so the same tool set gives the same bytes. */
export function sortToolsByName(tools: readonly ToolSchema[]): ToolSchema[] {
  return [...tools].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** Everything the turn would send before the window cuts anything. */
export function unwindowedTokens(prepared: PreparedContext): number {
  return prepared.toolTokens + prepared.systemTokens + prepared.callLocalTokens + prepared.historyTokens;
}

export function prepareContext(options: {
  collected: CollectionResult;
  history: CanonicalHistory;
  tools: readonly ToolSchema[];
  estimator: TokenEstimator;
  stages: Stages;
  budget: ResolvedContextBudget;
}): PreparedContext {
  const { collected, history, tools, estimator, stages, budget } = options;
  const admitted = applyContextBudget({ collection: collected.collection, limits: budget, estimator });
  const rendered = stages.renderer.render(admitted.sections);
  const composed = stages.composer.compose({ history, messages: admitted.messages, attachments: admitted.attachments });
  const system: CanonicalMessage[] = rendered.text === '' ? [] : [{ role: 'system', content: rendered.text }];
  return {
    admitted,
    rendered,
    composed,
    system,
    tools,
    estimator,
    toolTokens: sum(tools.map((tool) => estimator.countTool(tool))),
    systemTokens: sum(system.map((message) => estimator.countMessage(message))),
    callLocalTokens: sum(composed.callLocal.map((message) => estimator.countMessage(message))),
    historyTokens: sum(composed.history.map((message) => estimator.countMessage(message))),
  };
}

/** Charges tools, system prompt and call-local data to the cap, then windows the history into what is left. */
export function fitContext(
  prepared: PreparedContext,
  options: { stages: Stages; budget: ResolvedContextBudget; previousStart: CanonicalMessage | undefined; headroomShare: number },
): FittedContext {
  const { toolTokens, systemTokens, callLocalTokens, composed, estimator } = prepared;
  const historyBudgetTokens = options.budget.inputCapTokens - toolTokens - systemTokens - callLocalTokens;
  if (historyBudgetTokens <= 0) {
    throw new ContextBudgetError({
      code: 'CONTEXT_NO_ROOM_FOR_HISTORY',
      requiredTokens: toolTokens + systemTokens + callLocalTokens,
      availableTokens: options.budget.inputCapTokens,
      message: `tools (${toolTokens}), system prompt (${systemTokens}) and call-local data (${callLocalTokens}) leave no room for history in the input cap of ${options.budget.inputCapTokens} tokens`,
    });
  }
  const window = options.stages.windowPolicy.select({
    messages: composed.history,
    budgetTokens: historyBudgetTokens,
    count: (message) => estimator.countMessage(message),
    headroomTokens: Math.floor(historyBudgetTokens * options.headroomShare),
    ...(options.previousStart ? { previousStart: options.previousStart } : {}),
  });
  const input: ModelInput = { messages: [...prepared.system, ...placeCallLocal(window.messages, composed.callLocal)], tools: prepared.tools };
  return {
    admitted: prepared.admitted,
    rendered: prepared.rendered,
    window,
    input,
    composedHistory: new Set(composed.history),
    diagnostics: [...prepared.admitted.diagnostics, ...composed.diagnostics, ...window.diagnostics],
    toolTokens,
    systemTokens,
    callLocalTokens,
    historyBudgetTokens,
    totalTokens: toolTokens + systemTokens + callLocalTokens + window.stats.usedTokens,
    estimator,
  };
}

/** Call-local messages go after the history, but before a trailing open step whose results are still due. */
function placeCallLocal(history: readonly CanonicalMessage[], callLocal: readonly CanonicalMessage[]): CanonicalMessage[] {
  if (callLocal.length === 0) return [...history];
  let insertAt = history.length;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index]!;
    if (message.role === 'tool') continue;
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
      const answered = new Set(history.slice(index + 1).map((next) => (next.role === 'tool' ? next.toolCallId : '')));
      if (message.toolCalls!.some((call) => !answered.has(call.id))) insertAt = index;
    }
    break;
  }
  return [...history.slice(0, insertAt), ...callLocal, ...history.slice(insertAt)];
}
