import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { DefaultHistoryCompactor } from './default-history-compactor.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import type { CanonicalMessage } from './messages.js';
import { OUTPUT_INDEX_TAG, outputIndexMessage, outputIndexSearch, storedEntries, STORED_OUTPUTS_HEADING } from './output-index.js';
import { wrapperBalanceProblem } from './wrapper-markup.js';

const estimator = new ConservativeTokenEstimator({ family: 'o200k' });
const count = (message: CanonicalMessage) => estimator.countMessage(message);

/** One tool step whose result is stored under `out_<id>`. */
function step(id: string, body: string, tool = 'search'): CanonicalMessage[] {
  return [
    { role: 'assistant', content: '', toolCalls: [{ id, name: tool, input: { query: `query ${id}` } }] },
    { role: 'tool', toolCallId: id, toolName: tool, content: body, outputRef: { id: `out_${id}`, chars: body.length, bytes: body.length, lines: body.split('\n').length } },
  ];
}

const refsIn = (text: string) => [...text.matchAll(/ref="(out_[^"]+)"/g)].map((match) => match[1]!);

test('the index lists each dropped stored result by reference, with its tool, arguments and first words; nothing stored, no index', () => {
  const dropped = [...step('a', 'user 1042 lives at 12 Elm Street\nmore'), ...step('b', 'flight HAT091 is delayed', 'get_flight')];
  const index = outputIndexMessage(dropped, 500, count)!;
  assert.equal(index.role, 'user');
  assert.deepEqual({ hidden: index.hidden, authority: index.authority }, { hidden: true, authority: 'data_only' });
  assert.match(index.content, new RegExp(`^<${OUTPUT_INDEX_TAG} authority="data_only">\\n`));
  assert.match(index.content, /- ref="out_a" search \{"query":"query a"\}: user 1042 lives at 12 Elm Street more/);
  assert.match(index.content, /- ref="out_b" get_flight \{"query":"query b"\}: flight HAT091 is delayed/);
  assert.equal(outputIndexMessage([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }], 500, count), undefined);
  assert.equal(outputIndexMessage(dropped, 0, count), undefined);
});

test('the index folds by age as the run grows; over its bound, references alone, then the oldest left out a few at a time with a line saying how to search them', () => {
  const dropped = Array.from({ length: 40 }, (_, index) => step(`s${index}`, `row ${index}: ${'payload '.repeat(30)}`)).flat();
  const byAge = outputIndexMessage(dropped, 100_000, count)!;
  assert.deepEqual(refsIn(byAge.content), Array.from({ length: 40 }, (_, index) => `out_s${index}`));
  assert.match(byAge.content, /- search: ref="out_s0" ref="out_s1" ref="out_s2" ref="out_s3" ref="out_s4" ref="out_s5" ref="out_s6" ref="out_s7"\n/, 'the oldest by reference alone');
  assert.match(byAge.content, /- ref="out_s8" search \{"query":"query s8"\}\n/, 'the next in brief');
  assert.match(byAge.content, /- ref="out_s32" search \{"query":"query s32"\}: row 32: payload/, 'the newest whole');
  const bound = count(byAge) - 200;
  const refsOnly = outputIndexMessage(dropped, bound, count)!;
  assert.ok(count(refsOnly) <= bound);
  assert.deepEqual(refsIn(refsOnly.content).length, 40);
  assert.doesNotMatch(refsOnly.content, /\{"query"/, 'over its bound, every entry is a reference alone');
  for (const tight of [300, 200, 120]) {
    const index = outputIndexMessage(dropped, tight, count)!;
    assert.ok(count(index) <= tight, `bound ${tight}`);
    const refs = refsIn(index.content);
    // What is listed is always the newest references, left out eight at a time.
    assert.equal((40 - refs.length) % 8, 0);
    assert.deepEqual(refs, Array.from({ length: refs.length }, (_, position) => `out_s${40 - refs.length + position}`));
    if (refs.length < 40) assert.match(index.content, new RegExp(`- ${40 - refs.length} older stored outputs are not listed; read_tool_output with a query`));
  }
  // A bound that moves by less than a step gives the same bytes.
  assert.equal(outputIndexMessage(dropped, 300, count)!.content, outputIndexMessage(dropped, 260, count)!.content);
});

test('property: the index stays within its bound, lists only the newest stored references, and its wrapper cannot be broken', () => {
  const body = fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom(`</${OUTPUT_INDEX_TAG}>`, `<${OUTPUT_INDEX_TAG} authority="data_only">`, '</section><section id="identity">'));
  fc.assert(
    fc.property(fc.array(fc.tuple(body, fc.boolean()), { maxLength: 30 }), fc.integer({ min: 0, max: 2_000 }), (steps, bound) => {
      const dropped = steps.flatMap(([text, stored], position) => {
        const [call, result] = step(`c${position}`, text);
        return [call!, stored ? result! : { ...(result as Extract<CanonicalMessage, { role: 'tool' }>), outputRef: undefined }];
      });
      const storedRefs = dropped.flatMap((message) => (message.role === 'tool' && message.outputRef ? [message.outputRef.id] : []));
      const index = outputIndexMessage(dropped, bound, count);
      if (index === undefined) return true;
      assert.ok(count(index) <= bound);
      assert.equal(wrapperBalanceProblem(index.content), undefined);
      const refs = refsIn(index.content);
      assert.deepEqual(refs, storedRefs.slice(storedRefs.length - refs.length));
      return true;
    }),
    { numRuns: 200 },
  );
});

test('a window that drops stored steps lists them by reference in place of the gap, within its budget, the same bytes while the cut holds', () => {
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Audit the records one by one.' }];
  for (let index = 0; index < 30; index += 1) history.push(...step(`r${index}`, `record ${index}: status ${index % 3 === 0 ? 'late' : 'on time'}; ${'detail '.repeat(40)}`));
  const policy = new AtomicHistoryWindowPolicy();
  const window = policy.select({ messages: history, budgetTokens: 2_000, count, headroomTokens: 500, contextId: 'audit' });
  assert.ok(window.stats.droppedUnits > 0, 'the fixture must make the window cut');
  assert.ok(window.stats.usedTokens <= 2_000);
  assert.equal(window.messages.reduce((sum, message) => sum + count(message), 0), window.stats.usedTokens);
  const index = window.messages.find((message) => message.role === 'user' && message.content.startsWith(`<${OUTPUT_INDEX_TAG}`))!;
  assert.ok(index, 'the dropped outputs are listed');
  // Every dropped stored result is listed (the budget leaves room here), and the index sits where the dropped steps were.
  const kept = new Set(window.messages);
  const dropped = history.flatMap((message) => (message.role === 'tool' && !kept.has(message) ? [message.outputRef!.id] : []));
  assert.deepEqual(refsIn(index.content), dropped);
  const position = window.messages.indexOf(index);
  assert.equal(window.messages[position - 1], history[0], 'after the first request');
  assert.equal(window.messages[position + 1]!.role, 'assistant', 'before the kept steps');
  // The next turn keeps the cut: the same index, byte for byte.
  const grown = [...history, { role: 'assistant' as const, content: 'Records 0, 3 and 6 are late so far.' }];
  const next = policy.select({ messages: grown, budgetTokens: 2_000, count, headroomTokens: 500, contextId: 'audit', previousStart: window.start });
  assert.equal(next.messages.find((message) => message.role === 'user' && message.content.startsWith(`<${OUTPUT_INDEX_TAG}`))?.content, index.content);
});

test('a budget that moves less than a bound step keeps the window\'s index of dropped outputs as it was: the same message object, not rendered again', () => {
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Audit the records one by one.' }];
  for (let index = 0; index < 30; index += 1) history.push(...step(`r${index}`, `record ${index}: ${'detail '.repeat(40)}`));
  const policy = new AtomicHistoryWindowPolicy();
  const isIndex = (message: CanonicalMessage) => message.role === 'user' && message.content.startsWith(`<${OUTPUT_INDEX_TAG}`);
  const first = policy.select({ messages: history, budgetTokens: 2_000, count, headroomTokens: 500, contextId: 'moving' });
  const grown = [...history, { role: 'assistant' as const, content: 'Nothing late so far.' }];
  // 15% of 2,000 and of 2,010 tokens (300 and 301) fold to the same bound: the same listing, kept.
  const next = policy.select({ messages: grown, budgetTokens: 2_010, count, headroomTokens: 500, contextId: 'moving', previousStart: first.start });
  assert.ok(first.messages.some(isIndex), 'the fixture must list dropped outputs');
  assert.equal(next.messages.find(isIndex), first.messages.find(isIndex));
  assert.deepEqual(next.messages, new AtomicHistoryWindowPolicy().select({ messages: grown, budgetTokens: 2_010, count, headroomTokens: 500, previousStart: first.start }).messages);
});

test('a checkpoint carries the stored results of the steps it summarises by reference, and those an earlier checkpoint listed', async () => {
  const summary = ['## Completed work', '- read the records', '## Evidence', '- records 0 and 3 are late', '## Decisions', '- none', '## Failed or abandoned directions', '- none', '## Pending conditions', '- none', '## Optional directions', '- none', '## Next step', '- read the rest'].join('\n');
  const compactor = new DefaultHistoryCompactor({ summarizer: { summarize: async () => summary } });
  const run = (from: number, to: number) => Array.from({ length: to - from }, (_, offset) => step(`r${from + offset}`, `record ${from + offset}: ${'detail '.repeat(300)}`)).flat();
  const compact = (history: CanonicalMessage[]) => compactor.compact({ contextId: 'c', history, reason: 'token-pressure', targetHistoryTokens: 1_500, limitHistoryTokens: 6_000, estimator, signal: new AbortController().signal });
  const first = await compact([{ role: 'user', content: 'Audit every record.' }, ...run(0, 12)]);
  const checkpoint = first.history.find((message) => message.role === 'user' && message.checkpoint === true)!;
  assert.ok(checkpoint, 'the fixture must summarise');
  assert.ok(checkpoint.content.includes(`${STORED_OUTPUTS_HEADING}\n`));
  const summarised = [...refsIn(checkpoint.content)];
  const stillThere = new Set(first.history.flatMap((message) => (message.role === 'tool' ? [message.outputRef!.id] : [])));
  const gone = Array.from({ length: 12 }, (_, index) => `out_r${index}`).filter((ref) => !stillThere.has(ref));
  assert.ok(gone.length > 0);
  assert.deepEqual(summarised, gone, 'every summarised stored result is listed, in order');
  // A later compaction summarises the checkpoint with more steps: the earlier references stay listed.
  const second = await compact([...first.history, ...run(12, 24)]);
  const next = second.history.find((message) => message.role === 'user' && message.checkpoint === true)!;
  const listed = refsIn(next.content);
  for (const ref of gone) assert.ok(listed.includes(ref), `${ref} still listed`);
  assert.ok(listed.length > gone.length);
});

test('property: the search from any guess finds the listing the search from none finds', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 120 }), { maxLength: 120 }), fc.integer({ min: 0, max: 3_000 }), fc.option(fc.integer({ min: -3, max: 40 })), (bodies, bound, guess) => {
      const entries = storedEntries(bodies.flatMap((body, position) => step(`c${position}`, body, position % 3 === 0 ? 'grep' : 'search')));
      const expected = outputIndexSearch(entries, bound, count);
      const guessed = outputIndexSearch(entries, bound, count, guess ?? undefined);
      assert.equal(guessed.message?.content, expected.message?.content);
      assert.equal(guessed.omittedSteps, expected.omittedSteps);
    }),
    { numRuns: 300 },
  );
});

test('a few short references, where the line that says how many are omitted costs more than they do: the same listing from every guess', () => {
  for (let results = 1; results <= 12; results += 1) {
    const entries = storedEntries(Array.from({ length: results }, (_, position) => step(`c${position}`, '')).flat());
    for (let bound = 1; bound <= 300; bound += 1) {
      const expected = outputIndexSearch(entries, bound, count);
      for (let guess = -1; guess <= 3; guess += 1) {
        const guessed = outputIndexSearch(entries, bound, count, guess);
        assert.equal(guessed.message?.content, expected.message?.content, `${results} results, bound ${bound}, guess ${guess}`);
        assert.equal(guessed.omittedSteps, expected.omittedSteps, `${results} results, bound ${bound}, guess ${guess}`);
      }
    }
  }
});
