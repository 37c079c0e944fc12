import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { countCharacterClasses } from './character-classes.js';

test('counts each class, runs, and astral characters by hand-counted examples', () => {
  assert.deepEqual(countCharacterClasses('Hello, 世界! 42 and 7\n😀x'), {
    cjk: 2, cjkRuns: 1, otherNonAscii: 0, otherNonAsciiRuns: 0, astral: 1, letters: 9, letterRuns: 3, digits: 3, digitRuns: 2,
    punctuation: 2, punctuationRuns: 2, spaces: 4, spaceRuns: 4, breaks: 1, breakRuns: 1,
  });
  assert.deepEqual(countCharacterClasses('café —「引用」'), {
    cjk: 2, cjkRuns: 1, otherNonAscii: 4, otherNonAsciiRuns: 3, astral: 0, letters: 3, letterRuns: 1, digits: 0, digitRuns: 0,
    punctuation: 0, punctuationRuns: 0, spaces: 1, spaceRuns: 1, breaks: 0, breakRuns: 0,
  });
  // A lone surrogate counts as one astral unit, a pair as one.
  assert.equal(countCharacterClasses('\udc00a\ud83d').astral, 2);
});

test('every code point lands in exactly one class', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
      const counts = countCharacterClasses(text);
      const codePoints = [...text].length;
      const total = counts.cjk + counts.otherNonAscii + counts.astral + counts.letters + counts.digits + counts.punctuation + counts.spaces + counts.breaks;
      assert.equal(total, codePoints);
      assert.ok(counts.letterRuns <= counts.letters && counts.digitRuns <= counts.digits);
    }),
  );
});
