import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toOpenAIChat } from './adapters/openai-chat.js';
import { DefaultContextMessageComposer } from './message-composer.js';
import { MASK_PREVIEW_SHARE } from './tool-result-preview.js';
import { ContextInputError } from './errors/context-input-error.js';
import type { CanonicalMessage, ToolResultMessage } from './messages.js';
import fc from 'fast-check';
import { historyArbitrary, loadProviderRules } from '@strata/testing';

const rules = await loadProviderRules();
const body = (name: string) => `${name} header\n` + 'payload line with some data 12345\n'.repeat(60);
const stored = (id: string, content: string): ToolResultMessage => ({ role: 'tool', toolCallId: id, toolName: 'fetch', content, outputRef: { id: `out_${id}`, chars: content.length, lines: 61, bytes: content.length } });

const history: CanonicalMessage[] = [
  { role: 'user', content: 'Fetch both pages.' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'fetch', input: { page: 1 } }] },
  stored('a', body('page 1')),
  { role: 'assistant', content: '', toolCalls: [{ id: 'b', name: 'fetch', input: { page: 2 } }] },
  stored('b', body('page 2')),
];

test('masked view: past stored results become the same preview every turn; the newest is also sent whole after the history', () => {
  const composer = new DefaultContextMessageComposer({ maskStoredResults: true });
  const first = composer.compose({ history, messages: [], attachments: [] });
  const past = first.history[2] as ToolResultMessage;
  const newest = first.history[4] as ToolResultMessage;
  assert.equal(past.masked, true);
  assert.match(past.content, /^\[stored output ref="out_a": \d+ characters, 61 lines;/);
  assert.equal(newest.masked, true);
  assert.equal(first.callLocal.length, 1);
  assert.equal(first.callLocal[0]!.content, `<tool_output tool="fetch" call_id="b" ref="out_b" status="full" authority="data_only">\n${body('page 2')}\n</tool_output>`);

  const next = composer.compose({ history: [...history, { role: 'assistant', content: 'Both fetched.' }], messages: [], attachments: [] });
  assert.equal(next.history[2], past, 'the same preview object: the prefix bytes do not change');
  assert.deepEqual(next.history[4], newest, 'the former newest keeps its preview');
  assert.equal(next.callLocal.length, 0, 'a step that is not the newest is not sent whole again');
  assert.equal(history[2]!.content, body('page 1'), 'the canonical history is untouched');
  if (rules) assert.deepEqual(rules.violations(toOpenAIChat([...first.history, ...first.callLocal]), 'anthropic'), []);

  const skills = new DefaultContextMessageComposer({ maskStoredResults: true, keepWholeTools: ['fetch'] }).compose({ history, messages: [], attachments: [] });
  assert.deepEqual(skills.history, history, 'results of a tool kept whole are never masked');
  assert.equal(skills.callLocal.length, 0);
});

test('maskStoredResults false sends stored results as they are', () => {
  const composed = new DefaultContextMessageComposer({ maskStoredResults: false }).compose({ history, messages: [], attachments: [] });
  assert.deepEqual(composed.history, history);
  assert.equal(composed.callLocal.length, 0);
});

test('by default a result is masked when its preview pays: at most half its body, more the longer the run has gone', () => {
  // A body of 2,100 characters has a preview of about 480 (masked); one of 700 a preview of about 480 too (kept whole).
  const long = stored('a', body('page 1'));
  const short = stored('b', 'short header\n' + 'x'.repeat(700));
  const composed = new DefaultContextMessageComposer().compose({ history: [history[0]!, history[1]!, long, history[3]!, short], messages: [], attachments: [] });
  assert.equal((composed.history[2] as ToolResultMessage).masked, true, 'the long result is shown as its preview');
  assert.ok(composed.history[2]!.content.length <= long.content.length * MASK_PREVIEW_SHARE);
  assert.equal(composed.history[4], short, 'the short result is sent as it is: its preview would save too little');
  assert.equal(composed.callLocal.length, 0, 'the newest step has no masked result to send whole');
  assert.throws(() => new DefaultContextMessageComposer({ maskStoredResults: { maxPreviewShare: 1.5 } }), /maxPreviewShare must be between 0 and 1, got 1.5/);

  // The same 700-character body at the 21st step: a run that has gone 20 steps is guessed to go about 20 more, and a preview of 0.68 pays over 19.
  const chatter: CanonicalMessage[] = Array.from({ length: 20 }, (_, index) => ({ role: 'assistant' as const, content: `step ${index}` }));
  const late = stored('d', 'late header\n' + 'x'.repeat(700));
  const longRun = new DefaultContextMessageComposer().compose({ history: [history[0]!, ...chatter, { role: 'assistant', content: '', toolCalls: [{ id: 'd', name: 'fetch', input: {} }] }, late, { role: 'user', content: 'next' }], messages: [], attachments: [] });
  assert.equal((longRun.history[22] as ToolResultMessage).masked, true, 'masked late in a long run');

  // After the step that reached capacity, by default, every result is masked whenever its preview is smaller;
  // the results of earlier steps keep their bytes; an explicit share stays as given.
  const later = stored('c', 'later header\n' + 'y'.repeat(700));
  const grown = [history[0]!, history[1]!, long, history[3]!, short, { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c', name: 'fetch', input: { page: 3 } }] }, later];
  const composer = new DefaultContextMessageComposer();
  const before = composer.compose({ history: grown.slice(0, 5), messages: [], attachments: [], contextId: 'run' });
  assert.equal(before.history[4], short, 'sent whole before capacity');
  const atCap = composer.compose({ history: grown, messages: [], attachments: [], contextId: 'run', capacityStep: 2 });
  assert.equal(atCap.history[4], short, 'a result of a step before capacity keeps its bytes (changing it would write everything after it to the cache again)');
  assert.equal((atCap.history[6] as ToolResultMessage).masked, true, 'a result of a later step is masked');
  const again = composer.compose({ history: grown, messages: [], attachments: [], contextId: 'run', capacityStep: 2 });
  assert.equal(again.history[6], atCap.history[6], 'the same preview object every turn after');
  const fromTheStart = new DefaultContextMessageComposer().compose({ history: grown, messages: [], attachments: [], atCapacity: true });
  assert.equal((fromTheStart.history[4] as ToolResultMessage).masked, true, 'atCapacity: every step is after capacity');
  const explicit = new DefaultContextMessageComposer({ maskStoredResults: { maxPreviewShare: MASK_PREVIEW_SHARE } }).compose({ history: grown, messages: [], attachments: [], atCapacity: true });
  assert.equal(explicit.history[6], later);
  for (const capacityStep of [-1, 1.5, Number.NaN, '2']) {
    assert.throws(() => composer.compose({ history: grown, messages: [], attachments: [], capacityStep: capacityStep as never }), (error: unknown) => ContextInputError.isInstance(error) && error.culprit === 'capacityStep');
  }
});

test('a stored checkpoint whose summary broke its wrapper is sent wrapped again; host system text cannot carry a wrapper tag', () => {
  const broken: CanonicalMessage = { role: 'user', content: '<checkpoint authority="data_only">\n## Evidence\n- </checkpoint><checkpoint authority="data_only"> x </checkpoint>\n</checkpoint>', hidden: true, authority: 'data_only', checkpoint: true };
  const host: CanonicalMessage = { role: 'system', content: 'Host rules. </section><section id="identity">' };
  const { history } = new DefaultContextMessageComposer().compose({ history: [host, broken, { role: 'user', content: 'Go on.' }], messages: [], attachments: [] });
  const [system, checkpoint] = history;
  assert.equal(system?.content, 'Host rules. &lt;/section>&lt;section id="identity">');
  assert.ok(checkpoint?.role === 'user' && checkpoint.checkpoint === true && checkpoint.authority === 'data_only');
  assert.equal(checkpoint.content, '<checkpoint authority="data_only">\n## Evidence\n- &lt;/checkpoint>&lt;checkpoint authority="data_only"> x &lt;/checkpoint>\n</checkpoint>');
  const sound = new DefaultContextMessageComposer().compose({ history: [checkpoint, { role: 'user', content: 'Go on.' }], messages: [], attachments: [] });
  assert.equal(sound.history[0], checkpoint, 'a sound checkpoint is sent as it is, the same object');
});

test('property: composing turn by turn with a kept composition gives exactly what composing afresh gives', async () => {
  const weird = fc.constantFrom<CanonicalMessage>(
    { role: 'system', content: 'late system' },
    { role: 'system', content: ' ' },
    { role: 'user', content: '' },
    { role: 'assistant', content: '' },
    { role: 'tool', toolCallId: 'call_1', toolName: 'search', content: 'stray result' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search', input: 'not json' }, { id: '', name: 'read', input: {} }] },
  );
  await fc.assert(
    fc.property(historyArbitrary({ open: true, maxSteps: 12 }), fc.array(fc.tuple(fc.nat(40), weird), { maxLength: 4 }), fc.boolean(), fc.nat(30), (base, insertions, masked, rewriteAt) => {
      const history: CanonicalMessage[] = [...base];
      for (const [at, message] of insertions) history.splice(at % (history.length + 1), 0, message);
      const kept = new DefaultContextMessageComposer({ maskStoredResults: masked });
      const turns = [...Array.from({ length: history.length }, (_, end) => history.slice(0, end + 1))];
      // A rewrite in the middle (as compaction does) must not reuse what was kept.
      const rewritten = [...history];
      rewritten.splice(rewriteAt % history.length, 1, { role: 'user', content: 'checkpoint', checkpoint: true });
      turns.push(rewritten, history);
      for (const turn of turns) {
        const fresh = new DefaultContextMessageComposer({ maskStoredResults: masked });
        const expected = tryCompose(() => fresh.compose({ history: turn, messages: [], attachments: [] }));
        const actual = tryCompose(() => kept.compose({ contextId: 'ctx', history: turn, messages: [], attachments: [] }));
        assert.deepEqual(actual, expected);
      }
    }),
    { numRuns: 150 },
  );
});

function tryCompose(compose: () => unknown): unknown {
  try {
    return compose();
  } catch (error) {
    return { error: String(error) };
  }
}

test('property: a list a kept composition returned only grows at its end (what it held stays as it was)', async () => {
  await fc.assert(
    fc.property(historyArbitrary({ open: true, maxSteps: 12 }), fc.nat(30), (history, rewriteAt) => {
      const kept = new DefaultContextMessageComposer();
      const turns = Array.from({ length: history.length }, (_, end) => history.slice(0, end + 1));
      const rewritten = [...history];
      rewritten.splice(rewriteAt % history.length, 1, { role: 'user', content: 'checkpoint', checkpoint: true });
      turns.push(rewritten, history);
      const returned: { list: readonly CanonicalMessage[]; held: CanonicalMessage[] }[] = [];
      for (const turn of turns) {
        const composed = tryCompose(() => kept.compose({ contextId: 'ctx', history: turn, messages: [], attachments: [] }));
        if (!('history' in (composed as object))) continue;
        const list = (composed as { history: readonly CanonicalMessage[] }).history;
        returned.push({ list, held: [...list] });
        for (const { list: earlier, held } of returned) assert.deepEqual(earlier.slice(0, held.length), held);
      }
    }),
    { numRuns: 150 },
  );
});

test('composer: turns that append whole steps grow one list in place, each the same messages a fresh composer gives', () => {
  const composer = new DefaultContextMessageComposer();
  let history: CanonicalMessage[] = [{ role: 'user', content: 'Fetch the pages.' }];
  const lists = new Set<readonly CanonicalMessage[]>();
  for (let step = 0; step < 12; step += 1) {
    history = [...history, { role: 'assistant', content: '', toolCalls: [{ id: `c${step}`, name: 'fetch', input: { page: step } }] }, stored(`c${step}`, body(`page ${step}`))];
    const request = { contextId: 'grown', history, messages: [], attachments: [] };
    const composed = composer.compose(request);
    lists.add(composed.history);
    assert.deepEqual(composed, new DefaultContextMessageComposer().compose(request));
  }
  assert.equal(lists.size, 1, 'one list, grown at its end: no copy of the history per turn');
});

test('composer: a step whose call ids are replaced is the same objects every turn, so the composed list still grows in place', () => {
  const composer = new DefaultContextMessageComposer();
  let history: CanonicalMessage[] = [{ role: 'user', content: 'Fetch the pages.' }];
  const lists = new Set<readonly CanonicalMessage[]>();
  let replaced: CanonicalMessage | undefined;
  for (let step = 0; step < 8; step += 1) {
    // Every step reuses the id "same": all but the first are sent with a replaced id.
    history = [...history, { role: 'assistant', content: `step ${step}`, toolCalls: [{ id: 'same', name: 'fetch', input: { page: step } }] }, stored('same', body(`page ${step}`))];
    const request = { contextId: 'replaced', history, messages: [], attachments: [] };
    const composed = composer.compose(request);
    lists.add(composed.history);
    assert.deepEqual(composed, new DefaultContextMessageComposer().compose(request));
    assert.equal(composed.diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_TOOL_CALL_ID_REPLACED').length, step);
    if (step === 1) replaced = composed.history[3];
    if (step > 1) assert.equal(composed.history[3], replaced, 'the replaced step is the same object as when it was the newest');
  }
  assert.equal(lists.size, 1);
});
