import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCache } from './bounded-cache.js';

test('a bounded cache keeps its most recently used entries, by count', () => {
  const cache = new BoundedCache<string, number>(2);
  cache.set('a', 1);
  cache.set('b', 2);
  assert.equal(cache.get('a'), 1, 'a read makes "a" the most recent');
  cache.set('c', 3);
  assert.equal(cache.get('b'), undefined, 'the least recently used is evicted');
  assert.deepEqual([cache.get('a'), cache.get('c'), cache.size], [1, 3, 2]);
  assert.equal(cache.delete('a'), true);
  assert.equal(cache.delete('a'), false);
  assert.equal(cache.size, 1);
});

test('a byte bound evicts the least recently used entries until the rest weigh at most maxBytes; the newest always stays', () => {
  const cache = new BoundedCache<string, string>(100, { maxBytes: 10, bytesOf: (key, value) => 2 * (key.length + value.length) });
  cache.set('a', 'xx'); // 6 bytes
  cache.set('b', 'y'); // 4 bytes: 10 in all
  assert.equal(cache.weight, 10);
  cache.set('c', 'z'); // 4 more: "a" goes
  assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c'), cache.weight], [undefined, 'y', 'z', 8]);
  cache.set('big', 'way over the bound');
  assert.deepEqual([cache.size, cache.get('big')], [1, 'way over the bound'], 'an entry alone over the bound is kept until the next one');
  cache.set('big', 'small');
  assert.equal(cache.weight, 16, 'setting a key again replaces its weight');
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) assert.throws(() => new BoundedCache(1, { maxBytes: bad, bytesOf: () => 1 }), RangeError);
  assert.throws(() => new BoundedCache(1.5), RangeError);
});
