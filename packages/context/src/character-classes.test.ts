import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { normalizedUtf8Bytes } from '@strata/testing';
import { CHARACTER_KINDS, KIND_COUNT, PAIR_TABLE_SIZE, characterClassOf, characterKindOf, countKindPairs, kindNumber, pairTableOf, startsRun, weighText } from './character-classes.js';

test('each character lands in the class of its Unicode script, ASCII by what a BPE does with it', () => {
  const expected: Record<string, string> = {
    A: 'upper', z: 'lower', '7': 'digit', '!': 'punctuation', ' ': 'space', '\n': 'break', '\r': 'break', '\t': 'tab', '\u001b': 'control', '\u007f': 'control', '\u0085': 'other', 'ｱ': 'other', '\u1100': 'other',
    é: 'latin', Ａ: 'latin', Ω: 'greek', Я: 'cyrillic', я: 'cyrillic', 龘: 'han', 中: 'frequentHan', あ: 'kana', ア: 'kana', 똠: 'hangul', 한: 'frequentHangul', ລ: 'lao', ગ: 'gujarati',
    '٣': 'nativeDigit', '२': 'nativeDigit', '１': 'nativeDigit',
    // A Common character not every tokenizer holds as a token (the Arabic comma) is priced by its bytes.
    '،': 'other', '“': 'commonPunctuation', '。': 'commonPunctuation', '€': 'commonSymbol', '\u200b': 'commonOther', '\u00a0': 'other',
    '\u0301': 'combining', '\u200d': 'combining', 'ܐ': 'other', Ꮳ: 'other', '\ud83d': 'highSurrogate', '\ude00': 'lowSurrogate',
  };
  for (const [character, name] of Object.entries(expected)) assert.equal(characterClassOf(character.charCodeAt(0)), name, JSON.stringify(character));
});

test('small ASCII, Russian and Hindi letters are kinds of their own; capitals beyond ASCII too; Han and Hangul outside GB 2312 level 1 and KS X 1001 are uncommon (and the level-1 characters some tokenizer splits), Cyrillic beyond Russian and Arabic beyond its basic letters too', () => {
  const expected: Record<string, string> = {
    a: 'a', q: 'q', z: 'z', A: 'upper', é: 'latin', É: 'capitalLatin', Я: 'capitalCyrillic', я: 'я', ё: 'ё', ъ: 'uncommonCyrillic', і: 'uncommonCyrillic', ә: 'uncommonCyrillic', Ω: 'capitalGreek', Ա: 'capitalArmenian', '\u1c90': 'other', ა: 'georgian', ǎ: 'uncommonLatin', ɪ: 'uncommonLatin', ế: 'latin', ą: 'latin', ἀ: 'other', α: 'greek',
    的: 'frequentHan', 国: 'frequentHan', 拾: 'han', 鞠: 'uncommonHan', 龘: 'uncommonHan', 㐀: 'uncommonHan', 한: 'frequentHangul', 국: 'frequentHangul', 똠: 'uncommonHangul', ㄱ: 'hangul', ب: 'arabic', پ: 'uncommonArabic', ی: 'uncommonArabic',
    'क': 'क', 'ि': 'ि', '्': '्', 'ं': 'ं', 'ळ': 'ळ', 'अ': 'devanagari', 'ऩ': 'devanagari', '५': 'nativeDigit',
  };
  for (const [character, kind] of Object.entries(expected)) assert.equal(characterKindOf(character.charCodeAt(0)), kind, character);
  assert.equal(characterClassOf('q'.charCodeAt(0)), 'lower');
  assert.equal(characterClassOf('龘'.charCodeAt(0)), 'han');
  assert.equal(characterClassOf('똠'.charCodeAt(0)), 'hangul');
  assert.equal(characterClassOf('क'.charCodeAt(0)), 'devanagari');
  assert.equal(characterClassOf('ि'.charCodeAt(0)), 'devanagari');
});

test('runs start where the class changes, except between letters of one Latin word and around combining marks', () => {
  assert.equal(startsRun('start', 'lower'), true);
  assert.equal(startsRun('lower', 'lower'), false);
  assert.equal(startsRun('upper', 'lower'), false);
  assert.equal(startsRun('lower', 'latin'), false);
  assert.equal(startsRun('lower', 'digit'), true);
  assert.equal(startsRun('han', 'kana'), true);
  assert.equal(startsRun('han', 'frequentHan'), false);
  assert.equal(startsRun('frequentHangul', 'hangul'), false);
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
  weights[pair('o', 'frequentHan')] = 50;
  const table = pairTableOf(weights);
  assert.deepEqual(weighText('Hello世', table), { weight: 10 + 1 + 0.5 + 0.25 + 0.125 + 50, utf8Bytes: 8 });
  assert.deepEqual(weighText('', table), { weight: 0, utf8Bytes: 0 });
});

test('a unit beyond ASCII that repeats the unit before it adds its kind\'s repeat weight; ASCII units never do', () => {
  const weights = new Float64Array(PAIR_TABLE_SIZE).fill(1);
  const repeats = new Float64Array(KIND_COUNT).fill(2);
  const table = pairTableOf(weights, repeats);
  assert.equal(weighText('中中中', table).weight, 3 + 2 * 2);
  assert.equal(weighText('中国中', table).weight, 3);
  assert.equal(weighText('aaa   ', table).weight, 6);
  assert.equal(weighText('ééa中', table).weight, 4 + 2);
  assert.deepEqual([...countKindPairs('中中a中')].filter(([key]) => key.startsWith('repeat ')), [['repeat frequentHan', 1]]);
});

test('the byte count is the UTF-8 length of well-formed text (a character that normalisation expands: its longer normal form), and every unit is one pair', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
      const ones = new Float64Array(PAIR_TABLE_SIZE).fill(1);
      const { weight, utf8Bytes } = weighText(text, pairTableOf(ones));
      assert.equal(utf8Bytes, normalizedUtf8Bytes(text));
      assert.equal(weight, text.length);
      let pairs = 0;
      for (const [key, count] of countKindPairs(text)) if (!key.startsWith('repeat ')) pairs += count;
      assert.equal(pairs, text.length);
    }),
  );
  assert.ok(KIND_COUNT < 256, 'a kind fits the unit table\'s 8 bits');
});

/** The sum weighText must give, in ten-thousandths of a token: each kind pair's count times its weight, each repeat's count times its kind's. */
function referenceWeight(text: string, weights: Float64Array, repeats = new Float64Array(KIND_COUNT)): number {
  let scaled = 0;
  for (const [pair, count] of countKindPairs(text)) {
    const [previous, current] = pair.split(' ') as ['repeat' | (typeof CHARACTER_KINDS)[number], (typeof CHARACTER_KINDS)[number]];
    const weight = previous === 'repeat' ? repeats[kindNumber(current)]! : weights[kindNumber(previous) * KIND_COUNT + kindNumber(current)]!;
    scaled += count * Math.round(weight * 10_000);
  }
  return scaled / 10_000;
}

test('the all-ASCII path and the unit path give the same sum as counting pairs, across chunks', () => {
  const weightsArbitrary = fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: PAIR_TABLE_SIZE, maxLength: PAIR_TABLE_SIZE }).map((scaled) => Float64Array.from(scaled, (value) => value / 10_000));
  const repeatsArbitrary = fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: KIND_COUNT, maxLength: KIND_COUNT }).map((scaled) => Float64Array.from(scaled, (value) => value / 10_000));
  const piece = fc.oneof(fc.string({ unit: fc.constantFrom(...'{"id": 12, "name":\n  "x_y-z"}AaQq09 ') }), fc.string({ unit: 'grapheme' }), fc.constantFrom('中文', '中中中', 'éé', 'é', '😀', '', '\ud800', '\udc00x', 'ß\ud83d'));
  fc.assert(
    fc.property(weightsArbitrary, repeatsArbitrary, fc.array(piece, { maxLength: 8 }), (weights, repeats, pieces) => {
      const text = pieces.join('');
      // ASCII kinds carry no repeat weight, whatever the table is given.
      for (const code of [...'{}"\n :,_-AaQq09xyz'].map((character) => character.charCodeAt(0))) repeats[kindNumber(characterKindOf(code))] = 0;
      assert.equal(weighText(text, pairTableOf(weights, repeats)).weight, referenceWeight(text, weights, repeats));
    }),
  );
  // Many chunks (8,192 units each): ASCII chunks, then chunks with Han, then ASCII again.
  const weights = Float64Array.from({ length: PAIR_TABLE_SIZE }, (_, index) => ((index * 7919) % 30_000) / 10_000);
  const long = `${'{"key": "value_1", "n": 42}\n'.repeat(3_000)}${'混合 text 文本 '.repeat(8_000)}${'plain ascii words '.repeat(5_000)}`;
  const { weight, utf8Bytes } = weighText(long, pairTableOf(weights));
  // A surrogate pair across a chunk boundary (at 65,536 units), and a lone surrogate in a later chunk; repeats across chunks.
  const straddling = `${'é'.repeat(65_535)}😀${'中'.repeat(70_000)}\ud800 tail`;
  const repeats = Float64Array.from({ length: KIND_COUNT }, (_, index) => ((index * 613) % 20_000) / 10_000);
  for (const code of [...' tail'].map((character) => character.charCodeAt(0))) repeats[kindNumber(characterKindOf(code))] = 0;
  assert.equal(weighText(straddling, pairTableOf(weights, repeats)).weight, referenceWeight(straddling, weights, repeats));
  assert.equal(weight, referenceWeight(long, weights));
  assert.equal(utf8Bytes, Buffer.byteLength(long));
  // U+FB2C (3 bytes) is three code points in NFC (6 bytes); U+FDFA (3 bytes) is 18 in NFKC (33 bytes).
  assert.deepEqual(['\ufb2c', '\ufdfa', '\u00bd'].map((character) => [characterKindOf(character.charCodeAt(0)), weighText(character, pairTableOf(weights)).utf8Bytes]), [['expanding', 6], ['expandingFar', 33], ['expanding', 5]]);
});

test('a pair table refuses weights it cannot sum exactly', () => {
  const weights = new Float64Array(PAIR_TABLE_SIZE);
  weights[3] = 53;
  assert.throws(() => pairTableOf(weights), (error: unknown) => error instanceof RangeError && /pair weight "start digit" is 53/.test(error.message));
  weights[3] = Number.NaN;
  assert.throws(() => pairTableOf(weights), RangeError);
  assert.throws(() => pairTableOf(new Float64Array(3)), RangeError);
});
