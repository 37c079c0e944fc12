import type { JSONObject, SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { ProviderOptions, ReasoningControl, ReasoningEffort } from './model-client.js';

/** Anthropic thinking budget per effort, in tokens (Anthropic's minimum is 1,024). */
const THINKING_BUDGET_TOKENS: Readonly<Record<ReasoningEffort, number>> = Object.freeze({
  minimal: 1_024,
  low: 4_096,
  medium: 16_384,
  high: 32_768,
});

/**
 * The provider options that express `control` for the model whose provider
 * id is `provider` (`openai.chat`, `anthropic.messages`, `<name>.chat`):
 * OpenAI and OpenAI-compatible servers get `reasoningEffort` (derived from a
 * budget when only a budget is given); Anthropic gets `thinking` enabled
 * with a budget (derived from the effort when only an effort is given), or
 * `disabled`. Undefined control, or nothing the provider can express: `{}`.
 */
export function reasoningProviderOptions(provider: string, control: ReasoningControl | undefined): SharedV3ProviderOptions {
  if (control === undefined) return {};
  const key = provider.split('.')[0] ?? provider;
  if (key === 'anthropic') {
    if (control.enabled === false) return { anthropic: { thinking: { type: 'disabled' } } };
    const budgetTokens = control.budgetTokens ?? (control.effort === undefined ? undefined : THINKING_BUDGET_TOKENS[control.effort]);
    if (budgetTokens === undefined && control.enabled !== true) return {};
    return { anthropic: { thinking: { type: 'enabled', budgetTokens: budgetTokens ?? THINKING_BUDGET_TOKENS.medium } } };
  }
  if (control.enabled === false) return {};
  const effort = control.effort ?? (control.budgetTokens === undefined ? undefined : effortForBudget(control.budgetTokens));
  return effort === undefined ? {} : { [key]: { reasoningEffort: effort } };
}

function effortForBudget(budgetTokens: number): ReasoningEffort {
  if (budgetTokens <= THINKING_BUDGET_TOKENS.minimal) return 'minimal';
  if (budgetTokens <= THINKING_BUDGET_TOKENS.low) return 'low';
  if (budgetTokens <= THINKING_BUDGET_TOKENS.medium) return 'medium';
  return 'high';
}

/** Merges provider options per provider key; later layers win field by field. */
export function mergeProviderOptions(...layers: ReadonlyArray<ProviderOptions | SharedV3ProviderOptions | undefined>): SharedV3ProviderOptions {
  const merged: Record<string, JSONObject> = {};
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const [provider, values] of Object.entries(layer)) merged[provider] = { ...(merged[provider] ?? {}), ...(values as JSONObject) };
  }
  return merged;
}
