// Trimming a history to a token budget: Strata's atomic history window against
// LangChain.js `trimMessages` and the AI SDK's `pruneMessages` followed by
// dropping the oldest messages, each run as its published package on the same
// real histories. Every output is judged the same way: its tokens (o200k, OpenAI
// chat shape), whether the provider-rules oracle would reject it, and whether
// the task (the first user message) is still there.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from '@langchain/core/messages';
import { pruneMessages, type ModelMessage } from 'ai';
import { AtomicHistoryWindowPolicy, ConservativeTokenEstimator, ExactTokenEstimator, fromAiSdkMessages, messageText, toAiSdkMessages, toOpenAIChat, trimHistory, type CanonicalMessage } from '@strata/context';
import { langChainAsOpenAIChat, loadProviderRules, loadSweAgentConversations, loadTauBenchConversations, type ProviderRules, type SharedConversation } from '@strata/testing';
import { skippedResult, type BenchOptions, type BenchResult, type BenchTarget } from './bench-result.js';
import { fixed, percent } from './measure.js';

const TITLE = 'Trimming a history to a budget: Strata against trimMessages and pruneMessages with drop-oldest';
const exact = new ExactTokenEstimator({ family: 'o200k' });

type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown };

/**
 * The judge: o200k tokens of chat messages as a model reads them: 4 per
 * message, its text, and per tool call its name and its arguments (the
 * call id and the wire's `type`/`function` wrapper are API framing, not
 * model input).
 */
function chatTokens(messages: readonly unknown[]): number {
  let total = 0;
  for (const message of messages) {
    if (message === null || typeof message !== 'object') continue;
    const chat = message as ChatMessage;
    // No content (an assistant message that only calls tools) is no text, not the two characters `""`.
    total += 4 + (chat.content === null || chat.content === undefined ? 0 : exact.countText(typeof chat.content === 'string' ? chat.content : JSON.stringify(chat.content)));
    for (const call of Array.isArray(chat.tool_calls) ? (chat.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) : []) {
      total += exact.countText(`${String(call.function?.name ?? '')} ${typeof call.function?.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function?.arguments ?? '')}`);
    }
  }
  return total;
}

function toLangChain(history: readonly CanonicalMessage[]): BaseMessage[] {
  return history.map((message) => {
    switch (message.role) {
      case 'system':
        return new SystemMessage(message.content);
      case 'user':
        return new HumanMessage(messageText(message));
      case 'assistant':
        return new AIMessage({ content: message.content ?? '', tool_calls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: (typeof call.input === "object" && call.input !== null ? call.input : { input: call.input }) as Record<string, unknown>, type: 'tool_call' as const })) });
      case 'tool':
        return new ToolMessage({ content: messageText(message), tool_call_id: message.toolCallId });
    }
  });
}


interface Outcome {
  /** In OpenAI chat shape, as the provider would receive it; undefined when the policy refused (a typed error before any call). */
  readonly chat: unknown[] | undefined;
  readonly milliseconds: number;
}

interface Policy {
  readonly name: string;
  trim(history: readonly CanonicalMessage[], budget: number): Promise<Outcome>;
}

async function timed(work: () => Promise<unknown[] | undefined> | unknown[] | undefined): Promise<Outcome> {
  const started = performance.now();
  let chat: unknown[] | undefined;
  try {
    chat = await work();
  } catch {
    chat = undefined;
  }
  return { chat, milliseconds: performance.now() - started };
}

function strataPolicy(name: string, count: (message: CanonicalMessage) => number): Policy {
  const window = new AtomicHistoryWindowPolicy();
  return { name, trim: (history, budget) => timed(() => toOpenAIChat(window.select({ messages: history, budgetTokens: budget, count }).messages)) };
}

const langChainCounter = (messages: BaseMessage[]) => chatTokens(langChainAsOpenAIChat(messages));

const POLICIES: readonly Policy[] = [
  // What a user gets by default: trimHistory told the model (its exact tokenizer decides near the budget).
  { name: 'Strata trimHistory (defaults, model gpt-4o)', trim: (history, budget) => timed(() => toOpenAIChat(trimHistory(history, { maxTokens: budget, model: 'gpt-4o' }))) },
  strataPolicy('Strata window, conservative estimate only (model unknown)', (message) => defaultEstimator.countMessage(message)),
  // The judge itself, per message, as the peers are given it.
  strataPolicy('Strata window, counting with the judge (exact o200k, chat shape)', (message) => chatTokens(toOpenAIChat([message]))),
  {
    name: 'LangChain trimMessages (defaults: last, no partial)',
    trim: (history, budget) => timed(async () => langChainAsOpenAIChat(await trimMessages(toLangChain(history), { maxTokens: budget, tokenCounter: langChainCounter }))),
  },
  {
    name: 'LangChain trimMessages (documented chat settings: last, startOn human, includeSystem)',
    trim: (history, budget) =>
      timed(async () => langChainAsOpenAIChat(await trimMessages(toLangChain(history), { maxTokens: budget, tokenCounter: langChainCounter, strategy: 'last', startOn: 'human', includeSystem: true }))),
  },
  {
    name: 'AI SDK pruneMessages (tool calls before the last 2 messages) + drop oldest',
    trim: (history, budget) =>
      timed(() => {
        let messages: ModelMessage[] = pruneMessages({ messages: toAiSdkMessages(history) as ModelMessage[], reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' });
        const system = messages.filter((message) => message.role === 'system');
        let rest = messages.filter((message) => message.role !== 'system');
        const chatOf = (list: ModelMessage[]) => toOpenAIChat(fromAiSdkMessages(list));
        while (rest.length > 0 && chatTokens(chatOf([...system, ...rest])) > budget) rest = rest.slice(1);
        messages = [...system, ...rest];
        return chatOf(messages);
      }),
  },
];

const defaultEstimator = new ConservativeTokenEstimator();

interface Tally {
  runs: number;
  refused: number;
  rejectable: number;
  overBudget: number;
  /** The most tokens any output went over the budget (0: none did). */
  maxOver: number;
  anchorKept: number;
  used: number;
  milliseconds: number;
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const tau = loadTauBenchConversations();
  const swe = loadSweAgentConversations();
  const rules: ProviderRules | undefined = await loadProviderRules();
  if (!tau || !swe || !rules) return skippedResult(TITLE, '../shared is absent (set STRATA_SHARED_DIR)');
  const smoke = options.size === 'smoke';
  const conversations: SharedConversation[] = smoke ? tau.slice(0, 3) : [...tau, ...swe];
  const budgets = smoke ? [2_048] : [2_048, 8_192];
  const rows = [];
  const tallies = new Map<string, Tally>();
  // Warm-up, untimed: the first exact count loads the tokenizer's ranks, whichever policy comes first.
  for (const policy of POLICIES) await policy.trim(conversations[0]!.messages, budgets[0]!);
  for (const budget of budgets) {
    for (const policy of POLICIES) {
      const tally: Tally = { runs: 0, refused: 0, rejectable: 0, overBudget: 0, maxOver: 0, anchorKept: 0, used: 0, milliseconds: 0 };
      for (const conversation of conversations) {
        const history = conversation.messages;
        const task = history.find((message) => message.role === 'user');
        const outcome = await policy.trim(history, budget);
        tally.runs += 1;
        tally.milliseconds += outcome.milliseconds;
        if (outcome.chat === undefined) {
          tally.refused += 1;
          continue;
        }
        const tokens = chatTokens(outcome.chat);
        tally.used += Math.min(1, tokens / budget);
        if (tokens > budget) tally.overBudget += 1;
        tally.maxOver = Math.max(tally.maxOver, tokens - budget);
        if (rules.violations(outcome.chat, 'openai').length > 0 || rules.violations(outcome.chat, 'anthropic').length > 0) tally.rejectable += 1;
        if (task && outcome.chat.some((message) => (message as ChatMessage | undefined)?.role === 'user' && (message as ChatMessage).content === messageText(task))) tally.anchorKept += 1;
      }
      tallies.set(`${budget}:${policy.name}`, tally);
      const answered = tally.runs - tally.refused;
      rows.push({
        budget,
        policy: policy.name,
        runs: tally.runs,
        'total time (ms)': fixed(tally.milliseconds, 1),
        'mean window use': answered === 0 ? '' : percent(tally.used / answered),
        'over budget (most tokens over)': `${tally.overBudget} (${tally.maxOver})`,
        'rejectable (OpenAI or Anthropic)': tally.rejectable,
        'first user message kept': `${tally.anchorKept}/${answered}`,
        'refused (typed error)': tally.refused,
      });
    }
  }
  const targets: BenchTarget[] = [];
  for (const budget of budgets) {
    const ours = tallies.get(`${budget}:${POLICIES[0]!.name}`)!;
    const oursEstimated = tallies.get(`${budget}:${POLICIES[1]!.name}`)!;
    const oursExact = tallies.get(`${budget}:${POLICIES[2]!.name}`)!;
    const peers = POLICIES.slice(3).map((policy) => tallies.get(`${budget}:${policy.name}`)!);
    const use = (tally: Tally) => tally.used / Math.max(1, tally.runs - tally.refused);
    const bestPeer = Math.max(...peers.map(use));
    const trim = tallies.get(`${budget}:${POLICIES[3]!.name}`)!;
    const rejectable = ours.rejectable + oursEstimated.rejectable + oursExact.rejectable;
    targets.push(
      { name: `${budget} tokens: 0 rejectable Strata outputs`, measured: `${rejectable}`, met: rejectable === 0 },
      { name: `${budget} tokens: 0 Strata outputs over the budget (by the judge)`, measured: `${ours.overBudget + oursExact.overBudget}, at most ${Math.max(ours.maxOver, oursExact.maxOver)} tokens over`, met: ours.overBudget + oursExact.overBudget === 0 },
      {
        name: `${budget} tokens: window use at least the best peer's (default settings)`,
        measured: `${percent(use(ours))} (estimate only ${percent(use(oursEstimated))}, counting with the judge ${percent(use(oursExact))}) against ${percent(bestPeer)}`,
        met: use(ours) >= bestPeer,
      },
      { name: `${budget} tokens: faster than trimMessages`, measured: `${fixed(ours.milliseconds, 1)} ms against ${fixed(trim.milliseconds, 1)} ms`, met: ours.milliseconds < trim.milliseconds },
    );
  }
  return {
    title: TITLE,
    method:
      `${conversations.length} real histories (${smoke ? 'the first 3 tau-bench runs' : '200 tau-bench airline runs and 3 SWE-agent runs'}), each trimmed once per policy and budget. ` +
      'The LangChain and AI SDK peers count with the judge itself (o200k over the OpenAI chat shape); Strata by default (trimHistory told the model: the conservative estimate, exact o200k counts once the estimate reaches the budget), with the estimate only (a model whose tokenizer is unknown), and with the judge. The first user message is the task as the data records it; Strata pins the latest real user request instead. Window use: tokens out over the budget, capped at 100%. Rejectable: the oracle ../shared/tools/provider-rules.mjs finds a violation for OpenAI or Anthropic. Refused: the policy threw before any call (the pinned messages alone do not fit).',
    tables: [{ title: 'trimming by policy and budget', rows }],
    targets: smoke ? [] : targets,
    notes: [],
  };
}
