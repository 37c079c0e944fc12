import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { DefaultHistoryCompactor } from './default-history-compactor.js';
import { buildHistoryUnits } from './history-units.js';
import type { CompactionRequest } from './history-compactor.js';
import type { CanonicalMessage, ToolResultMessage } from './messages.js';
import type { Summarizer } from './ports.js';
import { historyArbitrary, manualTimers } from '@strata/testing';

const estimator = new ConservativeTokenEstimator();

function withRefs(history: CanonicalMessage[]): CanonicalMessage[] {
  return history.map((message) =>
    message.role === 'tool'
      ? { ...message, outputRef: { id: `out_${message.toolCallId}`, chars: message.content.length, lines: message.content.split('\n').length, bytes: Buffer.byteLength(message.content) } }
      : message,
  );
}

function request(history: CanonicalMessage[], overrides: Partial<CompactionRequest> = {}): CompactionRequest {
  return { contextId: 'c', history, reason: 'token-pressure', targetHistoryTokens: 2_000, estimator, signal: new AbortController().signal, ...overrides };
}

const bigResult = 'row 1: {"flight": "HAT001", "seats": 12}\n'.repeat(200);
function longRun(steps: number): CanonicalMessage[] {
  const history: CanonicalMessage[] = [{ role: 'system', content: 'policy' }, { role: 'user', content: 'Book the cheapest flight to Seattle.' }];
  for (let step = 1; step <= steps; step += 1) {
    history.push({ role: 'assistant', content: `step ${step}`, toolCalls: [{ id: `c${step}`, name: 'search_flights', input: { step } }] });
    history.push({ role: 'tool', toolCallId: `c${step}`, toolName: 'search_flights', content: `result ${step}\n${bigResult}` });
  }
  return withRefs(history);
}

const goodCheckpoint = [
  '## Completed work', '- searched flights', '## Evidence', '- HAT001 has 12 seats (ref="out_c1")', '## Decisions', '- prefer HAT001',
  '## Failed or abandoned directions', '- none', '## Pending conditions', '- user confirms', '## Optional directions', '- check insurance', '## Next step', '- ask the user to confirm',
].join('\n');

function scripted(...answers: Array<string | Error | 'hang'>): Summarizer & { calls: number } {
  const summarizer = {
    calls: 0,
    async summarize(options: { signal: AbortSignal }) {
      const answer = answers[Math.min(summarizer.calls, answers.length - 1)]!;
      summarizer.calls += 1;
      if (answer === 'hang') return new Promise<string>((_, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason)));
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return summarizer;
}

test('projection masks old stored bodies first, keeps their refs, and leaves the newest step whole', async () => {
  const history = longRun(8);
  const result = await new DefaultHistoryCompactor().compact(request(history, { targetHistoryTokens: 16_000 }));
  assert.equal(result.changed, true);
  const masked = result.history.filter((message): message is ToolResultMessage => message.role === 'tool' && message.masked === true);
  assert.ok(masked.length >= 5);
  for (const message of masked) {
    assert.ok(message.content.includes(`ref="${message.outputRef!.id}"`));
    assert.ok(message.content.length < 800);
  }
  assert.equal(result.history.at(-1), history.at(-1), 'the newest step is untouched');
  assert.deepEqual(result.trace.compactedOutputRefs.map((ref) => ref.id), masked.map((message) => message.outputRef!.id));
  assert.ok(result.trace.estimatedTokensAfter! < result.trace.estimatedTokensBefore!);
  assert.equal(history[3]!.content.startsWith('result 1'), true, 'the input history is not mutated');
});

test('a result without a stored reference is never masked', async () => {
  const history = longRun(8).map((message) => (message.role === 'tool' ? { ...message, outputRef: undefined } : message));
  const result = await new DefaultHistoryCompactor().compact(request(history));
  assert.equal(result.changed, false);
  assert.equal(result.history, history);
});

test('when pressure remains, the oldest finished steps become one checkpoint; anchor and suffix stay', async () => {
  const summarizer = scripted(goodCheckpoint);
  const history: CanonicalMessage[] = [...longRun(30), { role: 'assistant', content: 'Found HAT001.' }];
  const result = await new DefaultHistoryCompactor({ summarizer }).compact(request(history, { targetHistoryTokens: 3_000 }));
  const checkpoint = result.history.find((message) => message.role === 'user' && message.checkpoint);
  assert.ok(checkpoint, 'a checkpoint was written');
  assert.match(checkpoint.content, /## Next step\n- ask the user to confirm\n/);
  assert.equal(result.history[0], history[0], 'leading system message stays first');
  assert.ok(result.history.includes(history[1]!), 'the task anchor stays');
  assert.equal(result.history.at(-1), history.at(-1));
  assert.ok(result.trace.summarizedMessages > 10);
  assert.equal(result.trace.summaryAttempts, 1);
  assert.ok(result.trace.checkpointTokens! < result.trace.summarySourceTokens!);
  assert.ok(result.trace.estimatedTokensAfter! < result.trace.estimatedTokensBefore!);
});

test('when nothing else is enough, the newest step body is masked too, its ref kept', async () => {
  const history = longRun(3);
  const result = await new DefaultHistoryCompactor().compact(request(history, { targetHistoryTokens: 500 }));
  const newest = result.history.at(-1) as ToolResultMessage;
  assert.equal(newest.masked, true);
  assert.equal(newest.outputRef, (history.at(-1) as ToolResultMessage).outputRef);
  assert.equal(newest.toolCallId, 'c3');
});

test('the newest step stays whole while it fits under the limit, even over the target', async () => {
  const history = longRun(3);
  const result = await new DefaultHistoryCompactor().compact(request(history, { targetHistoryTokens: 500, limitHistoryTokens: 50_000 }));
  assert.equal(result.history.at(-1), history.at(-1));
  assert.deepEqual(result.trace.compactedOutputRefs.map((ref) => ref.id), ['out_c1', 'out_c2']);
});

for (const [name, answers, reason] of [
  ['throws', [new Error('model unavailable')], /summarizer failed: model unavailable/],
  ['returns a checkpoint larger than its source', ['## Completed work\n' + 'x '.repeat(200_000)], /not smaller than its source/],
] as const) {
  test(`the summarizer ${name}: every attempt is rejected, the projection stands, the trace says why`, async () => {
    const summarizer = scripted(...answers);
    const history = longRun(30);
    const result = await new DefaultHistoryCompactor({ summarizer, summaryAttempts: 2 }).compact(request(history, { targetHistoryTokens: 3_000 }));
    assert.equal(summarizer.calls, 2);
    assert.equal(result.trace.summaryAttempts, 2);
    assert.equal(result.trace.summaryRejections.length, 2);
    assert.match(result.trace.summaryRejections[0]!.reason, reason);
    assert.ok(!result.history.some((message) => message.role === 'user' && message.checkpoint));
    assert.ok(result.trace.compactedOutputRefs.length > 0, 'the deterministic projection stands');
  });
}

test('the summarizer times out: the projection stands', async () => {
  const clock = manualTimers();
  const compacting = new DefaultHistoryCompactor({ summarizer: scripted('hang'), summaryAttempts: 1, summaryTimeoutMs: 60_000, timers: clock.timers }).compact(request(longRun(30), { targetHistoryTokens: 3_000 }));
  await clock.whenPending();
  assert.equal(clock.fire(60_000), 1, 'the summary timeout runs on the injected timers');
  const result = await compacting;
  assert.match(result.trace.summaryRejections[0]!.reason, /no checkpoint within 60000 ms/);
  assert.equal(clock.pending.size, 0);
  assert.ok(!result.history.some((message) => message.role === 'user' && message.checkpoint));
});

test('a retry after a rejected checkpoint is accepted', async () => {
  const summarizer = scripted(new Error('flaky'), goodCheckpoint);
  const result = await new DefaultHistoryCompactor({ summarizer }).compact(request(longRun(30), { targetHistoryTokens: 3_000 }));
  assert.equal(result.trace.summaryAttempts, 2);
  assert.equal(result.trace.summaryRejections.length, 1);
  assert.ok(result.history.some((message) => message.role === 'user' && message.checkpoint));
});

test('a forced pass never summarizes or masks an open call', async () => {
  const history = longRun(20);
  history.push({ role: 'assistant', content: 'checking', toolCalls: [{ id: 'open1', name: 'search_flights', input: {} }, { id: 'open2', name: 'search_flights', input: {} }] });
  history.push({ role: 'tool', toolCallId: 'open1', toolName: 'search_flights', content: bigResult, outputRef: { id: 'out_open1', chars: bigResult.length, lines: 201, bytes: bigResult.length } });
  const result = await new DefaultHistoryCompactor({ summarizer: scripted(goodCheckpoint) }).compact(request(history, { reason: 'forced', targetHistoryTokens: 1_000 }));
  assert.deepEqual(result.history.slice(-2), history.slice(-2));
});

test('message-count threshold triggers compaction and is reported as the reason', async () => {
  const compactor = new DefaultHistoryCompactor({ summarizer: scripted(goodCheckpoint), messageCountThreshold: 20 });
  const history = longRun(15);
  assert.equal(compactor.exceedsMessageCount(history), true);
  assert.equal(compactor.exceedsMessageCount(history.slice(0, 20)), false);
  const result = await compactor.compact(request(history, { reason: 'message-count', targetHistoryTokens: 100_000 }));
  assert.equal(result.trace.reason, 'message-count');
  assert.ok(result.history.length < history.length);
});

test('message-count: a history of short messages past the threshold is summarized below it', async () => {
  const history: CanonicalMessage[] = [];
  for (let index = 1; index <= 30; index += 1) history.push({ role: 'user', content: `question ${index}: is sample ${index} stable?` }, { role: 'assistant', content: `answer ${index}: yes, stable.` });
  const summarizer = scripted(goodCheckpoint);
  const compactor = new DefaultHistoryCompactor({ summarizer, messageCountThreshold: 50 });
  assert.equal(history.length, 60);
  const result = await compactor.compact(request(history, { reason: 'message-count', targetHistoryTokens: 100_000 }));
  assert.equal(summarizer.calls, 1);
  assert.ok(result.trace.summarizedMessages > 0, 'old messages were summarized');
  assert.equal(compactor.exceedsMessageCount(result.history), false, `${result.history.length} messages remain`);
  assert.deepEqual(result.history.slice(-2), history.slice(-2), 'the newest messages stay verbatim');
});

test('property: compaction never adds tokens, never loses an open unit, and is deterministic', async () => {
  await fc.assert(
    fc.asyncProperty(historyArbitrary({ open: true }), fc.integer({ min: 100, max: 6_000 }), fc.constantFrom('token-pressure', 'forced', 'message-count') as fc.Arbitrary<CompactionRequest['reason']>, async (raw, target, reason) => {
      const history = withRefs(raw);
      const compactor = () => new DefaultHistoryCompactor({ summarizer: scripted(goodCheckpoint), messageCountThreshold: 10 });
      const first = await compactor().compact(request(history, { targetHistoryTokens: target, reason }));
      const second = await compactor().compact(request(structuredClone(history), { targetHistoryTokens: target, reason }));
      assert.deepEqual(second.history, first.history, 'deterministic');
      const tokens = (messages: readonly CanonicalMessage[]) => messages.reduce((sum, message) => sum + estimator.countMessage(message), 0);
      assert.ok(tokens(first.history) <= tokens(history));
      for (const unit of buildHistoryUnits(history).filter((candidate) => candidate.pendingCallIds.length > 0)) {
        const start = first.history.indexOf(unit.messages[0]!);
        assert.ok(start >= 0, 'open unit kept');
        assert.deepEqual(first.history.slice(start, start + unit.messages.length), unit.messages);
      }
    }),
    { numRuns: 100 },
  );
});

test('round threshold: more model steps than it trigger message-count compaction, which summarizes below it', async () => {
  const compactor = new DefaultHistoryCompactor({ summarizer: scripted(goodCheckpoint), roundCountThreshold: 6 });
  const history = longRun(15);
  const rounds = (messages: readonly CanonicalMessage[]) => messages.filter((message) => message.role === 'assistant').length;
  assert.ok(rounds(history) > 6);
  assert.equal(compactor.exceedsMessageCount(history), true);
  const result = await compactor.compact(request(history, { reason: 'message-count', targetHistoryTokens: 100_000 }));
  assert.ok(rounds(result.history) <= 6, `${rounds(result.history)} rounds remain`);
  assert.equal(compactor.exceedsMessageCount(result.history), false);
});

test('under pressure a body is projected only where its preview saves at least half its tokens; a forced pass projects it anyway', async () => {
  // A body just over the preview floor: its preview keeps most of its tokens.
  const modest = 'line of output, ordinary words\n'.repeat(17);
  const history = longRun(6);
  history.splice(4, 0, { role: 'assistant', content: 'look', toolCalls: [{ id: 'm', name: 'shell', input: {} }] }, withRefs([{ role: 'tool', toolCallId: 'm', toolName: 'shell', content: modest }])[0]!);
  const preview = (await new DefaultHistoryCompactor({ maxPreviewShare: 1 }).compact(request(history, { targetHistoryTokens: 1_000 }))).history[5] as ToolResultMessage;
  assert.equal(preview.masked, true, 'with maxPreviewShare 1 every body with a smaller preview is projected');
  assert.ok(estimator.countMessage(preview) > estimator.countMessage(history[5]!) * 0.5, 'this preview keeps more than half the tokens');

  const underPressure = await new DefaultHistoryCompactor().compact(request(history, { targetHistoryTokens: 1_000 }));
  assert.equal(underPressure.history[5], history[5], 'kept whole: projecting it would rewrite the cache after it for a small saving');
  assert.equal((underPressure.history[3] as ToolResultMessage).masked, true, 'a big body before it is still projected');
  const forced = await new DefaultHistoryCompactor().compact(request(history, { targetHistoryTokens: 1_000, reason: 'forced' }));
  assert.equal((forced.history[5] as ToolResultMessage).masked, true, 'a forced pass projects every body');

  for (const maxPreviewShare of [0, -0.5, 1.5, Number.NaN, '0.5']) {
    assert.throws(() => new DefaultHistoryCompactor({ maxPreviewShare: maxPreviewShare as never }), (error: unknown) => error instanceof Error && error.name === 'ConfigurationError');
  }
});
