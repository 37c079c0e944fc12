import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CHARACTER_CLASSES, CLASS_BITS, PAIR_TABLE_SIZE, characterClassOf, classNumber, countClassPairs, startsRun, weighText } from './character-classes.js';

test('each character lands in the class of its Unicode script, ASCII by what a BPE does with it', () => {
  const expected: Record<string, string> = {
    A: 'upper', z: 'lower', '7': 'digit', '!': 'punctuation', ' ': 'space', '\n': 'break', '\t': 'break',
    é: 'latin', Ａ: 'latin', Ω: 'greek', Я: 'cyrillic', 中: 'han', あ: 'kana', ア: 'kana', 한: 'hangul', ລ: 'lao', ગ: 'gujarati',
    '،': 'commonPunctuation', '“': 'commonPunctuation', '。': 'commonPunctuation', '€': 'commonSymbol', '\u00a0': 'commonOther',
    '\u0301': 'combining', '\u200d': 'combining', 'ܐ': 'other', Ꮳ: 'other', '\ud83d': 'highSurrogate', '\ude00': 'lowSurrogate',
  };
  for (const [character, name] of Object.entries(expected)) assert.equal(characterClassOf(character.charCodeAt(0)), name, JSON.stringify(character));
});

test('runs start where the class changes, except between letters of one Latin word and around combining marks', () => {
  assert.equal(startsRun('start', 'lower'), true);
  assert.equal(startsRun('lower', 'lower'), false);
  assert.equal(startsRun('upper', 'lower'), false);
  assert.equal(startsRun('lower', 'latin'), false);
  assert.equal(startsRun('lower', 'digit'), true);
  assert.equal(startsRun('han', 'kana'), true);
  assert.equal(startsRun('devanagari', 'combining'), false);
  assert.equal(startsRun('combining', 'devanagari'), false);
});

test('weighText sums the weight of each class pair and counts UTF-8 bytes', () => {
  const weights = new Float64Array(PAIR_TABLE_SIZE);
  weights[(classNumber('start') << CLASS_BITS) | classNumber('upper')] = 10;
  weights[(classNumber('upper') << CLASS_BITS) | classNumber('lower')] = 1;
  weights[(classNumber('lower') << CLASS_BITS) | classNumber('lower')] = 0.5;
  weights[(classNumber('lower') << CLASS_BITS) | classNumber('han')] = 100;
  assert.deepEqual(weighText('Hello世', weights), { weight: 10 + 1 + 0.5 * 3 + 100, utf8Bytes: 8 });
  assert.deepEqual(weighText('', weights), { weight: 0, utf8Bytes: 0 });
});

test('the byte count is the UTF-8 length of well-formed text, and every unit is one pair', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
      const ones = new Float64Array(PAIR_TABLE_SIZE).fill(1);
      const { weight, utf8Bytes } = weighText(text, ones);
      assert.equal(utf8Bytes, Buffer.byteLength(text));
      assert.equal(weight, text.length);
      let pairs = 0;
      for (const count of countClassPairs(text).values()) pairs += count;
      assert.equal(pairs, text.length);
    }),
  );
  assert.ok(CHARACTER_CLASSES.length <= 1 << CLASS_BITS);
});
