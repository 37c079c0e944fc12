/**
 * Character classes by Unicode script, and one pass over a string that
 * weighs each UTF-16 unit by its class and the class before it.
 *
 * ASCII is split by what a byte-level BPE does with it (capital and small
 * letters, digits, punctuation, spaces, breaks). Every other BMP character
 * gets the class of its Unicode script (`\p{Script=...}`, from the ICU data
 * the JavaScript engine ships), so a script the encoders know well (Cyrillic,
 * Han) is never priced like one they split into bytes (Ol Chiki, Syriac).
 * Scripts without a class of their own fall into `other`; characters
 * outside the BMP are counted by their surrogate halves.
 */
export const CHARACTER_CLASSES = Object.freeze([
  // Before the first character: a run always starts here.
  'start',
  // ASCII
  'upper', 'lower', 'digit', 'punctuation', 'space', 'break',
  // Scripts shared by many languages (Unicode's Common and Inherited)
  'commonPunctuation', 'commonSymbol', 'commonOther', 'combining',
  // Scripts with a class of their own
  'latin', 'greek', 'cyrillic', 'armenian', 'hebrew', 'arabic',
  'devanagari', 'bengali', 'gurmukhi', 'gujarati', 'oriya', 'tamil', 'telugu', 'kannada', 'malayalam', 'sinhala',
  'thai', 'lao', 'tibetan', 'myanmar', 'khmer', 'georgian', 'ethiopic',
  'han', 'kana', 'hangul',
  // Every other script, unassigned code points, and halves of characters outside the BMP
  'other', 'highSurrogate', 'lowSurrogate',
] as const);

export type CharacterClass = (typeof CHARACTER_CLASSES)[number];

/** Bits of a class number in a pair index `previous << CLASS_BITS | current`. */
export const CLASS_BITS = 6;
/** Size of a table indexed by class pairs. */
export const PAIR_TABLE_SIZE = 1 << (2 * CLASS_BITS);

const CLASS_NUMBER = new Map<CharacterClass, number>(CHARACTER_CLASSES.map((name, index) => [name, index]));

/** The number of a class, as used in pair indexes. */
export function classNumber(name: CharacterClass): number {
  return CLASS_NUMBER.get(name)!;
}

/** Classes whose characters continue one word with each other: a change among them starts no run. */
const WORD_GROUPS: ReadonlyArray<readonly CharacterClass[]> = [['upper', 'lower', 'latin']];

/**
 * True when `current` after `previous` starts a new run: the classes differ
 * and are not letters of one word (ASCII and other Latin letters). Combining
 * marks (Unicode's Inherited script) continue whatever they follow, and
 * whatever follows them continues too.
 */
export function startsRun(previous: CharacterClass, current: CharacterClass): boolean {
  if (previous === current || previous === 'combining' || current === 'combining') return false;
  if (previous === 'start') return true;
  return !WORD_GROUPS.some((group) => group.includes(previous) && group.includes(current));
}

/** Scripts with a class of their own, by their Unicode Script property value. */
const SCRIPT_CLASSES: ReadonlyArray<readonly [CharacterClass, string]> = [
  ['latin', 'Latin'], ['greek', 'Greek'], ['cyrillic', 'Cyrillic'], ['armenian', 'Armenian'], ['hebrew', 'Hebrew'],
  ['arabic', 'Arabic'], ['devanagari', 'Devanagari'], ['bengali', 'Bengali'], ['gurmukhi', 'Gurmukhi'],
  ['gujarati', 'Gujarati'], ['oriya', 'Oriya'], ['tamil', 'Tamil'], ['telugu', 'Telugu'], ['kannada', 'Kannada'],
  ['malayalam', 'Malayalam'], ['sinhala', 'Sinhala'], ['thai', 'Thai'], ['lao', 'Lao'], ['tibetan', 'Tibetan'],
  ['myanmar', 'Myanmar'], ['khmer', 'Khmer'], ['georgian', 'Georgian'], ['ethiopic', 'Ethiopic'], ['han', 'Han'],
  ['kana', 'Hiragana'], ['kana', 'Katakana'], ['hangul', 'Hangul'], ['combining', 'Inherited'],
];

function asciiClass(code: number): CharacterClass {
  if (code >= 65 && code <= 90) return 'upper';
  if (code >= 97 && code <= 122) return 'lower';
  if (code >= 48 && code <= 57) return 'digit';
  if (code === 32) return 'space';
  if (code < 32 || code === 127) return 'break';
  return 'punctuation';
}

/**
 * Per UTF-16 unit: its class in the low CLASS_BITS bits and its UTF-8 bytes
 * above them (a surrogate half counts 2, so a pair counts its 4). Built once
 * (64 KiB) from the engine's Unicode data: one regular-expression pass over
 * the whole BMP, matching runs of one script.
 */
const UNIT_TABLE = new Uint8Array(0x10000);

function buildUnitTable(): void {
  const units: string[] = [];
  for (let code = 0; code < 0x10000; code += 1) {
    const surrogate = code >= 0xd800 && code <= 0xdfff;
    units.push(surrogate ? '\u0000' : String.fromCharCode(code)); // surrogates are classed below
  }
  const bmp = units.join('');
  const classes = new Uint8Array(0x10000).fill(classNumber('other'));
  const groups = [
    ...SCRIPT_CLASSES.map(([name, script]) => [name, `\\p{Script=${script}}+`] as const),
    ['commonPunctuation', '[\\p{Script=Common}&&\\p{P}]+'] as const,
    ['commonSymbol', '[\\p{Script=Common}&&\\p{S}]+'] as const,
    ['commonOther', '[\\p{Script=Common}--\\p{P}--\\p{S}]+'] as const,
  ];
  const pattern = new RegExp(groups.map(([, source]) => `(${source})`).join('|'), 'gv');
  for (const match of bmp.matchAll(pattern)) {
    const group = match.findIndex((value, index) => index > 0 && value !== undefined);
    classes.fill(classNumber(groups[group - 1]![0]), match.index, match.index + match[0].length);
  }
  for (let code = 0; code < 0x10000; code += 1) {
    let name: number = classes[code]!;
    if (code < 128) name = classNumber(asciiClass(code));
    else if (code >= 0xd800 && code <= 0xdbff) name = classNumber('highSurrogate');
    else if (code >= 0xdc00 && code <= 0xdfff) name = classNumber('lowSurrogate');
    const bytes = code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
    UNIT_TABLE[code] = name | (bytes << CLASS_BITS);
  }
}
buildUnitTable();

const CLASS_MASK = (1 << CLASS_BITS) - 1;

/** The class of one UTF-16 unit. */
export function characterClassOf(codeUnit: number): CharacterClass {
  return CHARACTER_CLASSES[UNIT_TABLE[codeUnit & 0xffff]! & CLASS_MASK]!;
}

/**
 * Sums `pairWeights[previous << CLASS_BITS | current]` over the text's UTF-16
 * units (previous is `start` for the first), and counts the text's UTF-8
 * bytes. The hot path of the estimator: two table lookups and two additions
 * per unit, no allocation; two units per step into two sums, so the
 * additions do not wait on each other.
 */
export function weighText(text: string, pairWeights: Float64Array): { weight: number; utf8Bytes: number } {
  let even = 0;
  let odd = 0;
  let utf8Bytes = 0;
  let previous = 0;
  const length = text.length;
  let index = 0;
  for (; index + 1 < length; index += 2) {
    const first = UNIT_TABLE[text.charCodeAt(index)]!;
    const second = UNIT_TABLE[text.charCodeAt(index + 1)]!;
    const firstClass = first & CLASS_MASK;
    const secondClass = second & CLASS_MASK;
    even += pairWeights[(previous << CLASS_BITS) | firstClass]!;
    odd += pairWeights[(firstClass << CLASS_BITS) | secondClass]!;
    utf8Bytes += (first >>> CLASS_BITS) + (second >>> CLASS_BITS);
    previous = secondClass;
  }
  if (index < length) {
    const last = UNIT_TABLE[text.charCodeAt(index)]!;
    even += pairWeights[(previous << CLASS_BITS) | (last & CLASS_MASK)]!;
    utf8Bytes += last >>> CLASS_BITS;
  }
  return { weight: even + odd, utf8Bytes };
}

/** How often each (previous, current) class pair occurs in `text`: what `weighText` weighs, for fitting and tests. */
export function countClassPairs(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let previous = 0;
  for (let index = 0; index < text.length; index += 1) {
    const current = UNIT_TABLE[text.charCodeAt(index)]! & CLASS_MASK;
    const key = `${CHARACTER_CLASSES[previous]} ${CHARACTER_CLASSES[current]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    previous = current;
  }
  return counts;
}
