// Replay of real trajectories with masking only (no summarizer), against raw
// replay and two peer strategies measured here on the same turns:
// SWE-agent's last-5 observation masking and Anthropic's clear_tool_uses.
// Tokens: o200k, message text only. Prefix reuse: the share of each request's
// tokens that repeat, byte for byte, the start of the previous request.
import { ExactTokenEstimator, messageText, type CanonicalMessage } from '@strata/context';
import { loadSweAgentConversations, loadTauBenchConversations, type SharedConversation } from '@strata/testing';
import { clearToolUsesRequests, lastNMaskingRequests, rawRequests, replayTrajectory, type BaselineTurn } from '@strata/agent';
import { createMemoryToolOutputStore } from '@strata/store';
import { skippedResult, type BenchOptions, type BenchResult } from './bench-result.js';

const TITLE = 'Compaction on real trajectories: Strata against raw, last-5 observation masking and clear_tool_uses';

const exact = new ExactTokenEstimator({ family: 'o200k' });
const textTokens = new WeakMap<CanonicalMessage, number>();
const serialized = new WeakMap<CanonicalMessage, string>();

function tokensOf(message: CanonicalMessage): number {
  let count = textTokens.get(message);
  if (count === undefined) textTokens.set(message, (count = exact.countText(messageText(message))));
  return count;
}

function keyOf(message: CanonicalMessage): string {
  let key = serialized.get(message);
  if (key === undefined) serialized.set(message, (key = JSON.stringify(message)));
  return key;
}

interface Tally {
  tokens: number;
  reused: number;
  compactions: number;
}

/** Adds one request: its tokens, and the tokens of its leading messages equal to the previous request's. */
function account(tally: Tally, request: readonly CanonicalMessage[], previous: readonly CanonicalMessage[] | undefined): void {
  let same = true;
  for (const [index, message] of request.entries()) {
    const tokens = tokensOf(message);
    tally.tokens += tokens;
    same = same && previous !== undefined && index < previous.length && (previous[index] === message || keyOf(previous[index]!) === keyOf(message));
    if (same) tally.reused += tokens;
  }
}


/** Accounts each request of a peer strategy (see @strata/agent's replay baselines). */
function accountBaseline(turns: readonly BaselineTurn[], tally: Tally): void {
  let previous: readonly CanonicalMessage[] | undefined;
  for (const turn of turns) {
    account(tally, turn.messages, previous);
    if (turn.compacted) tally.compactions += 1;
    previous = turn.messages;
  }
}

async function strataReplay(conversation: SharedConversation, window: number, maskStoredResults: boolean, tally: Tally): Promise<{ failed: boolean; reason?: string }> {
  try {
    const replay = await replayTrajectory({ trajectory: conversation.messages, contextId: `${conversation.source}#${conversation.index}`, windowTokens: window, store: createMemoryToolOutputStore(), compaction: {}, exactEstimator: exact, maskStoredResults });
    let previous: readonly CanonicalMessage[] | undefined;
    for (const turn of replay.turns) {
      account(tally, turn.assembled.input.messages, previous);
      previous = turn.assembled.input.messages;
    }
    tally.compactions += replay.compactions;
    return { failed: false };
  } catch (error) {
    return { failed: true, reason: `${conversation.source}#${conversation.index} at ${window}: ${(error as Error).message}` };
  }
}

/** A long run: the real SWE-agent steps chained `times` times after the task. */
function chainedSweRun(conversation: SharedConversation, times: number): SharedConversation {
  const head = conversation.messages.slice(0, 2);
  const steps = conversation.messages.slice(2);
  const messages: CanonicalMessage[] = [...head];
  for (let round = 0; round < times; round += 1) {
    for (const message of steps) {
      if (message.role === 'assistant' && message.toolCalls) messages.push({ ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, id: `${call.id}_${round}` })) });
      else if (message.role === 'tool') messages.push({ ...message, toolCallId: `${message.toolCallId}_${round}` });
      else messages.push(message);
    }
  }
  return { source: `${conversation.source} x${times}`, index: 0, messages };
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

export async function run(options: BenchOptions): Promise<BenchResult> {
  const tau = loadTauBenchConversations();
  const swe = loadSweAgentConversations();
  if (!tau || !swe) return skippedResult(TITLE, '../shared is absent (set STRATA_SHARED_DIR)');
  const smoke = options.size === 'smoke';
  const sets: Array<[string, SharedConversation[]]> = smoke
    ? [['tau-bench airline (first 2 runs)', tau.slice(0, 2)]]
    : [
        ['tau-bench airline (200 runs)', tau],
        ['SWE-agent (3 runs)', swe],
        ['SWE-agent long run (real steps chained 10x)', [chainedSweRun(swe[2]!, 10)]],
      ];
  const windows = smoke ? [4_096] : [4_096, 8_192];
  const failures: string[] = [];
  const rows = [];
  for (const [name, conversations] of sets) {
    for (const window of windows) {
      const raw: Tally = { tokens: 0, reused: 0, compactions: 0 };
      const lastFive: Tally = { tokens: 0, reused: 0, compactions: 0 };
      const clearing: Tally = { tokens: 0, reused: 0, compactions: 0 };
      const strata: Tally = { tokens: 0, reused: 0, compactions: 0 };
      const view: Tally = { tokens: 0, reused: 0, compactions: 0 };
      let failed = 0;
      for (const conversation of conversations) {
        const strataPart: Tally = { tokens: 0, reused: 0, compactions: 0 };
        const viewPart: Tally = { tokens: 0, reused: 0, compactions: 0 };
        const outcomes = [await strataReplay(conversation, window, false, strataPart), await strataReplay(conversation, window, true, viewPart)];
        if (outcomes.some((outcome) => outcome.failed)) {
          failed += 1;
          failures.push(...outcomes.flatMap((outcome) => (outcome.reason ? [outcome.reason] : [])));
          continue;
        }
        // Every strategy over exactly the runs Strata replayed.
        for (const [total, part] of [[strata, strataPart], [view, viewPart]] as const) {
          total.tokens += part.tokens;
          total.reused += part.reused;
          total.compactions += part.compactions;
        }
        accountBaseline(rawRequests(conversation.messages), raw);
        accountBaseline(lastNMaskingRequests(conversation.messages, { keep: 5 }), lastFive);
        accountBaseline(clearToolUsesRequests(conversation.messages, { triggerTokens: window, countMessage: tokensOf }), clearing);
      }
      const cut = (tally: Tally) => percent(1 - tally.tokens / raw.tokens);
      const reuse = (tally: Tally) => percent(tally.reused / tally.tokens);
      rows.push({
        data: name,
        window,
        'raw tokens': raw.tokens,
        'raw reuse': reuse(raw),
        'last-5 masking cut / reuse': `${cut(lastFive)} / ${reuse(lastFive)}`,
        'clear_tool_uses cut / reuse': `${cut(clearing)} / ${reuse(clearing)}`,
        'strata on pressure: cut / reuse / compactions': `${cut(strata)} / ${reuse(strata)} / ${strata.compactions}`,
        'strata masked view: cut / reuse / compactions': `${cut(view)} / ${reuse(view)} / ${view.compactions}`,
        'runs not assembled': failed,
      });
    }
  }
  return {
    title: TITLE,
    method:
      'Replays of real trajectories with masking only (no summarizer). Tokens: o200k, message text only. Cut: tokens sent below raw replay. Reuse: the share of each request\'s tokens that repeat, byte for byte, the start of the previous request. The peers are the replay baselines of @strata/agent over exactly the runs Strata replayed.',
    tables: [{ title: 'tokens sent and prefix reuse by policy', rows }],
    targets: [],
    notes: ['Every masked output is stored and recoverable byte-exact: see packages/agent/src/replay.test.ts.', ...failures.map((failure) => `not assembled: ${failure}`)],
  };
}
