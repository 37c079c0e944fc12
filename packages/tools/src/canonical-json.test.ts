import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { JsonValue } from '@strata/context';
import { canonicalJson } from './canonical-json.js';

function reverseKeys(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(reverseKeys);
  return Object.fromEntries(Object.keys(value).reverse().map((key) => [key, reverseKeys(value[key] as JsonValue)]));
}

test('canonical JSON ignores key order and round-trips through JSON.parse', () => {
  assert.equal(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }] }), '{"a":[{"c":"x","d":null}],"b":1}');
  fc.assert(
    fc.property(fc.jsonValue() as fc.Arbitrary<JsonValue>, (value) => {
      assert.equal(canonicalJson(reverseKeys(value)), canonicalJson(value));
      assert.deepEqual(JSON.parse(canonicalJson(value)), JSON.parse(JSON.stringify(value)));
    }),
  );
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
});
