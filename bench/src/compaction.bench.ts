// Compaction priced as providers bill it: real trajectories replayed by
// `strata replay` (the same code, in this process) under Strata's default and
// the peers' policies: raw, SWE-agent's last-5 observation masking and
// Anthropic's clear_tool_uses. Tokens: o200k.
import { replayTrajectories, type PolicySummary, type ReplayPolicy } from '@strata/cli';
import type { CanonicalMessage } from '@strata/context';
import { loadProviderRules, loadShareGptConversations, loadSweAgentConversations, loadTauBenchConversations, withCallIdSuffix, type SharedConversation } from '@strata/testing';
import { skippedResult, type BenchOptions, type BenchResult, type BenchTarget } from './bench-result.js';

const TITLE = 'Compaction priced as providers bill it: Strata against raw, last-5 observation masking and clear_tool_uses';
const POLICIES: readonly ReplayPolicy[] = ['raw', 'last-n', 'clear-tool-uses', 'pressure', 'masked-view'];
const LABELS: Readonly<Record<ReplayPolicy, string>> = { raw: 'raw', 'last-n': 'last-5 masking', 'clear-tool-uses': 'clear_tool_uses', pressure: 'Strata default', 'masked-view': 'Strata, every result masked' };

/** A long run: the real SWE-agent steps chained `times` times after the task. */
function chainedSweRun(conversation: SharedConversation, times: number): SharedConversation {
  const head = conversation.messages.slice(0, 2);
  const steps = conversation.messages.slice(2);
  const messages: CanonicalMessage[] = [...head];
  for (let round = 0; round < times; round += 1) for (const message of steps) messages.push(withCallIdSuffix(message, `_${round}`));
  return { source: `${conversation.source} x${times}`, index: 0, messages };
}

const percent = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);
const thousands = (value: number) => value.toLocaleString('en-US');

export async function run(options: BenchOptions): Promise<BenchResult> {
  const tau = loadTauBenchConversations();
  const swe = loadSweAgentConversations();
  const oracle = await loadProviderRules();
  // The shared sets with tool use besides tau-bench and SWE-agent: LLaMA-Factory's glaive tool-call demos (the alpaca ones have no tool output to compact).
  const glaive = (['glaive_toolcall_en_demo.json', 'glaive_toolcall_zh_demo.json'] as const).map((file) => [file, loadShareGptConversations(file)] as const);
  if (!tau || !swe || !oracle || glaive.some(([, conversations]) => conversations === undefined)) return skippedResult(TITLE, '../shared is absent (set STRATA_SHARED_DIR)');
  const smoke = options.size === 'smoke';
  // The long run is replayed five times, each with its own (reproducible) stored-output ids: an id's token count can tip a cut to another turn, and one id set alone can favour one policy by a percent or two.
  const long = chainedSweRun(swe[2]!, 10);
  // [name, conversations, long run, cost targets only]
  const sets: Array<[string, SharedConversation[], boolean, boolean?]> = smoke
    ? [['tau-bench airline (first 2 runs)', tau.slice(0, 2), false]]
    : [
        ['tau-bench airline (200 runs)', tau, false],
        ['SWE-agent (3 runs)', swe, false],
        // Issue 24 names every shared set for its cost target; the recall and recovery targets (an earlier issue's) name tau-bench, SWE-agent and the long run.
        ...glaive.map(([file, conversations]): [string, SharedConversation[], boolean, boolean] => [`${file} (${conversations!.length} conversations)`, conversations!, false, true]),
        ['SWE-agent long run (real steps chained 10x, replayed 5 times)', Array.from({ length: 5 }, (_, index) => ({ ...long, index })), true],
      ];
  const windows = smoke ? [4_096] : [4_096, 8_192];
  const rows = [];
  const targets: BenchTarget[] = [];
  const notes: string[] = [];
  for (const [name, conversations, long, costOnly] of sets) {
    for (const windowTokens of windows) {
      const trajectories = conversations.map((conversation) => ({ id: `${conversation.source}#${conversation.index}`, messages: conversation.messages }));
      const { total, compared, failures, whereRawFits } = await replayTrajectories({ trajectories, windowTokens, policies: POLICIES, oracle });
      for (const failure of failures) notes.push(`not assembled at ${windowTokens}: ${failure.id} (${failure.policy}): ${failure.message}`);
      if (compared.runs < compared.of) notes.push(`${name}, ${windowTokens}: every figure compares the ${compared.runs} of ${compared.of} runs every policy assembled`);
      for (const policy of POLICIES) {
        const summary: PolicySummary = total[policy];
        rows.push({
          data: name,
          window: windowTokens,
          policy: LABELS[policy],
          'runs compared': `${compared.runs} of ${compared.of}`,
          'cost (cached 0.1, rest 1)': summary.cost.totalWithoutWritePremium,
          'cost with cache writes at 1.25': summary.cost.total,
          'input tokens': summary.inputTokens,
          'turns over the window': summary.overWindowTurns,
          'prefix reuse': percent(summary.prefixReuse),
          'later-use recall': percent(summary.laterUseRecall.share),
          'recall: needed / by reference / missed': `${summary.laterUseRecall.needed} / ${summary.laterUseRecall.byReference} / ${summary.laterUseRecall.missed}`,
          recovered: summary.recovery.share === null ? 'no copy kept' : percent(summary.recovery.share),
          'oracle violations': summary.oracleViolations,
        });
      }
      if (smoke) continue;
      const strata = total.pressure;
      // The issue's cost target, per cell (set, window, pricing): the default the lowest or within 1% against the
      // documented clear_tool_uses, last-5 masking, and raw over the runs where raw sends within the window. A peer
      // that sends more than the window on some turn is compared all the same (its over-window turns are named).
      for (const [column, cost] of [
        ['cached 0.1, rest 1', (summary: PolicySummary) => summary.cost.totalWithoutWritePremium],
        ['cache writes 1.25', (summary: PolicySummary) => summary.cost.total],
      ] as const) {
        const against: Array<{ label: string; ratio: number; over: number }> = (['last-n', 'clear-tool-uses'] as const).map((policy) => ({ label: LABELS[policy], ratio: cost(strata) / cost(total[policy]), over: total[policy].overWindowTurns }));
        if (whereRawFits && whereRawFits.runs > 0) against.push({ label: `raw (the ${whereRawFits.runs} runs it fits)`, ratio: cost(whereRawFits.total.pressure) / cost(whereRawFits.total.raw), over: 0 });
        const worst = Math.max(...against.map((peer) => peer.ratio));
        targets.push({
          name: `${name}, ${windowTokens}: default's cost (${column}) the lowest or within 1% of clear_tool_uses, last-5 masking and raw where raw fits`,
          measured: `${thousands(cost(strata))}; ${against.map((peer) => `${peer.ratio.toFixed(4)}x ${peer.label}${peer.over > 0 ? ` (${peer.over} turns over the window)` : ''}`).join(', ')}`,
          met: worst <= 1.01,
        });
      }
      if (costOnly) {
        notes.push(`${name}, ${windowTokens}: later-use recall ${percent(strata.laterUseRecall.share)} (${strata.laterUseRecall.missed} of ${strata.laterUseRecall.needed} missed), masked results recoverable ${percent(strata.recovery.share)} (not targets for this set)`);
        continue;
      }
      if (long) {
        const below = 1 - strata.cost.totalWithoutWritePremium / total.raw.cost.totalWithoutWritePremium;
        targets.push({ name: `${name}, ${windowTokens}: default's cost at least 50% below raw`, measured: `${percent(below)} below`, met: below >= 0.5 });
      }
      targets.push({ name: `${name}, ${windowTokens}: every masked result recoverable`, measured: percent(strata.recovery.share), met: strata.recovery.share === 1 });
      // The issue's target, on every set and the long run: what a recorded answer used from earlier is visible or behind a reference the input shows.
      const recall = strata.laterUseRecall.share ?? 1;
      targets.push({ name: `${name}, ${windowTokens}: later-use recall at least 99%, never over the window`, measured: `${percent(recall)} (${strata.laterUseRecall.missed} of ${strata.laterUseRecall.needed} missed), ${strata.overWindowTurns} turns over`, met: recall >= 0.99 && strata.overWindowTurns === 0 });
    }
  }
  return {
    title: TITLE,
    method:
      "Every recorded model call replayed through `strata replay`'s code in this process, masking only (no summarizer), counted in o200k. Cost in input-token units: the prefix equal to the previous request at 0.1, the rest at 1 (as OpenAI bills cached input); the second column bills the part the next request reuses as a cache write at 1.25 (as Anthropic does). Later-use recall: identifiers, numbers and paths each recorded answer used (its text and its call arguments' values) that an earlier tool result or user message holds and whose first occurrence before the call is outside the system prompt and the task, counted as recalled when visible in that call's input or readable with read_tool_output through a reference whose id that input shows; a search of every stored output does not count. Every figure compares the runs every policy assembled. Raw sends the whole history, also over the window.",
    tables: [{ title: 'cost, recall and recovery by policy', rows }],
    targets,
    notes,
  };
}
