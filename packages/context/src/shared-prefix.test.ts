import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { roomyCopy } from './shared-prefix.js';

test('property: roomyCopy is the first `count` of a list followed by `more`, a new list that leaves its input as it was', () => {
  fc.assert(
    fc.property(fc.array(fc.integer()), fc.array(fc.integer()), fc.nat(), (list, more, pick) => {
      const count = pick % (list.length + 1);
      const before = [...list];
      const copy = roomyCopy(list, more, count);
      assert.deepEqual(copy, [...list.slice(0, count), ...more]);
      assert.notEqual(copy, list);
      assert.deepEqual(list, before);
      copy.push(7);
      assert.deepEqual(list, before);
    }),
  );
  assert.deepEqual(roomyCopy([1, 2, 3]), [1, 2, 3]);
  assert.deepEqual(roomyCopy([1, 2, 3], [9]), [1, 2, 3, 9]);
});
