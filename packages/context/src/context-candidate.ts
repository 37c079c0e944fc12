import { sectionTokens, type AdmittedContext } from './budget.js';
import type { ValidatedCollection } from './contributor-registry.js';
import type { ResolvedContextBudget } from './context-configuration.js';
import { ContextBudgetError } from './errors/context-budget-error.js';
import type { ComposedMessages } from './message-composer.js';
import type { CanonicalMessage } from './messages.js';
import type { RenderedSystemPrompt } from './system-prompt-renderer.js';
import type { TokenEstimator, ToolSchema } from './token-estimator.js';

/**
 * Share of the history budget a fresh window cut leaves free, so the next
 * turns keep the same start. A cut breaks the prompt cache from the first
 * dropped message: every kept token after it is written again. Cutting to
 * half makes cuts rare enough to pay for that (the replay's cache-priced
 * cost on tau-bench and SWE-agent fell 2-31% against a quarter).
 */
export const WINDOW_HEADROOM_SHARE = 0.5;

/** What a turn would send before the window: admitted, rendered and composed, counted with one counter. */
export interface ContextCandidate {
  readonly admitted: AdmittedContext;
  readonly rendered: RenderedSystemPrompt;
  readonly composed: ComposedMessages;
  /** The rendered system prompt as messages: none when it is empty. */
  readonly system: readonly CanonicalMessage[];
  readonly tools: readonly ToolSchema[];
  readonly counter: TokenEstimator;
  readonly toolTokens: number;
  readonly systemTokens: number;
  readonly callLocalTokens: number;
  /** The composed history before windowing. */
  readonly historyTokens: number;
}

/** Tools in a stable order, so the same tool set gives the same bytes. */
export function sortToolsByName(tools: readonly ToolSchema[]): ToolSchema[] {
  return [...tools].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** Counts the parts of a candidate with one counter; the composed history's tokens are given (the assembler keeps them per context). */
export function countCandidate(options: {
  admitted: AdmittedContext;
  rendered: RenderedSystemPrompt;
  composed: ComposedMessages;
  tools: readonly ToolSchema[];
  counter: TokenEstimator;
  historyTokens: number;
}): ContextCandidate {
  const { rendered, composed, tools, counter } = options;
  const system: CanonicalMessage[] = rendered.text === '' ? [] : [{ role: 'system', content: rendered.text }];
  return {
    ...options,
    system,
    toolTokens: sum(tools.map((tool) => counter.countTool(tool))),
    systemTokens: sum(system.map((message) => counter.countMessage(message))),
    callLocalTokens: sum(composed.callLocal.map((message) => counter.countMessage(message))),
  };
}

/** Tokens charged before any history: tools, system prompt and call-local data. */
export function fixedTokens(candidate: ContextCandidate): number {
  return candidate.toolTokens + candidate.systemTokens + candidate.callLocalTokens;
}

/** Everything the turn would send before the window cuts anything. */
export function unwindowedTokens(candidate: ContextCandidate): number {
  return fixedTokens(candidate) + candidate.historyTokens;
}

/** What the cap leaves for history once tools, system prompt and call-local data are charged; fails when nothing is left. */
export function historyBudgetTokens(candidate: ContextCandidate, budget: ResolvedContextBudget): number {
  const { toolTokens, systemTokens, callLocalTokens } = candidate;
  const available = budget.inputCapTokens - fixedTokens(candidate);
  if (available <= 0) {
    throw new ContextBudgetError({
      code: 'CONTEXT_NO_ROOM_FOR_HISTORY',
      requiredTokens: fixedTokens(candidate),
      availableTokens: budget.inputCapTokens,
      message: `tools (${toolTokens}), system prompt (${systemTokens}) and call-local data (${callLocalTokens}) leave no room for history in the input cap of ${budget.inputCapTokens} tokens`,
    });
  }
  return available;
}


/**
 * Tokens each contributor's admitted content costs this turn: its system
 * sections (as admitted, truncations included) and its call-local messages
 * and attachments (as wrapped for the model), counted with the candidate's counter.
 */
export function tokensByContributor(candidate: ContextCandidate, collection: ValidatedCollection): { [contributorId: string]: number } {
  const owner = new Map<string, string>();
  for (const { contributorId, contribution } of collection.contributions) {
    for (const item of [...(contribution.sections ?? []), ...(contribution.attachments ?? []), ...(contribution.messages ?? [])]) owner.set(item.id, contributorId);
  }
  const tokens: { [contributorId: string]: number } = {};
  const charge = (id: string, amount: number) => {
    const contributorId = owner.get(id);
    if (contributorId !== undefined) tokens[contributorId] = (tokens[contributorId] ?? 0) + amount;
  };
  const { admitted, composed, counter } = candidate;
  for (const section of admitted.sections) charge(section.id, sectionTokens(section, counter));
  // Call-local messages are the full copies (masked view), then the attachments, then the contributed messages, in admission order.
  const wrapped = composed.callLocal.slice(composed.callLocal.length - admitted.attachments.length - admitted.messages.length);
  [...admitted.attachments, ...admitted.messages].forEach((item, index) => charge(item.id, counter.countMessage(wrapped[index]!)));
  return Object.fromEntries(Object.entries(tokens).sort(([left], [right]) => (left < right ? -1 : 1)));
}
