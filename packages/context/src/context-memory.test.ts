import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ContextMemory } from './context-memory.js';
import { recordSharedPrefix, sharedPrefixLength } from './shared-prefix.js';
import { DefaultContextMessageComposer } from './message-composer.js';
import type { CanonicalMessage, ToolResultMessage } from './messages.js';

/** What two lists share from their start, walked from 0: the answer the facts must not change. */
function walked(previous: readonly unknown[], next: readonly unknown[]): number {
  let index = 0;
  while (index < Math.min(previous.length, next.length) && previous[index] === next[index]) index += 1;
  return index;
}

/** A step of a generated lineage: a list made from an earlier one by appending, replacing one entry, or cutting its end. */
const edit = fc.record({ from: fc.nat(), kind: fc.constantFrom('append', 'replace', 'cut'), at: fc.nat(), record: fc.boolean() });

test('sharedPrefixLength: over lists made from one another (appended, edited, cut, facts recorded or not), the same answer as a walk from the start', () => {
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 40 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 30 }), (edits, questions) => {
      const lists: unknown[][] = [Array.from({ length: 12 }, (_, index) => ({ index }))];
      for (const step of edits) {
        const base = lists[step.from % lists.length]!;
        const made = [...base];
        let shared = base.length;
        if (step.kind === 'append') made.push({ appended: lists.length });
        else if (step.kind === 'replace' && made.length > 0) {
          shared = step.at % made.length;
          made[shared] = { replaced: lists.length };
        } else if (step.kind === 'cut') made.length = shared = step.at % (made.length + 1);
        // The maker's fact, a lower bound of what it knows (sound), when it records one.
        if (step.record) recordSharedPrefix(base, made, Math.floor(shared / 2) + Math.ceil(shared / 2) * Number(step.at % 2 === 0));
        lists.push(made);
      }
      for (const [left, right] of questions) {
        const previous = lists[left % lists.length]!;
        const next = lists[right % lists.length]!;
        assert.equal(sharedPrefixLength(previous, next), walked(previous, next));
      }
    }),
    { numRuns: 300 },
  );
});

test('sharedPrefixLength: a list made from another by a recorded fact is compared from where they differ, not from the start', () => {
  const base = Array.from({ length: 1_000 }, (_, index) => ({ index }));
  const made = [...base, { index: 1_000 }];
  let reads = 0;
  // Counts the entries read from the base: with the fact, the walk starts at its end.
  const watched = new Proxy(base, { get: (target, key, receiver) => ((typeof key === 'string' && /^\d+$/.test(key) ? (reads += 1) : 0), Reflect.get(target, key, receiver)) });
  recordSharedPrefix(watched, made, base.length);
  assert.equal(sharedPrefixLength(watched, made), 1_000);
  assert.equal(reads, 0);
});

test('sharedPrefixLength: a fact holds no reference to the list it names (an older history is collected)', { skip: typeof globalThis.gc !== 'function' && 'run with --expose-gc' }, async () => {
  const made: unknown[] = [];
  let collected = false;
  const registry = new FinalizationRegistry(() => (collected = true));
  (() => {
    const base = Array.from({ length: 10 }, (_, index) => ({ index }));
    made.push(...base, { index: 10 });
    recordSharedPrefix(base, made, base.length);
    registry.register(base, 'base');
  })();
  for (let round = 0; round < 10 && !collected; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    globalThis.gc!();
  }
  assert.equal(collected, true);
});

const body = (name: string) => `${name} header\n` + 'payload line with some data 12345\n'.repeat(60);
const stored = (id: string): ToolResultMessage => ({ role: 'tool', toolCallId: id, toolName: 'fetch', content: body(id), outputRef: { id: `out_${id}`, chars: 2_000, lines: 61, bytes: 2_000 } });

test('composer: the same history composed again gives the same list (an exact recount walks nothing), and what a fresh composer gives', () => {
  const composer = new DefaultContextMessageComposer();
  let history: CanonicalMessage[] = [{ role: 'user', content: 'Fetch the pages.' }];
  for (let step = 0; step < 12; step += 1) {
    history = [...history, { role: 'assistant', content: '', toolCalls: [{ id: `c${step}`, name: 'fetch', input: { page: step } }] }, stored(`c${step}`)];
    const request = { contextId: 'same', history, messages: [], attachments: [], capacityStep: 3 };
    const first = composer.compose(request);
    const again = composer.compose(request);
    assert.equal(again.history, first.history);
    assert.deepEqual(again, first);
    assert.deepEqual(new DefaultContextMessageComposer().compose(request), first);
    // The composed list records what it shares with the last one: the next comparison starts there.
    const shrunk = composer.compose({ ...request, shrinkNewestStep: true });
    assert.deepEqual(shrunk, new DefaultContextMessageComposer().compose({ ...request, shrinkNewestStep: true }));
  }
});

test('ContextMemory.check: an appended history grows one list in place; any other change, or a malformed message, leaves every list it returned as it was', () => {
  const memory = new ContextMemory();
  const caller: CanonicalMessage[] = [{ role: 'user', content: 'Start.' }];
  const returned: { list: readonly CanonicalMessage[]; held: CanonicalMessage[] }[] = [];
  const check = (history: unknown) => {
    const list = memory.check(history);
    returned.push({ list, held: [...list] });
    for (const { list: earlier, held } of returned) assert.deepEqual(earlier.slice(0, held.length), held, 'a list returned once only grows at its end');
    return list;
  };
  const first = check(caller);
  assert.notEqual(first, caller, 'the memory\'s own list, never the caller\'s array');
  for (let turn = 1; turn <= 5; turn += 1) {
    caller.push({ role: 'assistant', content: `step ${turn}` }, { role: 'user', content: `next ${turn}` });
    assert.equal(check(caller), first, 'appended: the same list, grown');
    assert.deepEqual(first, caller);
  }
  assert.throws(() => memory.check([...caller, { role: 'robot', content: 'x' }]));
  assert.equal(check([...caller, { role: 'assistant', content: 'after the error' }]), first, 'a rejected history changed nothing');
  const edited = [...first];
  edited[3] = { role: 'assistant', content: 'rewritten' };
  const changed = check(edited);
  assert.notEqual(changed, first, 'a change before the end: a new list');
  assert.deepEqual(changed, edited);
  assert.equal(sharedPrefixLength(first, changed), 3);
});

test('ContextMemory.adopt: a compacted history taken as the list last checked is grown in place by the next check; a frozen or malformed one is not taken', () => {
  const memory = new ContextMemory();
  const checked = memory.check([{ role: 'user', content: 'Start.' }, { role: 'assistant', content: 'Working.' }]);
  const compacted: CanonicalMessage[] = [checked[0]!, { role: 'user', content: 'summary', checkpoint: true, hidden: true, authority: 'data_only' }];
  memory.adopt(compacted);
  const next = memory.check([...compacted, { role: 'assistant', content: 'Next.' }]);
  assert.equal(next, compacted, 'the adopted list, grown');
  assert.equal(next.length, 3);
  const frozen = Object.freeze([next[0]!]);
  memory.adopt(frozen);
  assert.notEqual(memory.check([...frozen, { role: 'assistant', content: 'After.' }]), frozen, 'a frozen list is never grown');
  const malformed = [next[0]!, { role: 'robot', content: 'x' }] as unknown as CanonicalMessage[];
  memory.adopt(malformed);
  assert.throws(() => memory.check(malformed), 'a malformed list is checked again, and fails, on the next turn');
});
