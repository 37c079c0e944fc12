import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSweAgentConversations, withCallIdSuffix } from '@strata/testing';
import { resolveContextBudget } from './context-configuration.js';
import { createContextPipeline } from './context-pipeline.js';
import type { ContextState } from './context-state.js';
import { DefaultHistoryCompactor } from './default-history-compactor.js';
import { ExactTokenEstimator } from './exact-token-estimator.js';
import type { CanonicalMessage, ToolResultMessage } from './messages.js';
import type { TokenEstimator } from './token-estimator.js';

// Compaction, composition and window keep indexes between turns; these tests
// replay long runs and check every turn's input against a fresh pipeline
// given the same history and state: the caches may save time, never change a byte.

const sweAgent = loadSweAgentConversations();

function stored(message: CanonicalMessage, id: string): CanonicalMessage {
  if (message.role !== 'tool') return { ...message };
  return { ...message, outputRef: { id, chars: message.content.length, lines: message.content.split('\n').length, bytes: Buffer.byteLength(message.content) } };
}

/** A long run: the real SWE-agent steps chained `times` times after the task, every result stored. */
function chainedSweRun(times: number): CanonicalMessage[] {
  const messages = sweAgent![2]!.messages;
  const run: CanonicalMessage[] = [...messages.slice(0, 2)];
  for (let round = 0; round < times; round += 1) for (const message of messages.slice(2)) run.push(stored(withCallIdSuffix(message, `_${round}`), `out_${run.length}`));
  return run;
}

/** An own fixture: steps whose results are big, modest (a preview that does not pay), small or not stored, two calls at once now and then. */
function mixedRun(steps: number): CanonicalMessage[] {
  const run: CanonicalMessage[] = [{ role: 'system', content: 'You maintain a service.' }, { role: 'user', content: 'Find why the nightly job fails and fix it.' }];
  for (let step = 1; step <= steps; step += 1) {
    const calls = step % 7 === 0 ? 2 : 1;
    run.push({ role: 'assistant', content: `step ${step}`, toolCalls: Array.from({ length: calls }, (_, call) => ({ id: `c${step}_${call}`, name: 'shell', input: { command: `grep -n job${step} logs/${call}.txt` } })) });
    for (let call = 0; call < calls; call += 1) {
      const kind = (step + call) % 5;
      const body = kind === 0 ? `log line ${step}: job ran, exit 1\n`.repeat(300) : kind === 1 ? 'line of output, ordinary words\n'.repeat(17) : kind === 2 ? `ok ${step}` : `error ${step}: disk full on /var\n`.repeat(80);
      const result: ToolResultMessage = { role: 'tool', toolCallId: `c${step}_${call}`, toolName: 'shell', content: body };
      run.push(kind === 4 ? result : stored(result, `out_${step}_${call}`));
    }
    if (step % 40 === 0) run.push({ role: 'user', content: `Also check step ${step}.` });
  }
  return run;
}

/**
 * Replays `run`: a model call at every assistant message, over the history
 * as the session holds it (compacted where compaction changed it), each
 * input compared with a fresh pipeline's on the same history and state.
 */
async function replayAgainstFresh(options: { run: readonly CanonicalMessage[]; windowTokens: number; exact: boolean; compareEvery?: number }): Promise<{ turns: number; compactions: number }> {
  const budget = resolveContextBudget({ inputCapTokens: options.windowTokens });
  const pipeline = (exactEstimator: TokenEstimator | undefined) => createContextPipeline({ contextId: 'long', budget, goal: 'Fix the failing job.', exactEstimator });
  const exact = options.exact ? new ExactTokenEstimator({ family: 'o200k' }) : undefined;
  const warm = pipeline(exact);
  let history: CanonicalMessage[] = [];
  let state: ContextState | undefined;
  let turns = 0;
  let compactions = 0;
  for (const message of options.run) {
    if (message.role === 'assistant' && history.some((earlier) => earlier.role === 'user')) {
      turns += 1;
      const request = { contextId: 'long', turn: turns, history, tools: [], state };
      const assembled = await warm.assembler.assemble(request);
      if (turns % (options.compareEvery ?? 1) === 0) {
        const fresh = await pipeline(options.exact ? new ExactTokenEstimator({ family: 'o200k' }) : undefined).assembler.assemble(request);
        assert.equal(JSON.stringify(assembled.input), JSON.stringify(fresh.input), `turn ${turns}: the warm pipeline sends what a fresh one sends`);
        assert.deepEqual(assembled.state, fresh.state, `turn ${turns}: the same state`);
        assert.equal(JSON.stringify(assembled.history), JSON.stringify(fresh.history), `turn ${turns}: the same compacted history`);
      }
      state = assembled.state;
      if (assembled.historyChanged) {
        compactions += 1;
        history = [...assembled.history];
      }
    }
    history = [...history, message];
  }
  return { turns, compactions };
}

test('a long run of real SWE-agent steps: every turn sends what a fresh pipeline sends (estimate only)', { skip: sweAgent ? false : '../shared is absent' }, async () => {
  const { turns, compactions } = await replayAgainstFresh({ run: chainedSweRun(12), windowTokens: 8_192, exact: false });
  assert.ok(turns >= 150, `${turns} turns`);
  assert.ok(compactions >= 10, `compaction changed the history on ${compactions} turns: the replay exercises it`);
});

test('a long run of real SWE-agent steps with exact counts: every turn sends what a fresh pipeline sends', { skip: sweAgent ? false : '../shared is absent' }, async () => {
  const { compactions } = await replayAgainstFresh({ run: chainedSweRun(8), windowTokens: 8_192, exact: true, compareEvery: 3 });
  assert.ok(compactions >= 5, `${compactions} compactions`);
});

test('a long mixed run (big, modest, small and unstored results, parallel calls): every turn sends what a fresh pipeline sends', async () => {
  const { compactions } = await replayAgainstFresh({ run: mixedRun(160), windowTokens: 6_000, exact: false });
  assert.ok(compactions >= 10, `${compactions} compactions`);
});

test('a pass under pressure visits only the results it has not settled: each preview is made once', async () => {
  const run = mixedRun(120);
  const counted = new Set<CanonicalMessage>();
  // The estimator sees every message the compactor counts: a preview is a masked tool message, a new object each time one is made.
  const base = new ExactTokenEstimator({ family: 'o200k' });
  const estimator: TokenEstimator = {
    family: base.family,
    exact: true,
    countText: (text) => base.countText(text),
    countTool: (tool) => base.countTool(tool),
    countMessage: (message) => {
      if (message.role === 'tool' && message.masked === true) counted.add(message);
      return base.countMessage(message);
    },
  };
  const compactor = new DefaultHistoryCompactor();
  let history: CanonicalMessage[] = run.slice(0, 40);
  const signal = new AbortController().signal;
  for (let end = 40; end <= run.length; end += 2) {
    history = [...history, ...run.slice(history.length, end)];
    const result = await compactor.compact({ contextId: 'c', history, reason: 'token-pressure', targetHistoryTokens: 3_000, estimator, signal });
    // The same pass from scratch decides the same.
    const fresh = await new DefaultHistoryCompactor().compact({ contextId: 'c', history, reason: 'token-pressure', targetHistoryTokens: 3_000, estimator: base, signal });
    assert.equal(JSON.stringify(result.history), JSON.stringify(fresh.history), `at ${end} messages`);
    assert.deepEqual(result.trace, fresh.trace);
    history = [...result.history];
  }
  const stored = run.filter((message) => message.role === 'tool' && message.outputRef !== undefined).length;
  assert.ok(counted.size <= stored, `${counted.size} previews counted for ${stored} stored results: at most one each`);
  assert.ok(history.some((message) => message.role === 'tool' && message.masked === true), 'the run was compacted');
});
