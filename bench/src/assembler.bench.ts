// One dynamic turn over a 1,000-message, ~200K-token history: cold, and warm
// (one message appended to the previous turn's history).
import { ConservativeTokenEstimator, ContextContributorRegistry, createContextAssembler, resolveContextBudget, type CanonicalMessage } from '@strata/context';
import { loadSweAgentConversations, loadTauBenchConversations } from '@strata/testing';
import { skippedResult, type BenchOptions, type BenchResult } from './bench-result.js';
import { collectGarbage, cpuTimeAsync, fixed, median, percentile } from './measure.js';

const SIZES: Record<BenchOptions['size'], { messages: number; warmTurns: number; coldRounds: number }> = {
  full: { messages: 1_000, warmTurns: 200, coldRounds: 5 },
  smoke: { messages: 100, warmTurns: 3, coldRounds: 1 },
};
const SWE_STEPS_PER_RUN = 5;
const TITLE = 'One dynamic turn over a 1,000-message history';

/**
 * 1,000+ real messages: tau-bench airline runs, each followed by real
 * SWE-agent steps (assistant call + tool result), about 200K tokens.
 */
function longHistory(messages: number, warmTurns: number): CanonicalMessage[] | undefined {
  const runs = loadTauBenchConversations();
  const swe = loadSweAgentConversations();
  if (!runs || !swe) return undefined;
  const steps = swe[2]!.messages.slice(2);
  const history: CanonicalMessage[] = [runs[0]!.messages[0]!];
  let step = 0;
  for (const run of runs) {
    for (const message of run.messages) if (message.role !== 'system') history.push(message);
    for (let pair = 0; pair < SWE_STEPS_PER_RUN; pair += 1) {
      // Whole steps only: an assistant call and its result, with fresh ids.
      while (steps[step % steps.length]!.role !== 'assistant') step += 1;
      const call = steps[step % steps.length]!;
      const result = steps[(step + 1) % steps.length]!;
      step += 2;
      if (call.role !== 'assistant' || !call.toolCalls || result.role !== 'tool') continue;
      const id = `swe_${history.length}`;
      history.push({ ...call, toolCalls: [{ ...call.toolCalls[0]!, id }] }, { ...result, toolCallId: id });
    }
    if (history.length >= messages + warmTurns + 1) break;
  }
  return history;
}

function assembler() {
  const registry = new ContextContributorRegistry();
  registry.register({ id: 'identity', scopes: ['main'], required: true, contribute: () => ({ sections: [{ id: 'identity', slot: 'identity', content: 'You are an airline agent.' }] }) });
  registry.register({ id: 'plan', scopes: ['main'], contribute: (request) => ({ messages: [{ id: 'plan', role: 'user', content: `Turn ${request.turn}: continue the booking.` }] }) });
  return createContextAssembler({ registry, budget: resolveContextBudget({ modelMaxTokens: 128_000, outputReserveTokens: 16_384 }), estimator: new ConservativeTokenEstimator({ family: 'o200k' }) });
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const { messages, warmTurns, coldRounds } = SIZES[options.size];
  const all = longHistory(messages, warmTurns);
  if (!all) return skippedResult(TITLE, '../shared is absent (set STRATA_SHARED_DIR)');
  const tools = [{ name: 'get_user_details', description: 'Gets a user.', parameters: { type: 'object', properties: { user_id: { type: 'string' } } } }];
  const estimator = new ConservativeTokenEstimator({ family: 'o200k' });
  const base = all.slice(0, messages);
  const tokens = base.reduce((total, message) => total + estimator.countMessage(message), 0);

  const colds: number[] = [];
  for (let round = 0; round < coldRounds; round += 1) {
    const subject = assembler();
    const copy = structuredClone(base); // fresh objects: no cached counts
    colds.push(await cpuTimeAsync(() => subject.assemble({ contextId: 'bench', turn: 1, history: copy, tools })));
  }
  const subject = assembler();
  // Each turn is given the context state the last one returned, as every caller passes it.
  let state = (await subject.assemble({ contextId: 'bench', turn: 1, history: base, tools })).state;
  // What the cold turns left behind is collected first: the warm turns pay only for their own garbage.
  collectGarbage();
  const warms: number[] = [];
  for (let turn = 0; turn < warmTurns; turn += 1) {
    const history = all.slice(0, messages + turn + 1);
    warms.push(await cpuTimeAsync(async () => void (state = (await subject.assemble({ contextId: 'bench', turn: turn + 2, history, tools, state })).state)));
  }
  const warm = median(warms);
  return {
    title: TITLE,
    method: `${base.length} real messages (tau-bench runs, each followed by real SWE-agent steps), about ${Math.round(tokens / 1000)}K estimated tokens; 128,000-token model, 16,384 reserved for output; two contributors. Times are CPU time. Cold: fresh assembler and message objects (median of ${coldRounds}). Warm: garbage collected first, one message appended per turn (${warmTurns} turns).`,
    tables: [{ title: 'turn time', rows: [{ 'cold p50 (ms)': fixed(median(colds), 2), 'warm p50 (ms)': fixed(warm, 3), 'warm p95 (ms)': fixed(percentile(warms, 0.95), 3) }] }],
    targets: options.size === 'full' ? [{ name: 'warm turn at 1,000 messages at most 2 ms', measured: `${fixed(warm, 3)} ms`, met: warm <= 2 }] : [],
    notes: [],
  };
}
