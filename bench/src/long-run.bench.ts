// A long run through the default compaction: 2,000 model turns of real
// SWE-agent steps (chained, every result stored) at a 32,768-token window,
// with the estimate only and with exact o200k counts, and 10,000 turns built
// from the same steps. Issue 24's target: a late turn costs what an early one
// does (what was appended, not the run).
import { createContextPipeline, ExactTokenEstimator, resolveContextBudget, type CanonicalMessage, type ContextState } from '@strata/context';
import { loadSweAgentConversations, withCallIdSuffix } from '@strata/testing';
import { skippedResult, type BenchOptions, type BenchResult, type BenchTarget } from './bench-result.js';
import { collectGarbage, cpuTimeAsync, fixed, median } from './measure.js';

const TITLE = 'A long run through the default compaction: turn time, early against late';
const TURNS: Record<BenchOptions['size'], readonly number[]> = { full: [2_000, 10_000], smoke: [40] };
const WINDOW_TOKENS = 32_768;
/** Turns 101-200 against the last 200 (1,801-2,000 of a 2,000-turn run). */
const EARLY = [100, 200] as const;
const LATE_TURNS = 200;

/** The real SWE-agent steps chained after the task until `turns` model calls, fresh objects and call ids each round, every result stored. */
export function longSweRun(turns: number): CanonicalMessage[] | undefined {
  const conversation = loadSweAgentConversations()?.[2];
  if (!conversation) return undefined;
  const steps = conversation.messages.slice(2);
  const run: CanonicalMessage[] = conversation.messages.slice(0, 2).map((message) => ({ ...message }));
  let calls = 0;
  for (let round = 0; calls <= turns; round += 1) {
    for (const message of steps) {
      const renamed = withCallIdSuffix(message, `_${round}`);
      if (renamed.role === 'assistant') calls += 1;
      run.push(
        renamed.role === 'tool'
          ? { ...renamed, outputRef: { id: `out_${run.length}`, chars: renamed.content.length, lines: renamed.content.split('\n').length, bytes: Buffer.byteLength(renamed.content) } }
          : { ...renamed },
      );
    }
  }
  return run;
}

/**
 * CPU milliseconds of each model turn of the run, assembled over the history
 * as the session holds it (compacted where compaction changed it): each turn
 * one new list, the last turn's history with what arrived since appended (a
 * list per message would leave the timed turns twice the garbage a session
 * makes). Garbage is collected first, so a run does not pay for an earlier one.
 */
export async function turnTimes(run: readonly CanonicalMessage[], turns: number, exact: boolean): Promise<number[]> {
  const { assembler } = createContextPipeline({
    contextId: 'long',
    budget: resolveContextBudget({ inputCapTokens: WINDOW_TOKENS }),
    goal: 'Fix the failing test.',
    exactEstimator: exact ? new ExactTokenEstimator({ family: 'o200k' }) : undefined,
  });
  const times: number[] = [];
  let history: readonly CanonicalMessage[] = [];
  /** The messages since the last turn, appended to the history when the next turn starts. */
  let arrived: CanonicalMessage[] = [];
  let requested = false;
  let state: ContextState | undefined;
  collectGarbage();
  for (const message of run) {
    if (message.role === 'assistant' && requested) {
      if (times.length === turns) break;
      history = [...history, ...arrived];
      arrived = [];
      const request = { contextId: 'long', turn: times.length + 1, history, tools: [], state };
      let assembled: Awaited<ReturnType<typeof assembler.assemble>> | undefined;
      times.push(await cpuTimeAsync(async () => void (assembled = await assembler.assemble(request))));
      state = assembled!.state;
      history = assembled!.history;
    }
    if (message.role === 'user') requested = true;
    arrived.push(message);
  }
  return times;
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const runs = TURNS[options.size];
  const longRun = longSweRun(Math.max(...runs));
  if (!longRun) return skippedResult(TITLE, '../shared is absent (set STRATA_SHARED_DIR)');
  const rows = [];
  const targets: BenchTarget[] = [];
  for (const turns of runs) {
    for (const exact of [false, true]) {
      const times = await turnTimes(longRun, turns, exact);
      const early = median(options.size === 'full' ? times.slice(...EARLY) : times.slice(0, times.length / 2));
      const late = median(times.slice(-Math.min(LATE_TURNS, times.length / 2)));
      const counting = exact ? 'exact o200k counts' : 'estimate only';
      rows.push({ counting, turns: times.length, 'early p50 (ms)': fixed(early, 3), 'late p50 (ms)': fixed(late, 3), 'late / early': fixed(late / early, 2) });
      if (options.size === 'full') targets.push({ name: `long run, ${turns.toLocaleString('en-US')} turns (${counting}): median of the last 200 turns at most 2x the median of turns 101-200`, measured: `${fixed(late / early, 2)}x`, met: late <= 2 * early });
    }
  }
  return {
    title: TITLE,
    method: `The real SWE-agent steps of the third shared run chained after its task (fresh objects and call ids each round, every result stored with a reference), ${runs.map((turns) => turns.toLocaleString('en-US')).join(' and ')} model turns through createContextPipeline's default compaction at a ${WINDOW_TOKENS.toLocaleString('en-US')}-token window, the history kept as the session keeps it (compacted where compaction changed it); each turn's assembly timed in CPU time of this process. Early: turns 101-200; late: the last 200.`,
    tables: [{ title: 'turn time, early and late', rows }],
    targets,
    notes: [],
  };
}
