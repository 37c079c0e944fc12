import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CHARACTER_KINDS, KIND_COUNT, PAIR_TABLE_SIZE, characterClassOf, characterKindOf, countKindPairs, kindNumber, pairTableOf, startsRun, weighText } from './character-classes.js';

test('each character lands in the class of its Unicode script, ASCII by what a BPE does with it', () => {
  const expected: Record<string, string> = {
    A: 'upper', z: 'lower', '7': 'digit', '!': 'punctuation', ' ': 'space', '\n': 'break', '\r': 'break', '\t': 'tab', '\u001b': 'control', '\u007f': 'control', '\u0085': 'other', 'ｱ': 'other', '\u1100': 'other',
    é: 'latin', Ａ: 'latin', Ω: 'greek', Я: 'cyrillic', 中: 'han', あ: 'kana', ア: 'kana', 한: 'hangul', ລ: 'lao', ગ: 'gujarati',
    '،': 'commonPunctuation', '“': 'commonPunctuation', '。': 'commonPunctuation', '€': 'commonSymbol', '\u00a0': 'commonOther',
    '\u0301': 'combining', '\u200d': 'combining', 'ܐ': 'other', Ꮳ: 'other', '\ud83d': 'highSurrogate', '\ude00': 'lowSurrogate',
  };
  for (const [character, name] of Object.entries(expected)) assert.equal(characterClassOf(character.charCodeAt(0)), name, JSON.stringify(character));
});

test('small letters are kinds of their own; capitals beyond ASCII too; Han and Hangul outside GB 2312 level 1 and KS X 1001 are uncommon', () => {
  const expected: Record<string, string> = {
    a: 'a', q: 'q', z: 'z', A: 'upper', é: 'latin', É: 'capitalLatin', Я: 'capitalCyrillic', я: 'cyrillic', Ω: 'capitalGreek', Ա: 'capitalArmenian', '\u1c90': 'other', ა: 'georgian', ǎ: 'uncommonLatin', ɪ: 'uncommonLatin', ế: 'latin', ą: 'latin', ἀ: 'other', α: 'greek', 的: 'han', 国: 'han', 龘: 'uncommonHan', 㐀: 'uncommonHan', 한: 'hangul', 국: 'hangul', 똠: 'uncommonHangul', ㄱ: 'hangul',
  };
  for (const [character, kind] of Object.entries(expected)) assert.equal(characterKindOf(character.charCodeAt(0)), kind, character);
  assert.equal(characterClassOf('q'.charCodeAt(0)), 'lower');
  assert.equal(characterClassOf('龘'.charCodeAt(0)), 'han');
  assert.equal(characterClassOf('똠'.charCodeAt(0)), 'hangul');
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

test('weighText sums the weight of each kind pair and counts UTF-8 bytes', () => {
  const weights = new Float64Array(PAIR_TABLE_SIZE);
  const pair = (previous: (typeof CHARACTER_KINDS)[number], current: (typeof CHARACTER_KINDS)[number]) => kindNumber(previous) * KIND_COUNT + kindNumber(current);
  weights[pair('start', 'upper')] = 10;
  weights[pair('upper', 'e')] = 1;
  weights[pair('e', 'l')] = 0.5;
  weights[pair('l', 'l')] = 0.25;
  weights[pair('l', 'o')] = 0.125;
  weights[pair('o', 'han')] = 50;
  const table = pairTableOf(weights);
  assert.deepEqual(weighText('Hello世', table), { weight: 10 + 1 + 0.5 + 0.25 + 0.125 + 50, utf8Bytes: 8 });
  assert.deepEqual(weighText('', table), { weight: 0, utf8Bytes: 0 });
});

test('the byte count is the UTF-8 length of well-formed text, and every unit is one pair', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
      const ones = new Float64Array(PAIR_TABLE_SIZE).fill(1);
      const { weight, utf8Bytes } = weighText(text, pairTableOf(ones));
      assert.equal(utf8Bytes, Buffer.byteLength(text));
      assert.equal(weight, text.length);
      let pairs = 0;
      for (const count of countKindPairs(text).values()) pairs += count;
      assert.equal(pairs, text.length);
    }),
  );
  assert.ok(KIND_COUNT < 128, 'a kind fits the unit table\'s 7 bits');
});

/** The sum weighText must give, in ten-thousandths of a token: each kind pair's count times its weight. */
function referenceWeight(text: string, weights: Float64Array): number {
  let scaled = 0;
  for (const [pair, count] of countKindPairs(text)) {
    const [previous, current] = pair.split(' ') as [(typeof CHARACTER_KINDS)[number], (typeof CHARACTER_KINDS)[number]];
    scaled += count * Math.round(weights[kindNumber(previous) * KIND_COUNT + kindNumber(current)]! * 10_000);
  }
  return scaled / 10_000;
}

test('the all-ASCII path and the unit path give the same sum as counting pairs, across chunks', () => {
  const weightsArbitrary = fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: PAIR_TABLE_SIZE, maxLength: PAIR_TABLE_SIZE }).map((scaled) => Float64Array.from(scaled, (value) => value / 10_000));
  const piece = fc.oneof(fc.string({ unit: fc.constantFrom(...'{"id": 12, "name":\n  "x_y-z"}AaQq09 ') }), fc.string({ unit: 'grapheme' }), fc.constantFrom('中文', 'é', '😀', '', '\ud800', '\udc00x', 'ß\ud83d'));
  fc.assert(
    fc.property(weightsArbitrary, fc.array(piece, { maxLength: 8 }), (weights, pieces) => {
      const text = pieces.join('');
      assert.equal(weighText(text, pairTableOf(weights)).weight, referenceWeight(text, weights));
    }),
  );
  // Many chunks (8,192 units each): ASCII chunks, then chunks with Han, then ASCII again.
  const weights = Float64Array.from({ length: PAIR_TABLE_SIZE }, (_, index) => ((index * 7919) % 30_000) / 10_000);
  const long = `${'{"key": "value_1", "n": 42}\n'.repeat(3_000)}${'混合 text 文本 '.repeat(8_000)}${'plain ascii words '.repeat(5_000)}`;
  const { weight, utf8Bytes } = weighText(long, pairTableOf(weights));
  // A surrogate pair across a chunk boundary (at 65,536 units), and a lone surrogate in a later chunk.
  const straddling = `${'é'.repeat(65_535)}😀${'中'.repeat(70_000)}\ud800 tail`;
  assert.equal(weighText(straddling, pairTableOf(weights)).weight, referenceWeight(straddling, weights));
  assert.equal(weight, referenceWeight(long, weights));
  assert.equal(utf8Bytes, Buffer.byteLength(long));
});

test('a pair table refuses weights it cannot sum exactly', () => {
  const weights = new Float64Array(PAIR_TABLE_SIZE);
  weights[3] = 53;
  assert.throws(() => pairTableOf(weights), (error: unknown) => error instanceof RangeError && /pair weight "start digit" is 53/.test(error.message));
  weights[3] = Number.NaN;
  assert.throws(() => pairTableOf(weights), RangeError);
  assert.throws(() => pairTableOf(new Float64Array(3)), RangeError);
});
