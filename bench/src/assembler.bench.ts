// One dynamic turn over a 1,000-message, ~200K-token history: cold, and warm
// (one message appended to the previous turn's history).
import { ConservativeTokenEstimator, ContextContributorRegistry, createContextAssembler, resolveContextBudget, type CanonicalMessage } from '@strata/context';
import { loadSweAgentConversations, loadTauBenchConversations } from '@strata/testing';
import { median, percentile, table, timeAsync } from './measure.js';

const MESSAGES = 1_000;
const WARM_TURNS = 200;
const SWE_STEPS_PER_RUN = 5;

/**
 * 1,000+ real messages: tau-bench airline runs, each followed by real
 * SWE-agent steps (assistant call + tool result), about 200K tokens.
 */
function longHistory(): CanonicalMessage[] | undefined {
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
    if (history.length >= MESSAGES + WARM_TURNS + 1) break;
  }
  return history;
}

function assembler() {
  const registry = new ContextContributorRegistry();
  registry.register({ id: 'identity', scopes: ['main'], required: true, contribute: () => ({ sections: [{ id: 'identity', slot: 'identity', content: 'You are an airline agent.' }] }) });
  registry.register({ id: 'plan', scopes: ['main'], contribute: (request) => ({ messages: [{ id: 'plan', role: 'user', content: `Turn ${request.turn}: continue the booking.` }] }) });
  return createContextAssembler({ registry, budget: resolveContextBudget({ modelMaxTokens: 128_000, outputReserveTokens: 16_384 }), estimator: new ConservativeTokenEstimator({ family: 'o200k' }) });
}

export async function run(): Promise<void> {
  const all = longHistory();
  if (!all) {
    console.log('skipped: ../shared is absent');
    return;
  }
  const tools = [{ name: 'get_user_details', description: 'Gets a user.', parameters: { type: 'object', properties: { user_id: { type: 'string' } } } }];
  const estimator = new ConservativeTokenEstimator({ family: 'o200k' });
  const base = all.slice(0, MESSAGES);
  const tokens = base.reduce((total, message) => total + estimator.countMessage(message), 0);

  const colds: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const subject = assembler();
    const copy = structuredClone(base); // fresh objects: no cached counts
    colds.push(await timeAsync(() => subject.assemble({ contextId: 'bench', turn: 1, history: copy, tools })));
  }
  const subject = assembler();
  await subject.assemble({ contextId: 'bench', turn: 1, history: base, tools });
  const warms: number[] = [];
  for (let turn = 0; turn < WARM_TURNS; turn += 1) {
    const history = all.slice(0, MESSAGES + turn + 1);
    warms.push(await timeAsync(() => subject.assemble({ contextId: 'bench', turn: turn + 2, history, tools })));
  }
  table([
    { measure: 'history', value: `${base.length} messages, ~${Math.round(tokens / 1000)}K estimated tokens` },
    { measure: 'cold turn p50 (ms)', value: median(colds).toFixed(2) },
    { measure: 'warm turn p50 (ms), one message appended', value: median(warms).toFixed(3) },
    { measure: 'warm turn p95 (ms)', value: percentile(warms, 0.95).toFixed(3) },
    { measure: 'target', value: 'warm p50 <= 2 ms' },
  ]);
}
