import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { countLines, decodeBody, derivedToolOutputId, encodeBody, isToolOutputId, measureToolOutput, newToolOutputId, toolOutputIdSequence } from './tool-output-body.js';
import { StoreInputError } from './errors/store-input-error.js';
import { createMemoryToolOutputStore } from './memory/memory-tool-output-store.js';

test('well-formed bodies are kept as UTF-8, bodies with a lone surrogate as UTF-16LE', () => {
  assert.equal(encodeBody('中文 ok').encoding, 'utf8');
  assert.deepEqual([...encodeBody('中').bytes], [0xe4, 0xb8, 0xad]);
  const lone = encodeBody('a\ud800');
  assert.equal(lone.encoding, 'utf16le');
  assert.deepEqual([...lone.bytes], [0x61, 0x00, 0x00, 0xd8]);
  assert.equal(decodeBody(lone), 'a\ud800');
});

test('a body whose bytes no longer match the checksum decodes to undefined', () => {
  const encoded = encodeBody('original');
  const damaged = Buffer.from(encoded.bytes);
  damaged[0] = 0x4f;
  assert.equal(decodeBody({ ...encoded, bytes: damaged }), undefined);
  assert.equal(decodeBody({ ...encoded, encoding: 'latin1' }), undefined);
});

test('encode then decode is the identity on any UTF-16 string (property)', () => {
  const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
  fc.assert(fc.property(fc.string({ unit: codeUnit, maxLength: 200 }), (body) => decodeBody(encodeBody(body)) === body), { numRuns: 1_000 });
});

test('measureToolOutput counts UTF-16 units, lines and UTF-8 bytes (a lone surrogate as the 3 bytes of U+FFFD)', () => {
  assert.deepEqual(measureToolOutput(''), { chars: 0, lines: 0, bytes: 0 });
  assert.deepEqual(measureToolOutput('ab\ncd\n'), { chars: 6, lines: 2, bytes: 6 });
  assert.deepEqual(measureToolOutput('😀'), { chars: 2, lines: 1, bytes: 4 });
  assert.deepEqual(measureToolOutput('\ud800'), { chars: 1, lines: 1, bytes: 3 });
  assert.equal(countLines('a\r\nb'), 2);
  assert.equal(countLines('a\rb'), 1);
});

test('ids are out_ + 26 base-32 characters, sort by time, and do not repeat', () => {
  const earlier = newToolOutputId(1_700_000_000_000);
  const later = newToolOutputId(1_700_000_000_001);
  assert.ok(isToolOutputId(earlier) && isToolOutputId(later));
  assert.ok(earlier.slice(0, 14) < later.slice(0, 14));
  // 1_700_000_000_000 is 01hf7uaq00 in base 32 digits 0-9a-v (BigInt#toString(32)); Crockford's alphabet skips i, l, o, u.
  assert.equal(earlier.slice(4, 14), '01hf7yat00');
  const made = Array.from({ length: 10_000 }, () => newToolOutputId(0));
  assert.equal(new Set(made).size, 10_000);
  // Made in one millisecond, they still sort in the order they were made.
  assert.deepEqual([...made].sort(), made);
  assert.equal(isToolOutputId('out_short'), false);
  assert.equal(isToolOutputId('out_0000000000ILOU0000000000'), false);
});

test('an id sequence is the same for the same seed, in the store shape, distinct and in order', () => {
  fc.assert(
    fc.property(fc.string(), fc.integer({ min: 1, max: 50 }), (seed, count) => {
      const first = toolOutputIdSequence(seed);
      const second = toolOutputIdSequence(seed);
      const ids = Array.from({ length: count }, () => first());
      assert.deepEqual(Array.from({ length: count }, () => second()), ids);
      assert.ok(ids.every(isToolOutputId));
      assert.equal(new Set(ids).size, count);
      assert.deepEqual([...ids].sort(), ids);
    }),
  );
  assert.notEqual(toolOutputIdSequence('run a')(), toolOutputIdSequence('run b')());
  assert.throws(() => toolOutputIdSequence(7 as never), (error: unknown) => error instanceof Error && error.name === 'StoreInputError');
});

test('derived ids are a function of the context and call: the same in any process, in the store shape, and a repeated put of the same body is the same output', async () => {
  const id = derivedToolOutputId({ contextId: 'run-1', toolCallId: 'call_7' });
  assert.equal(id, derivedToolOutputId({ contextId: 'run-1', toolCallId: 'call_7' }));
  assert.ok(isToolOutputId(id), id);
  assert.notEqual(id, derivedToolOutputId({ contextId: 'run-2', toolCallId: 'call_7' }));
  assert.notEqual(id, derivedToolOutputId({ contextId: 'run-1', toolCallId: 'call_8' }));
  const store = createMemoryToolOutputStore({ newId: derivedToolOutputId });
  const first = await store.put({ contextId: 'run-1', toolCallId: 'call_7', toolName: 'read', body: 'the body' });
  const again = await store.put({ contextId: 'run-1', toolCallId: 'call_7', toolName: 'read', body: 'the body' });
  assert.deepEqual(again, first);
  assert.equal((await store.list!('run-1')).length, 1);
  // The same call with another body is not the same output: refused, nothing stored.
  await assert.rejects(store.put({ contextId: 'run-1', toolCallId: 'call_7', toolName: 'read', body: 'another body' }), (error: unknown) => StoreInputError.isInstance(error));
  assert.equal((await store.list!('run-1')).length, 1);
});
