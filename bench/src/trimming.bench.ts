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
import { collectGarbage, collectYoungGarbage, cpuTimeAsync, fixed, median, percent } from './measure.js';

const TITLE = 'Trimming a history to a budget: Strata against trimMessages and pruneMessages with drop-oldest';
const exact = new ExactTokenEstimator({ family: 'o200k' });

type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown };

/**
 * The judge: o200k tokens of chat messages as a model reads them: 4 per
 * message, its text, and per tool call its name and its arguments (the
 * call id and the wire's `type`/`function` wrapper are API framing, not
 * model input).
 */
function chatTokens(messages: readonly unknown[], counter: ExactTokenEstimator = exact): number {
  let total = 0;
  for (const message of messages) {
    if (message === null || typeof message !== 'object') continue;
    const chat = message as ChatMessage;
    // No content (an assistant message that only calls tools) is no text, not the two characters `""`.
    total += 4 + (chat.content === null || chat.content === undefined ? 0 : counter.countText(typeof chat.content === 'string' ? chat.content : JSON.stringify(chat.content)));
    for (const call of Array.isArray(chat.tool_calls) ? (chat.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) : []) {
      total += counter.countText(`${String(call.function?.name ?? '')} ${typeof call.function?.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function?.arguments ?? '')}`);
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


/** The first `share` of `messages` (all when undefined), a new array over the same objects, as a caller passes a grown history. */
function grown<Message>(messages: readonly Message[], share: number | undefined): readonly Message[] {
  return share === undefined ? messages : messages.slice(0, Math.max(1, Math.round(messages.length * share)));
}

/**
 * One policy. `prepare` (untimed) gives the history as this policy's user
 * holds it, as fresh objects (no count cached from an earlier call carries
 * over; every policy sees each history for the first time); `trim` on it is
 * what is timed; `chat` (untimed) is its output as the judge reads it.
 */
interface Policy {
  readonly name: string;
  /** `trim(budget, share)` trims the first `share` of the prepared messages (default all): a history as it grew. */
  prepare(history: readonly CanonicalMessage[]): { trim(budget: number, share?: number): unknown; chat(output: unknown): unknown[] };
}

function strataPolicy(name: string, counter: () => (message: CanonicalMessage) => number): Policy {
  const window = new AtomicHistoryWindowPolicy();
  const count = counter();
  return {
    name,
    prepare: (history) => {
      const messages = structuredClone(history) as CanonicalMessage[];
      return { trim: (budget, share) => window.select({ messages: grown(messages, share), budgetTokens: budget, count }).messages, chat: (output) => toOpenAIChat(output as CanonicalMessage[]) };
    },
  };
}

/**
 * A per-message counter with a cache, as a careful user writes one: each
 * message object counted once (by `count`), a list the sum of its messages.
 * `trimMessages` calls its counter on ever shorter lists of the same
 * (copied) messages, so the cache is what keeps it linear.
 */
function memoized<Message extends object>(count: (message: Message) => number): (messages: readonly Message[]) => number {
  const counts = new WeakMap<Message, number>();
  return (messages) => {
    let total = 0;
    for (const message of messages) {
      let tokens = counts.get(message);
      if (tokens === undefined) counts.set(message, (tokens = count(message)));
      total += tokens;
    }
    return total;
  };
}

/**
 * An exact counter of one policy's own, kept for the whole bench as a user
 * keeps one (trimHistory keeps its own the same way): the judge's counter
 * keeps long texts it has counted (its text cache), so a counter shared by
 * the policies would hand each the counts of the policy run before it on the
 * same history. Each policy counts what it sees itself.
 */
function ownJudge(): ExactTokenEstimator {
  return new ExactTokenEstimator({ family: 'o200k' });
}

// The judge, per message, for each peer's own message type: the judge of a list is the sum over its messages.
const langChainCounter = (judge: ExactTokenEstimator) => memoized<BaseMessage>((message) => chatTokens(langChainAsOpenAIChat([message]), judge));
const aiSdkCounter = (judge: ExactTokenEstimator) => memoized<ModelMessage>((message) => chatTokens(toOpenAIChat(fromAiSdkMessages([message])), judge));

function langChainPolicy(name: string, settings: Omit<Parameters<typeof trimMessages>[1], 'maxTokens' | 'tokenCounter'>): Policy {
  const tokenCounter = langChainCounter(ownJudge());
  return {
    name,
    prepare: (history) => {
      const messages = toLangChain(history);
      return { trim: (budget, share) => trimMessages(grown(messages, share) as BaseMessage[], { ...settings, maxTokens: budget, tokenCounter }), chat: (output) => langChainAsOpenAIChat(output as BaseMessage[]) };
    },
  };
}

const aiSdkCount = aiSdkCounter(ownJudge());

const POLICIES: readonly Policy[] = [
  // What a user gets by default: trimHistory told the model (its exact tokenizer decides near the budget).
  {
    name: 'Strata trimHistory (defaults, model gpt-4o)',
    prepare: (history) => {
      const messages = structuredClone(history) as CanonicalMessage[];
      return { trim: (budget, share) => trimHistory(grown(messages, share), { maxTokens: budget, model: 'gpt-4o' }), chat: (output) => toOpenAIChat(output as CanonicalMessage[]) };
    },
  },
  strataPolicy('Strata window, conservative estimate only (model unknown)', () => (message) => defaultEstimator.countMessage(message)),
  // The judge itself, per message, as the peers are given it.
  strataPolicy('Strata window, counting with the judge (exact o200k, chat shape)', () => {
    const judge = ownJudge();
    return (message) => chatTokens(toOpenAIChat([message]), judge);
  }),
  langChainPolicy('LangChain trimMessages (defaults: last, no partial; memoized judge)', {}),
  langChainPolicy('LangChain trimMessages (documented chat settings: last, startOn human, includeSystem; memoized judge)', { strategy: 'last', startOn: 'human', includeSystem: true }),
  {
    // pruneMessages with the settings its documentation shows, then the oldest messages dropped until the judge's count
    // fits. Written as a careful user writes it: the system messages counted, then the newest messages back to the first
    // that does not fit, so a message older than the cut is never counted (the same output as counting everything and
    // dropping from the front, for what only the kept messages and one more cost).
    name: 'AI SDK pruneMessages (documented: reasoning before the last message, tool calls before the last 2 messages) + drop oldest (memoized judge)',
    prepare: (history) => {
      const messages = toAiSdkMessages(structuredClone(history) as CanonicalMessage[]) as ModelMessage[];
      return {
        trim: (budget, share) => {
          const pruned = pruneMessages({ messages: grown(messages, share) as ModelMessage[], reasoning: 'before-last-message', toolCalls: 'before-last-2-messages', emptyMessages: 'remove' });
          const system = pruned.filter((message) => message.role === 'system');
          const rest = pruned.filter((message) => message.role !== 'system');
          let total = aiSdkCount(system);
          let first = rest.length;
          for (; first > 0; first -= 1) {
            const tokens = aiSdkCount([rest[first - 1]!]);
            if (total + tokens > budget) break;
            total += tokens;
          }
          return [...system, ...rest.slice(first)];
        },
        chat: (output) => toOpenAIChat(fromAiSdkMessages(output as ModelMessage[])),
      };
    },
  },
];

const defaultEstimator = new ConservativeTokenEstimator();

/** How many messages a growing history gains between two trims. */
const GROWTH_MESSAGES = 4;

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

/** Judges one output into its policy's tally: refused, tokens over the budget, rejectable, the task kept. */
function judge(tally: Tally, chat: unknown[] | undefined, history: readonly CanonicalMessage[], budget: number, rules: ProviderRules): void {
  tally.runs += 1;
  if (chat === undefined) {
    tally.refused += 1;
    return;
  }
  const task = history.find((message) => message.role === 'user');
  const tokens = chatTokens(chat);
  tally.used += Math.min(1, tokens / budget);
  if (tokens > budget) tally.overBudget += 1;
  tally.maxOver = Math.max(tally.maxOver, tokens - budget);
  if (rules.violations(chat, 'openai').length > 0 || rules.violations(chat, 'anthropic').length > 0) tally.rejectable += 1;
  if (task && chat.some((message) => (message as ChatMessage | undefined)?.role === 'user' && (message as ChatMessage).content === messageText(task))) tally.anchorKept += 1;
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const tau = loadTauBenchConversations();
  const swe = loadSweAgentConversations();
  const rules: ProviderRules | undefined = await loadProviderRules();
  if (!tau || !swe || !rules) return skippedResult(TITLE, '../shared is absent (set STRATA_SHARED_DIR)');
  const smoke = options.size === 'smoke';
  const conversations: SharedConversation[] = smoke ? tau.slice(0, 3) : [...tau, ...swe];
  const budgets = smoke ? [2_048] : [2_048, 8_192];
  const rounds = smoke ? 1 : 3;
  const rows = [];
  const tallies = new Map<string, Tally>();
  // Warm-up, untimed: the first exact count loads the tokenizer's ranks, whichever policy comes first.
  for (const policy of POLICIES) {
    const prepared = policy.prepare(conversations[0]!.messages);
    await prepared.trim(budgets[0]!);
  }
  for (const budget of budgets) {
    const tallyOf = POLICIES.map((): Tally => ({ runs: 0, refused: 0, rejectable: 0, overBudget: 0, maxOver: 0, anchorKept: 0, used: 0, milliseconds: 0 }));
    const roundMs = POLICIES.map((): number[] => []);
    for (let round = 0; round < rounds; round += 1) {
      // Every history as each policy's user holds it, made before the round and its collection, so no policy pays for
      // collecting what preparing (or judging) another left behind.
      const prepared = conversations.map((conversation) => POLICIES.map((policy) => policy.prepare(conversation.messages)));
      const outputs = conversations.map(() => POLICIES.map((): { output: unknown; refused: boolean } => ({ output: undefined, refused: false })));
      collectGarbage();
      const spent = POLICIES.map(() => 0);
      for (const index of conversations.keys()) {
        // Every policy in turn on the same history, starting one later each time, in CPU time.
        for (let turn = 0; turn < POLICIES.length; turn += 1) {
          const which = (index + round + turn) % POLICIES.length;
          const result = outputs[index]![which]!;
          collectYoungGarbage();
          spent[which]! += await cpuTimeAsync(async () => {
            try {
              result.output = await prepared[index]![which]!.trim(budget);
            } catch {
              result.refused = true;
            }
          });
        }
      }
      spent.forEach((milliseconds, which) => roundMs[which]!.push(milliseconds));
      // The outputs do not depend on the round: judged once, after the timed round.
      if (round === 0) {
        for (const [index, conversation] of conversations.entries()) {
          for (const [which, result] of outputs[index]!.entries()) judge(tallyOf[which]!, result.refused ? undefined : prepared[index]![which]!.chat(result.output), conversation.messages, budget, rules);
        }
      }
    }
    for (const [which, policy] of POLICIES.entries()) {
      const tally = { ...tallyOf[which]!, milliseconds: median(roundMs[which]!) };
      tallies.set(`${budget}:${policy.name}`, tally);
      const answered = tally.runs - tally.refused;
      rows.push({
        budget,
        policy: policy.name,
        runs: tally.runs,
        [`CPU time (ms, median of ${rounds} rounds)`]: fixed(tally.milliseconds, 1),
        'mean window use': answered === 0 ? '' : percent(tally.used / answered),
        'over budget (most tokens over)': `${tally.overBudget} (${tally.maxOver})`,
        'rejectable (OpenAI or Anthropic)': tally.rejectable,
        'first user message kept': `${tally.anchorKept}/${answered}`,
        'refused (typed error)': tally.refused,
      });
    }
  }
  // Repeated trims of a growing history, as a caller trims before each model call: each call the history so far
  // (a new array over the same message objects), a few messages longer than the last. The peers as above.
  const GROWING = [0, 3, 4, 5];
  const growingMs = new Map<string, number>();
  const growingRows = [];
  for (const budget of budgets) {
    const roundMs = GROWING.map((): number[] => []);
    for (let round = 0; round < rounds; round += 1) {
      const prepared = conversations.map((conversation) => GROWING.map((policy) => POLICIES[policy]!.prepare(conversation.messages)));
      collectGarbage();
      const spent = GROWING.map(() => 0);
      for (const [index, conversation] of conversations.entries()) {
        const calls = Math.max(1, Math.ceil(conversation.messages.length / GROWTH_MESSAGES));
        for (let turn = 0; turn < GROWING.length; turn += 1) {
          const which = (index + round + turn) % GROWING.length;
          const policy = prepared[index]![which]!;
          collectYoungGarbage();
          for (let call = 1; call <= calls; call += 1) {
            spent[which]! += await cpuTimeAsync(async () => {
              try {
                await policy.trim(budget, call / calls);
              } catch {
                // Refusals are tallied by the fresh trims above.
              }
            });
          }
        }
      }
      spent.forEach((milliseconds, which) => roundMs[which]!.push(milliseconds));
    }
    for (const [which, policy] of GROWING.entries()) {
      const milliseconds = median(roundMs[which]!);
      growingMs.set(`${budget}:${policy}`, milliseconds);
      growingRows.push({ budget, policy: POLICIES[policy]!.name, [`CPU time (ms, median of ${rounds} rounds)`]: fixed(milliseconds, 1) });
    }
  }
  const targets: BenchTarget[] = [];
  for (const budget of budgets) {
    const growingTrim = Math.min(growingMs.get(`${budget}:3`)!, growingMs.get(`${budget}:4`)!);
    const growingOurs = growingMs.get(`${budget}:0`)!;
    const growingPrune = growingMs.get(`${budget}:5`)!;
    targets.push(
      { name: `${budget} tokens, a growing history trimmed before each call: trimHistory faster than trimMessages with a memoized counter (CPU time)`, measured: `${fixed(growingOurs, 1)} ms against ${fixed(growingTrim, 1)} ms (${fixed(growingTrim / growingOurs, 2)}x)`, met: growingOurs < growingTrim },
      { name: `${budget} tokens, a growing history trimmed before each call: trimHistory faster than the AI SDK's prune-and-drop (CPU time)`, measured: `${fixed(growingOurs, 1)} ms against ${fixed(growingPrune, 1)} ms (${fixed(growingPrune / growingOurs, 2)}x)`, met: growingOurs < growingPrune },
    );
    const ours = tallies.get(`${budget}:${POLICIES[0]!.name}`)!;
    const oursEstimated = tallies.get(`${budget}:${POLICIES[1]!.name}`)!;
    const oursExact = tallies.get(`${budget}:${POLICIES[2]!.name}`)!;
    const peers = POLICIES.slice(3).map((policy) => tallies.get(`${budget}:${policy.name}`)!);
    const use = (tally: Tally) => tally.used / Math.max(1, tally.runs - tally.refused);
    const bestPeer = Math.max(...peers.map(use));
    // The peers at their fastest: the quicker of trimMessages' two settings, and prune-and-drop.
    const trim = [tallies.get(`${budget}:${POLICIES[3]!.name}`)!, tallies.get(`${budget}:${POLICIES[4]!.name}`)!].reduce((fastest, tally) => (tally.milliseconds < fastest.milliseconds ? tally : fastest));
    const prune = tallies.get(`${budget}:${POLICIES[5]!.name}`)!;
    const rejectable = ours.rejectable + oursEstimated.rejectable + oursExact.rejectable;
    targets.push(
      { name: `${budget} tokens: 0 rejectable Strata outputs`, measured: `${rejectable}`, met: rejectable === 0 },
      { name: `${budget} tokens: 0 Strata outputs over the budget (by the judge)`, measured: `${ours.overBudget + oursExact.overBudget}, at most ${Math.max(ours.maxOver, oursExact.maxOver)} tokens over`, met: ours.overBudget + oursExact.overBudget === 0 },
      {
        name: `${budget} tokens: window use at least the best peer's (default settings)`,
        measured: `${percent(use(ours))} (estimate only ${percent(use(oursEstimated))}, counting with the judge ${percent(use(oursExact))}) against ${percent(bestPeer)}`,
        met: use(ours) >= bestPeer,
      },
      { name: `${budget} tokens: trimHistory faster than trimMessages with a memoized counter (CPU time)`, measured: `${fixed(ours.milliseconds, 1)} ms against ${fixed(trim.milliseconds, 1)} ms (${fixed(trim.milliseconds / ours.milliseconds, 2)}x)`, met: ours.milliseconds < trim.milliseconds },
      { name: `${budget} tokens: trimHistory faster than the AI SDK's prune-and-drop (CPU time)`, measured: `${fixed(ours.milliseconds, 1)} ms against ${fixed(prune.milliseconds, 1)} ms (${fixed(prune.milliseconds / ours.milliseconds, 2)}x)`, met: ours.milliseconds < prune.milliseconds },
    );
  }
  return {
    title: TITLE,
    method:
      `${conversations.length} real histories (${smoke ? 'the first 3 tau-bench runs' : '200 tau-bench airline runs and 3 SWE-agent runs'}), each trimmed once per policy and budget. ` +
      'The LangChain and AI SDK peers count with the judge itself (o200k over the OpenAI chat shape), per message with a cache as a careful user writes it (trimMessages calls its counter on ever shorter lists); pruneMessages runs with the settings its documentation shows. Time: CPU time of the trim alone (converting the history into each policy\'s own messages and its output to chat is not timed), the median of ' + rounds + ' rounds, every policy in turn on each history, each on fresh message objects, each policy with its own counter for the whole run (no policy is handed the counts, or the cached texts of its counter, from the one before it); every history prepared for every policy before the round and garbage collected then, the outputs judged after it, and the young generation collected (untimed) before each policy\'s turn on a history (no policy pays for collecting what preparing, judging or another policy left); the drop after pruneMessages counts the system messages and then the newest messages back to the first that does not fit (what a careful user writes: the same output as dropping from the front of a full count, without counting what is dropped); Strata by default (trimHistory told the model: the conservative estimate, exact o200k counts once the estimate reaches the budget), with the estimate only (a model whose tokenizer is unknown), and with the judge. The first user message is the task as the data records it; Strata pins the latest real user request instead. Window use: tokens out over the budget, capped at 100%. Rejectable: the oracle ../shared/tools/provider-rules.mjs finds a violation for OpenAI or Anthropic. Refused: the policy threw before any call (the pinned messages alone do not fit). ' +
      `Growing: each history trimmed before each of its calls, ${GROWTH_MESSAGES} messages more each call (its first share, a new array over the same objects; for the AI SDK the same share of its own converted messages), the total CPU time per policy, the median of ${rounds} rounds.`,
    tables: [
      { title: 'trimming by policy and budget', rows },
      { title: `repeated trims of a growing history (${GROWTH_MESSAGES} messages more each call)`, rows: growingRows },
    ],
    targets: smoke ? [] : targets,
    notes: [],
  };
}
