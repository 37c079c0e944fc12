import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { StoreInputError } from '../errors/store-input-error.js';
import { contextDirectoryName, traceFileName } from './context-id-path.js';

test('context ids become safe directory names (hand-written expectations)', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['ctx-1_A.b', 'ctx-1_A.b'],
    ['..', '%2E.'],
    ['.', '%2E'],
    ['.hidden', '%2Ehidden'],
    ['../../etc/passwd', '%2E.%2F..%2Fetc%2Fpasswd'],
    ['a/b\\c', 'a%2Fb%5Cc'],
    ['100%', '100%25'],
    ['nul\u0000byte', 'nul%00byte'],
    ['会话 1', '%E4%BC%9A%E8%AF%9D%201'],
    ['a~b', 'a%7Eb'],
  ];
  for (const [id, expected] of cases) assert.equal(contextDirectoryName(id), expected, id);
});

test('every encoded name is one safe path segment, and different ids never share one (property)', () => {
  const seen = new Map<string, string>();
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 120, unit: 'binary' }), (id) => {
      const name = contextDirectoryName(id);
      assert.match(name, /^[A-Za-z0-9_%-][A-Za-z0-9_.%~-]*$/);
      assert.ok(name !== '.' && name !== '..' && Buffer.byteLength(name) <= 255);
      const previous = seen.get(name);
      assert.ok(previous === undefined || previous === id, `${JSON.stringify(id)} and ${JSON.stringify(previous)} share ${name}`);
      seen.set(name, id);
    }),
    { numRuns: 2_000 },
  );
});

test('a very long id keeps a prefix and a hash, within file-name limits', () => {
  const long = 'x'.repeat(150) + 'y'.repeat(500);
  const other = 'x'.repeat(150) + 'z'.repeat(500);
  const name = contextDirectoryName(long);
  assert.equal(name.length, 150 + 1 + 32);
  assert.ok(name.startsWith('x'.repeat(150) + '~'));
  assert.notEqual(name, contextDirectoryName(other));
  assert.equal(contextDirectoryName('z'.repeat(200)), 'z'.repeat(200));
});

test('empty ids and lone surrogates are refused naming contextId', () => {
  for (const id of ['', 'bad\ud800']) {
    assert.throws(() => contextDirectoryName(id), (error: unknown) => StoreInputError.isInstance(error) && error.culprit === 'contextId');
  }
});

test('turn file names are 1-based, padded to four digits, recovery attempts beside them', () => {
  assert.equal(traceFileName({ turn: 1 }), 'turn-0001.json');
  assert.equal(traceFileName({ turn: 42, recoveryAttempt: 1 }), 'turn-0042-recovery-1.json');
  assert.equal(traceFileName({ turn: 12345 }), 'turn-12345.json');
  for (const bad of [{ turn: 0 }, { turn: 1.5 }, { turn: -1 }, { turn: 1, recoveryAttempt: 0 }]) {
    assert.throws(() => traceFileName(bad), (error: unknown) => StoreInputError.isInstance(error) && error.code === 'TRACE_TURN_INVALID', JSON.stringify(bad));
  }
});
