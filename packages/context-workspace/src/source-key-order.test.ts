import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sourceKeyId } from './context-block.js';
import { SourceKeyOrder } from './source-key-order.js';

function group(blockName: string, source: string) {
  return { keyId: sourceKeyId({ blockName, source }), blockName, source, rank: -1 };
}

test('ranks follow block name, then source, in code-unit order', () => {
  const order = new SourceKeyOrder<ReturnType<typeof group>>();
  const groups = [group('memory', 'z'), group('mem', 'b'), group('memory', 'a'), group('Zeta', 'a'), group('mem', 'a')];
  groups.forEach((each) => order.insert(each));
  order.renumber();
  assert.deepEqual(
    [...groups].sort((left, right) => left.rank - right.rank).map((each) => `${each.blockName}/${each.source}`),
    ['Zeta/a', 'mem/a', 'mem/b', 'memory/a', 'memory/z'],
  );
  order.delete(groups[1]!);
  order.renumber();
  // memory/z, memory/a, Zeta/a, mem/a; the deleted mem/b is no longer numbered.
  assert.deepEqual([groups[0], groups[2], groups[3], groups[4]].map((each) => each?.rank), [3, 2, 0, 1]);
});

test('ranks equal the position in a plain (block name, source) sort', () => {
  const name = fc.string({ unit: fc.constantFrom('a', 'b', 'A', '_', '-', '.'), minLength: 1, maxLength: 4 });
  const source = fc.string({ minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(name, source), { selector: ([blockName, sourceName]) => `${blockName}\u0000${sourceName}` }), (keys) => {
      const order = new SourceKeyOrder<ReturnType<typeof group>>();
      const groups = keys.map(([blockName, sourceName]) => group(blockName, sourceName));
      groups.forEach((each) => order.insert(each));
      order.renumber();
      const expected = [...groups].sort((left, right) =>
        left.blockName < right.blockName ? -1 : left.blockName > right.blockName ? 1 : left.source < right.source ? -1 : left.source > right.source ? 1 : 0,
      );
      expected.forEach((each, index) => assert.equal(each.rank, index));
    }),
  );
});
