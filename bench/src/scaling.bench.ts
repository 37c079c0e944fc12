// Assembly cost as the history grows: one dynamic turn over 1,000, 10,000 and
// 100,000 real messages (tau-bench runs chained with real SWE-agent steps),
// cold (a fresh assembler and fresh message objects) and warm (one message
// appended to the previous turn's history), with the heap after the warm turns.
import { ConservativeTokenEstimator, ContextContributorRegistry, createContextAssembler, resolveContextBudget, type CanonicalMessage } from '@strata/context';
import { loadSweAgentConversations, loadTauBenchConversations } from '@strata/testing';
import { median, table, timeAsync } from './measure.js';

const SIZES = [1_000, 10_000, 100_000];
const WARM_TURNS = 60;

/** `size` real messages: tau-bench runs, each followed by real SWE-agent steps with fresh call ids. */
export function chainedHistory(size: number): CanonicalMessage[] | undefined {
  const runs = loadTauBenchConversations();
  const swe = loadSweAgentConversations();
  if (!runs || !swe) return undefined;
  const steps = swe[2]!.messages.filter((message) => message.role === 'assistant' || message.role === 'tool');
  const history: CanonicalMessage[] = [runs[0]!.messages[0]!];
  let step = 0;
  for (let round = 0; history.length < size; round += 1) {
    for (const message of runs[round % runs.length]!.messages) {
      if (message.role === 'system') continue;
      if (message.role === 'assistant' && message.toolCalls) history.push({ ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, id: `${call.id}_${round}` })) });
      else if (message.role === 'tool') history.push({ ...message, toolCallId: `${message.toolCallId}_${round}` });
      else history.push({ ...message });
    }
    for (let pair = 0; pair < 5; pair += 1) {
      while (steps[step % steps.length]!.role !== 'assistant' || !(steps[step % steps.length] as { toolCalls?: unknown }).toolCalls) step += 1;
      const call = steps[step % steps.length] as Extract<CanonicalMessage, { role: 'assistant' }>;
      const result = steps[(step + 1) % steps.length]!;
      step += 2;
      if (result.role !== 'tool') continue;
      const id = `swe_${history.length}`;
      history.push({ ...call, toolCalls: [{ ...call.toolCalls![0]!, id }] }, { ...result, toolCallId: id });
    }
  }
  return history.slice(0, size + WARM_TURNS);
}

function assembler() {
  const registry = new ContextContributorRegistry();
  registry.register({ id: 'identity', scopes: ['main'], required: true, contribute: () => ({ sections: [{ id: 'identity', slot: 'identity', content: 'You are an airline agent.' }] }) });
  return createContextAssembler({ registry, budget: resolveContextBudget({ inputCapTokens: 111_616 }), estimator: new ConservativeTokenEstimator({ family: 'o200k' }) });
}

export async function run(): Promise<void> {
  const largest = chainedHistory(SIZES.at(-1)!);
  if (!largest) {
    console.log('skipped: ../shared is absent');
    return;
  }
  const rows = [];
  let warmAtSmallest = 0;
  for (const size of SIZES) {
    const all = largest.slice(0, size + WARM_TURNS);
    const base = all.slice(0, size);
    const cold = await timeAsync(() => assembler().assemble({ contextId: 'scale', turn: 1, history: structuredClone(base), tools: [] }));
    const subject = assembler();
    await subject.assemble({ contextId: 'scale', turn: 1, history: base, tools: [] });
    const warms: number[] = [];
    for (let turn = 1; turn <= WARM_TURNS; turn += 1) {
      const history = all.slice(0, size + turn);
      warms.push(await timeAsync(() => subject.assemble({ contextId: 'scale', turn: turn + 1, history, tools: [] })));
    }
    const warm = median(warms);
    if (size === SIZES[0]) warmAtSmallest = warm;
    rows.push({
      messages: size,
      'cold (ms)': cold.toFixed(1),
      'warm p50 (ms)': warm.toFixed(3),
      'warm / warm at 1,000': (warm / warmAtSmallest).toFixed(1),
      'heap (MB)': (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0),
    });
  }
  table(rows);
  console.log('targets: warm at 10,000 within 2x and at 100,000 within 10x of warm at 1,000; cold linear in size');
}
