import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sourceKeyId } from './context-block.js';
import { SourceKeyOrder } from './source-key-order.js';

function group(blockName: string, source: string) {
  return { keyId: sourceKeyId({ blockName, source }), blockName, source };
}

const label = (each: ReturnType<typeof group>) => `${each.blockName}/${each.source}`;

test('sorted() lists live keys by block name, then source, in code-unit order', () => {
  const order = new SourceKeyOrder<ReturnType<typeof group>>();
  const groups = [group('memory', 'z'), group('mem', 'b'), group('memory', 'a'), group('Zeta', 'a'), group('mem', 'a')];
  groups.forEach((each) => order.insert(each));
  const first = order.sorted();
  assert.deepEqual(first.map(label), ['Zeta/a', 'mem/a', 'mem/b', 'memory/a', 'memory/z']);
  order.delete(groups[1]!);
  order.insert(group('n', 'a'));
  assert.deepEqual(order.sorted().map(label), ['Zeta/a', 'mem/a', 'memory/a', 'memory/z', 'n/a']);
  // A returned array is never changed by later folds.
  assert.deepEqual(first.map(label), ['Zeta/a', 'mem/a', 'mem/b', 'memory/a', 'memory/z']);
});

test('a key deleted before any fold never appears', () => {
  const order = new SourceKeyOrder<ReturnType<typeof group>>();
  const gone = group('a', 'a');
  order.insert(gone);
  order.insert(group('b', 'b'));
  order.delete(gone);
  assert.deepEqual(order.sorted().map(label), ['b/b']);
});

test('queued changes fold by themselves when nothing reads the order', () => {
  const order = new SourceKeyOrder<ReturnType<typeof group>>();
  // Register-and-expire cycles with no resolve: the queues must not keep every dead key.
  for (let index = 0; index < 5_000; index += 1) {
    const each = group(`k${index}`, 's');
    order.insert(each);
    order.delete(each);
  }
  order.insert(group('live', 's'));
  assert.deepEqual(order.sorted().map(label), ['live/s']);
});

test('the order equals a plain (block name, source) sort after any inserts and deletes', () => {
  const name = fc.string({ unit: fc.constantFrom('a', 'b', 'A', '_', '-', '.'), minLength: 1, maxLength: 4 });
  const source = fc.string({ minLength: 1, maxLength: 4 });
  const steps = fc.array(fc.tuple(fc.uniqueArray(fc.tuple(name, source), { selector: ([blockName, sourceName]) => sourceKeyId({ blockName, source: sourceName }) }), fc.boolean()), { maxLength: 6 });
  fc.assert(
    fc.property(steps, (batches) => {
      const order = new SourceKeyOrder<ReturnType<typeof group>>();
      const live = new Map<string, ReturnType<typeof group>>();
      for (const [keys, read] of batches) {
        for (const [blockName, sourceName] of keys) {
          const existing = live.get(sourceKeyId({ blockName, source: sourceName }));
          if (existing) {
            order.delete(existing);
            live.delete(existing.keyId);
          } else {
            const each = group(blockName, sourceName);
            order.insert(each);
            live.set(each.keyId, each);
          }
        }
        if (read) order.sorted();
      }
      const expected = [...live.values()].sort((left, right) =>
        left.blockName < right.blockName ? -1 : left.blockName > right.blockName ? 1 : left.source < right.source ? -1 : left.source > right.source ? 1 : 0,
      );
      assert.deepEqual(order.sorted(), expected);
    }),
  );
});
