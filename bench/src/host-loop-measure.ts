// What the adapter benchmarks measure of each model request, the same way for Strata and for each
// SDK's own policies: exact tokens against the budget, the task on every step, prefix reuse between
// consecutive steps, and the independent provider-rules oracle for OpenAI and Anthropic.
import { CACHE_PRICING, exactTokenEstimatorFor, type CanonicalMessage, type ToolSchema } from '@strata/context';
import { loadAllSharedConversations, type ProviderRules } from '@strata/testing';

export const LOOP_STEPS = 30;
export const LOOP_BUDGET_TOKENS = 24_000;
export const LOOP_TASK = 'Go through each tool output in turn and list every error, failing test or changed file it mentions.';
export const LOOP_SYSTEM = 'You are a careful engineer. Read every tool output before you answer.';

/** Real tool outputs of 2-9 KB from ../shared/data, in their order there; one per tool step. */
export function loopToolOutputs(): string[] | undefined {
  const conversations = loadAllSharedConversations();
  if (!conversations) return undefined;
  const outputs = conversations
    .flatMap((conversation) => conversation.messages)
    .flatMap((message) => (message.role === 'tool' ? [message.content] : []))
    .filter((content) => Buffer.byteLength(content) >= 2_000 && Buffer.byteLength(content) <= 9_000);
  return Array.from({ length: LOOP_STEPS - 1 }, (_, step) => outputs[step % outputs.length]!);
}

/** One model request as the benchmark sees it. */
export interface MeasuredRequest {
  /** The request as canonical messages, system prompt first: what is counted and compared. */
  readonly canonical: readonly CanonicalMessage[];
  /** The request in OpenAI chat shape, mapped field by field from the SDK's own values: what the oracle reads. */
  readonly chat: unknown[];
  readonly tools: readonly ToolSchema[];
}

export interface LoopRow {
  readonly sdk: string;
  readonly policy: string;
  readonly steps: number;
  readonly overBudget: number;
  readonly maxTokens: number;
  readonly taskKept: string;
  /** Mean share of the previous request reused as the next one's prefix. */
  readonly reuse: string;
  /** Mean share of each request that is a reused prefix. */
  readonly cachedShare: string;
  /** Input cost of the whole loop in input-token units: each request's reused prefix at 0.1, the rest at 1 (as OpenAI bills cached input). */
  readonly cost: number;
  readonly openaiViolations: number;
  readonly anthropicViolations: number;
  /** The oracle's rules broken, for either provider. */
  readonly rulesBroken: string;
}

const exact = exactTokenEstimatorFor('o200k_base');

function messageTokens(messages: readonly CanonicalMessage[]): number[] {
  return messages.map((message) => exact.countMessage(message));
}

/** True when the request still holds the task: a user message whose text contains it. */
function hasTask(messages: readonly CanonicalMessage[]): boolean {
  return messages.some((message) => message.role === 'user' && message.content.includes(LOOP_TASK));
}

/**
 * Prefix reuse between consecutive requests, messages compared whole, as two means over steps 2..n:
 * `ofPrevious`, the share of the previous request's tokens that the next one sends again as its
 * prefix (what a provider's prompt cache holds and gets to reuse); `ofCurrent`, the share of each
 * request's tokens that is such a prefix (the cached share of the bill, which a growing history of
 * 2-9 KB outputs keeps below 1 for any policy).
 */
function meanReuse(requests: readonly MeasuredRequest[]): { ofPrevious: number; ofCurrent: number; cost: number } {
  const ofPrevious: number[] = [];
  const ofCurrent: number[] = [];
  let cost = requests.length > 0 ? sum(messageTokens(requests[0]!.canonical)) : 0;
  for (let index = 1; index < requests.length; index += 1) {
    const previous = requests[index - 1]!.canonical;
    const current = requests[index]!.canonical;
    const previousTokens = messageTokens(previous);
    const currentTokens = messageTokens(current);
    let prefix = 0;
    let shared = 0;
    while (prefix < current.length && prefix < previous.length && JSON.stringify(current[prefix]) === JSON.stringify(previous[prefix])) shared += currentTokens[prefix++]!;
    ofPrevious.push(shared / Math.max(1, sum(previousTokens)));
    ofCurrent.push(shared / Math.max(1, sum(currentTokens)));
    cost += shared * CACHE_PRICING.cachedToken + (sum(currentTokens) - shared) * CACHE_PRICING.newToken;
  }
  const mean = (values: number[]) => (values.length === 0 ? 1 : sum(values) / values.length);
  return { ofPrevious: mean(ofPrevious), ofCurrent: mean(ofCurrent), cost: Math.round(cost) };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

export function measureLoop(options: { sdk: string; policy: string; requests: readonly MeasuredRequest[]; rules: ProviderRules | undefined }): LoopRow {
  const { requests, rules } = options;
  const totals = requests.map((request) => messageTokens(request.canonical).reduce((sum, count) => sum + count, 0) + request.tools.reduce((sum, tool) => sum + exact.countTool(tool), 0));
  const reuse = meanReuse(requests);
  const violations = (provider: 'openai' | 'anthropic') => requests.filter((request) => (rules ? rules.violations(request.chat, provider).length > 0 : false)).length;
  return {
    sdk: options.sdk,
    policy: options.policy,
    steps: requests.length,
    overBudget: totals.filter((total) => total > LOOP_BUDGET_TOKENS).length,
    maxTokens: Math.max(...totals),
    taskKept: `${requests.filter((request) => hasTask(request.canonical)).length}/${requests.length}`,
    reuse: reuse.ofPrevious.toFixed(2),
    cachedShare: reuse.ofCurrent.toFixed(2),
    cost: reuse.cost,
    openaiViolations: violations('openai'),
    anthropicViolations: violations('anthropic'),
    rulesBroken: [...new Set(requests.flatMap((request) => (rules ? [...rules.violations(request.chat, 'openai'), ...rules.violations(request.chat, 'anthropic')].map((violation) => violation.rule) : [])))].sort().join(' ') || '-',
  };
}
