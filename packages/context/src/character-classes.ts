import { KNOWN_COMMON_CHARACTERS } from './common-characters.generated.js';
import { FREQUENT_HAN_CHARACTERS, FREQUENT_HANGUL_SYLLABLES } from './frequent-characters.generated.js';
import { SPLIT_HAN_CHARACTERS } from './split-han.generated.js';

/**
 * Character classes by Unicode script, refined into kinds, and one pass over
 * a string that weighs each UTF-16 unit by its kind and the kind before it.
 *
 * ASCII is split by what a byte-level BPE does with it (capital and small
 * letters, digits, punctuation, spaces, breaks). Every other BMP character
 * gets the class of its Unicode script (`\p{Script=...}`, from the ICU data
 * the JavaScript engine ships), so a script the encoders know well (Cyrillic,
 * Han) is never priced like one they split into bytes (Ol Chiki, Syriac).
 * Scripts without a class of their own fall into `other`; characters
 * outside the BMP are counted by their surrogate halves; decimal digits
 * beyond ASCII are `nativeDigit` whatever their script. Han and Hangul are
 * split by how well their characters merge into words (`frequentHan` and
 * `frequentHangul`, see frequent-characters.generated.ts): in the
 * vocabularies that know Chinese and Korean, prose of frequent characters
 * costs far fewer tokens per character than names and rare words do.
 *
 * Some characters of classed scripts are split into bytes by the encoders,
 * unlike the rest of their script, and are classed `other` (see
 * BYTE_SPLIT_RANGES): C1 controls, conjoining Hangul jamo (Korean in NFD,
 * as macOS file names hold it), the half-width katakana and Hangul of
 * legacy Japanese and Korean text, Georgian capitals and polytonic Greek.
 */
export const CHARACTER_CLASSES = Object.freeze([
  // Before the first character: a run always starts here.
  'start',
  // ASCII: a line break is CR or LF; `control` is every other C0 control and DEL
  'upper', 'lower', 'digit', 'punctuation', 'space', 'break', 'tab', 'control',
  // Scripts shared by many languages (Unicode's Common and Inherited)
  'commonPunctuation', 'commonSymbol', 'commonOther', 'combining',
  // Decimal digits beyond ASCII, of any script (Devanagari, Arabic-Indic, Thai, full-width, ...)
  'nativeDigit',
  // Scripts with a class of their own
  'latin', 'greek', 'cyrillic', 'armenian', 'hebrew', 'arabic',
  'devanagari', 'bengali', 'gurmukhi', 'gujarati', 'oriya', 'tamil', 'telugu', 'kannada', 'malayalam', 'sinhala',
  'thai', 'lao', 'tibetan', 'myanmar', 'khmer', 'georgian', 'ethiopic',
  'han', 'frequentHan', 'kana', 'hangul', 'frequentHangul',
  // Characters whose NFC or NFKC form has more UTF-8 bytes than they have (see NORMALIZED_BYTES_NEAR): up to
  // NORMALIZED_BYTES_NEAR of them, and more
  'expanding', 'expandingFar',
  // Every other script, unassigned code points, Common characters beyond ASCII that not every tokenizer holds as a
  // token (common-characters.generated.ts), and halves of characters outside the BMP
  'other', 'highSurrogate', 'lowSurrogate',
] as const);

export type CharacterClass = (typeof CHARACTER_CLASSES)[number];

/**
 * Small ASCII letters, a to z: each is a kind of its own (their class is
 * `lower`), so a profile can price letter pairs ("th" against "kp") and the
 * letters that start and end words.
 */
export const SMALL_LETTERS = Object.freeze(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z'] as const);

export type SmallLetter = (typeof SMALL_LETTERS)[number];

/**
 * The small letters of the Russian alphabet but its hard sign (see
 * `uncommonCyrillic`): each is a kind of its own (their class is
 * `cyrillic`), priced by letter pair, word start and word end like the
 * small ASCII letters, which tells Russian words from transliterated names.
 */
export const RUSSIAN_LETTERS = Object.freeze(['а', 'б', 'в', 'г', 'д', 'е', 'ж', 'з', 'и', 'й', 'к', 'л', 'м', 'н', 'о', 'п', 'р', 'с', 'т', 'у', 'ф', 'х', 'ц', 'ч', 'ш', 'щ', 'ы', 'ь', 'э', 'ю', 'я', 'ё'] as const);

export type RussianLetter = (typeof RUSSIAN_LETTERS)[number];

/**
 * The Devanagari letters of Hindi prose: its 34 consonants (without the
 * three that only Sindhi and Tamil transliteration use), its 11 vowel signs,
 * the virama, anusvara, candrabindu and nukta. Each is a kind of its own
 * (their class is `devanagari`), priced by letter pair, word start and word
 * end like the small ASCII and Russian letters, which tells Hindi words
 * (merged by the encoders) from the names and program messages of Marathi,
 * Nepali, Konkani, Maithili and Bodo (split more). Independent vowels, digits
 * and the rest of the script stay the kind `devanagari`.
 */
export const HINDI_LETTERS = Object.freeze([
  'क', 'ख', 'ग', 'घ', 'ङ', 'च', 'छ', 'ज', 'झ', 'ञ', 'ट', 'ठ', 'ड', 'ढ', 'ण', 'त', 'थ', 'द', 'ध', 'न', 'प', 'फ', 'ब', 'भ', 'म', 'य', 'र', 'ल', 'व', 'श', 'ष', 'स', 'ह',
  'ळ',
  'ा', 'ि', 'ी', 'ु', 'ू', 'ृ', 'े', 'ै', 'ो', 'ौ', 'ॉ',
  '्', 'ं', 'ँ', '़',
] as const);

export type HindiLetter = (typeof HINDI_LETTERS)[number];

/**
 * What the pair table is indexed by: a class, refined where cheap knowledge
 * lowers the variance of tokens per character. Every class is a kind (the
 * kind `han` holds common Han characters, `hangul` common Hangul syllables,
 * and `lower` no character at all); each small ASCII letter is a kind of
 * class `lower`; `uncommonHan` and `uncommonHangul` hold the characters of
 * those scripts outside the common sets (see `commonCharacters`),
 * `uncommonLatin` the Latin letters beyond Latin-1, Latin Extended-A and
 * the Vietnamese letters (IPA, Latin Extended-B and later blocks, which the
 * encoders split), `uncommonCyrillic` the small Cyrillic letters outside
 * the Russian alphabet and its hard sign (frequent in Bulgarian, rare in
 * Russian), and `uncommonArabic` the Arabic characters beyond
 * its 36 basic letters (Persian, Urdu and other added letters, Arabic-Indic
 * digits), which mark text the encoders merge less than Russian and Arabic
 * prose; the capital kinds hold the capital letters of the cased scripts beyond ASCII,
 * which the encoders merge far less than small ones (Russian in capitals
 * costs o200k three times its small letters).
 */
export const CHARACTER_KINDS = Object.freeze([
  ...CHARACTER_CLASSES,
  ...SMALL_LETTERS,
  ...RUSSIAN_LETTERS,
  ...HINDI_LETTERS,
  ...['uncommonHan', 'uncommonHangul', 'uncommonLatin', 'uncommonCyrillic', 'uncommonArabic'] as const,
  ...['capitalLatin', 'capitalGreek', 'capitalCyrillic', 'capitalArmenian'] as const,
] as const);

/** The scripts with uncommon characters of their own, by the kind that holds them. */
export const UNCOMMON_KINDS = Object.freeze({ uncommonHan: 'han', uncommonHangul: 'hangul', uncommonLatin: 'latin', uncommonCyrillic: 'cyrillic', uncommonArabic: 'arabic' } as const);

export type UncommonKind = keyof typeof UNCOMMON_KINDS;

/** The cased scripts whose capitals are kinds of their own, by the kind that holds them. */
const CAPITAL_KINDS = Object.freeze({ capitalLatin: 'latin', capitalGreek: 'greek', capitalCyrillic: 'cyrillic', capitalArmenian: 'armenian' } as const);

export type CharacterKind = (typeof CHARACTER_KINDS)[number];

/** The number of kinds: a pair index is `previous * KIND_COUNT + current`. */
export const KIND_COUNT = CHARACTER_KINDS.length;
/** Size of a table indexed by kind pairs. */
export const PAIR_TABLE_SIZE = KIND_COUNT * KIND_COUNT;
/** Bits of a kind number in a unit-table entry (its UTF-8 bytes sit above them). */
const KIND_BITS = 8;

const KIND_NUMBER = new Map<CharacterKind, number>(CHARACTER_KINDS.map((name, index) => [name, index]));
const CLASS_SET = new Set<string>(CHARACTER_CLASSES);
const LETTER_SET = new Set<string>(SMALL_LETTERS);
const RUSSIAN_SET = new Set<string>(RUSSIAN_LETTERS);
const HINDI_SET = new Set<string>(HINDI_LETTERS);

/** The number of a kind (a class is a kind), as used in pair indexes. */
export function kindNumber(name: CharacterKind): number {
  return KIND_NUMBER.get(name)!;
}

/** The class a kind refines. */
export function classOfKind(kind: CharacterKind): CharacterClass {
  if (CLASS_SET.has(kind)) return kind as CharacterClass;
  if (LETTER_SET.has(kind)) return 'lower';
  if (RUSSIAN_SET.has(kind)) return 'cyrillic';
  if (HINDI_SET.has(kind)) return 'devanagari';
  if (Object.hasOwn(CAPITAL_KINDS, kind)) return CAPITAL_KINDS[kind as keyof typeof CAPITAL_KINDS];
  return UNCOMMON_KINDS[kind as keyof typeof UNCOMMON_KINDS];
}

/** True for the kinds of small ASCII letters. */
export function isSmallLetter(kind: CharacterKind): kind is SmallLetter {
  return LETTER_SET.has(kind);
}

/** True for the kinds of small Russian letters. */
export function isRussianLetter(kind: CharacterKind): kind is RussianLetter {
  return RUSSIAN_SET.has(kind);
}

/** True for the kinds of Hindi letters. */
export function isHindiLetter(kind: CharacterKind): kind is HindiLetter {
  return HINDI_SET.has(kind);
}

/** Classes whose characters continue one word with each other: a change among them starts no run. */
const WORD_GROUPS: ReadonlyArray<readonly CharacterClass[]> = [['upper', 'lower', 'latin'], ['han', 'frequentHan'], ['hangul', 'frequentHangul']];

/**
 * True when `current` after `previous` starts a new run: the classes differ
 * and are not letters of one word (ASCII and other Latin letters; Han of
 * either class; Hangul of either class). Combining
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

/**
 * Code point ranges classed `other` whatever their script: the encoders
 * split them into bytes (2 to 3 tokens a character, measured with o200k and
 * cl100k), where the rest of their script costs about one token or less.
 */
const BYTE_SPLIT_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x80, 0x9f], // C1 controls
  [0x1100, 0x11ff], // Hangul jamo (conjoining)
  [0xa640, 0xa69f], // Cyrillic Extended-B (Old Church Slavonic, Old Abkhaz)
  [0xa960, 0xa97f], // Hangul jamo extended A
  [0xd7b0, 0xd7ff], // Hangul jamo extended B
  [0x10a0, 0x10cf], // Georgian Asomtavruli (ecclesiastical capitals)
  [0x1c80, 0x1c8f], // Cyrillic Extended-C (old letter variants)
  [0x1c90, 0x1cbf], // Georgian Mtavruli (capitals)
  [0x2d00, 0x2d2f], // Georgian Nuskhuri (ecclesiastical small letters)
  [0x1f00, 0x1fff], // Greek Extended (polytonic Greek)
  [0xfb1d, 0xfb4f], // Hebrew presentation forms
  [0xff61, 0xffdc], // half-width CJK punctuation, katakana and Hangul
];

function asciiClass(code: number): CharacterClass {
  if (code >= 65 && code <= 90) return 'upper';
  if (code >= 97 && code <= 122) return 'lower';
  if (code >= 48 && code <= 57) return 'digit';
  if (code === 32) return 'space';
  if (code === 10 || code === 13) return 'break';
  if (code === 9) return 'tab';
  if (code < 32 || code === 127) return 'control';
  return 'punctuation';
}

/**
 * The characters a double-byte legacy encoding assigns to the given lead and
 * trail bytes, decoded by the engine's ICU converters; undefined where the
 * engine lacks the encoding (a build without full ICU).
 */
function decodedCharacters(encoding: string, leads: readonly [number, number], trails: readonly [number, number]): string | undefined {
  const bytes: number[] = [];
  for (let lead = leads[0]; lead <= leads[1]; lead += 1) for (let trail = trails[0]; trail <= trails[1]; trail += 1) bytes.push(lead, trail);
  try {
    return new TextDecoder(encoding).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/**
 * Common Han characters and Hangul syllables, from national standards the
 * engine already knows: the 3,755 characters of GB 2312 level 1 (Chinese in
 * everyday use), and the 2,350 syllables and the compatibility jamo of KS X
 * 1001 (Korean). Alone, a level-1 character averages 1.45 o200k tokens
 * (cl100k 2.04), any other Han character 2.03 (2.44). Empty where the engine lacks
 * the encodings: every character is then priced as uncommon, which
 * over-counts, never under.
 */
function commonCharacters(): string {
  const gb2312LevelOne = decodedCharacters('gbk', [0xb0, 0xd7], [0xa1, 0xfe]) ?? '';
  const ksX1001Hangul = decodedCharacters('euc-kr', [0xb0, 0xc8], [0xa1, 0xfe]) ?? '';
  const ksX1001Jamo = decodedCharacters('euc-kr', [0xa4, 0xa4], [0xa1, 0xfe]) ?? '';
  return gb2312LevelOne + ksX1001Hangul + ksX1001Jamo;
}

/**
 * The most UTF-8 bytes the NFC or NFKC form of an `expanding` character has;
 * an `expandingFar` one has more (up to 33: U+FDFA, a phrase in one
 * character). A tokenizer that normalises first (Qwen: NFC; the public
 * Claude tokenizer: NFKC) counts the normalised form, so U+FB2C, one
 * Hebrew letter of 3 bytes, costs Qwen the 6 bytes of its three NFC code
 * points; such a character's weight is fixed per family (by the fit) and
 * its bytes in the UTF-8 cap are those of its longer normalised form.
 */
const NORMALIZED_BYTES_NEAR = 6;

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Per UTF-16 unit: its kind in the low KIND_BITS bits and its UTF-8 bytes
 * above them (a surrogate half counts 2, so a pair counts its 4; a character
 * that normalisation expands, the bytes of its longer normalised form). Built once
 * (128 KiB) from the engine's Unicode data: one regular-expression pass over
 * the whole BMP, matching runs of one script, then the common Han and Hangul
 * characters.
 */
const UNIT_TABLE = new Uint16Array(0x10000);

function buildUnitTable(): void {
  const units: string[] = [];
  for (let code = 0; code < 0x10000; code += 1) {
    const surrogate = code >= 0xd800 && code <= 0xdfff;
    units.push(surrogate ? '\u0000' : String.fromCharCode(code)); // surrogates are classed below
  }
  const bmp = units.join('');
  const kinds = new Uint8Array(0x10000).fill(kindNumber('other'));
  const groups = [
    ...SCRIPT_CLASSES.map(([name, script]) => [name, `\\p{Script=${script}}+`] as const),
    ['commonPunctuation', '[\\p{Script=Common}&&\\p{P}]+'] as const,
    ['commonSymbol', '[\\p{Script=Common}&&\\p{S}]+'] as const,
    ['commonOther', '[\\p{Script=Common}--\\p{P}--\\p{S}]+'] as const,
  ];
  const pattern = new RegExp(groups.map(([, source]) => `(${source})`).join('|'), 'gv');
  for (const match of bmp.matchAll(pattern)) {
    const group = match.findIndex((value, index) => index > 0 && value !== undefined);
    let name: CharacterKind = groups[group - 1]![0];
    if (name === 'han') name = 'uncommonHan';
    else if (name === 'hangul') name = 'uncommonHangul';
    kinds.fill(kindNumber(name), match.index, match.index + match[0].length);
  }
  // Common characters beyond ASCII that not every tokenizer holds as a token are priced as their bytes (`other`):
  // the Common classes' weights are fitted on the frequent ones, and a rare symbol costs its bytes, up to ten times
  // what those weights charge (common-characters.generated.ts).
  const known = new Set(KNOWN_COMMON_CHARACTERS);
  const commonKinds = new Set(['commonPunctuation', 'commonSymbol', 'commonOther'].map((name) => kindNumber(name as CharacterKind)));
  for (let code = 128; code < 0x10000; code += 1) if (commonKinds.has(kinds[code]!) && !known.has(String.fromCharCode(code))) kinds[code] = kindNumber('other');
  // Latin beyond the blocks the encoders merge well (see CHARACTER_KINDS).
  const [latin, uncommonLatin] = [kindNumber('latin'), kindNumber('uncommonLatin')];
  for (let code = 128; code < 0x10000; code += 1) {
    if (kinds[code] === latin && !((code >= 0xc0 && code <= 0x17f) || (code >= 0x1ea0 && code <= 0x1ef9))) kinds[code] = uncommonLatin;
  }
  // Cyrillic beyond the Russian alphabet, Arabic beyond its basic letters (see CHARACTER_KINDS).
  const [cyrillic, arabic] = [kindNumber('cyrillic'), kindNumber('arabic')];
  for (let code = 0x400; code < 0x10000; code += 1) {
    const russian = (code >= 0x430 && code <= 0x44f && code !== 0x44a) || code === 0x451;
    if (kinds[code] === cyrillic && !russian && !/\p{Lu}/u.test(String.fromCharCode(code))) kinds[code] = kindNumber('uncommonCyrillic');
    else if (kinds[code] === arabic && !((code >= 0x621 && code <= 0x63a) || (code >= 0x641 && code <= 0x64a))) kinds[code] = kindNumber('uncommonArabic');
  }
  const capitalOf = new Map(Object.entries(CAPITAL_KINDS).map(([kind, script]) => [kindNumber(script), kindNumber(kind as CharacterKind)]));
  for (const match of bmp.matchAll(/[\p{Lu}\p{Lt}]/gu)) {
    const capital = match.index >= 128 ? capitalOf.get(kinds[match.index]!) : undefined;
    if (capital !== undefined) kinds[match.index] = capital;
  }
  for (const [first, last] of BYTE_SPLIT_RANGES) kinds.fill(kindNumber('other'), first, last + 1);
  for (const character of commonCharacters()) {
    const code = character.charCodeAt(0);
    if (kinds[code] === kindNumber('uncommonHan')) kinds[code] = kindNumber('han');
    else if (kinds[code] === kindNumber('uncommonHangul')) kinds[code] = kindNumber('hangul');
  }
  for (const character of FREQUENT_HAN_CHARACTERS) kinds[character.charCodeAt(0)] = kindNumber('frequentHan');
  for (const character of FREQUENT_HANGUL_SYLLABLES) kinds[character.charCodeAt(0)] = kindNumber('frequentHangul');
  // Common Han characters that some tokenizer splits into more tokens than nearly all of their class are priced as
  // uncommon ones: their class's weight, fitted on the rest, under-counts them (split-han.generated.ts).
  for (const character of SPLIT_HAN_CHARACTERS) kinds[character.charCodeAt(0)] = kindNumber('uncommonHan');
  for (const match of bmp.matchAll(/\p{Nd}/gu)) if (match.index >= 128) kinds[match.index] = kindNumber('nativeDigit');
  for (const letter of RUSSIAN_LETTERS) kinds[letter.charCodeAt(0)] = kindNumber(letter);
  for (const letter of HINDI_LETTERS) kinds[letter.charCodeAt(0)] = kindNumber(letter);
  const normalizedBytes = new Uint8Array(0x10000);
  for (let code = 128; code < 0x10000; code += 1) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const character = String.fromCharCode(code);
    const bytes = Math.max(utf8Length(character.normalize('NFC')), utf8Length(character.normalize('NFKC')));
    if (bytes <= utf8Length(character)) continue;
    normalizedBytes[code] = bytes;
    // The known Common characters were measured after each tokenizer's normalisation: they stay known.
    if (!known.has(character)) kinds[code] = kindNumber(bytes <= NORMALIZED_BYTES_NEAR ? 'expanding' : 'expandingFar');
  }
  for (let code = 0; code < 0x10000; code += 1) {
    let kind: number = kinds[code]!;
    if (code >= 97 && code <= 122) kind = kindNumber(SMALL_LETTERS[code - 97]!);
    else if (code < 128) kind = kindNumber(asciiClass(code));
    else if (code >= 0xd800 && code <= 0xdbff) kind = kindNumber('highSurrogate');
    else if (code >= 0xdc00 && code <= 0xdfff) kind = kindNumber('lowSurrogate');
    const bytes = normalizedBytes[code] || (code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3);
    UNIT_TABLE[code] = kind | (bytes << KIND_BITS);
  }
}
buildUnitTable();

const KIND_MASK = (1 << KIND_BITS) - 1;

/** The kind of one UTF-16 unit. */
export function characterKindOf(codeUnit: number): CharacterKind {
  return CHARACTER_KINDS[UNIT_TABLE[codeUnit & 0xffff]! & KIND_MASK]!;
}

/** The class of one UTF-16 unit. */
export function characterClassOf(codeUnit: number): CharacterClass {
  return classOfKind(characterKindOf(codeUnit));
}

/**
 * Pair weights in ten-thousandths of a token: profiles are rounded up to four
 * decimals, so integer sums are exact (a float sum can land a hair above a
 * whole count and ceil one token too many) and integer additions do not wait
 * on each other the way float additions do.
 */
export const WEIGHT_SCALE = 10_000;
/**
 * Units weighed per chunk. Each of a chunk's two int32 accumulators takes at
 * most half of them before it is added to the float total, so with
 * MAX_UNIT_WEIGHT neither can overflow.
 */
const CHUNK_UNITS = 8_192;
/** The heaviest pair weight a table takes, in tokens: (2^31 - 1) / (CHUNK_UNITS / 2) / WEIGHT_SCALE, rounded down. */
export const MAX_UNIT_WEIGHT = 52;

/** What `weighText` reads: scaled pair weights by kind, and by ASCII code for the all-ASCII fast path. */
export interface PairTable {
  /** `kinds[previous * KIND_COUNT + current]`, scaled by WEIGHT_SCALE. */
  readonly kinds: Int32Array;
  /**
   * `repeats[kind]`, scaled: added for a unit beyond ASCII that equals the
   * unit before it (a run of one character, which merges far less than
   * words of its class do). Zero for ASCII kinds, whose runs the pairs price.
   */
  readonly repeats: Int32Array;
  /** `ascii[previousCode << 7 | currentCode]` for two ASCII units: the same weights, without the unit-table lookup. */
  readonly ascii: Int32Array;
}

const ASCII_KINDS = Uint8Array.from({ length: 128 }, (_, code) => UNIT_TABLE[code]! & KIND_MASK);
/** The kinds of ASCII units, which never carry a repeat weight. */
const ASCII_KIND_SET = new Set(ASCII_KINDS);

/**
 * Scales a table of pair weights (tokens, indexed like `PAIR_TABLE_SIZE`)
 * and of repeat weights (tokens per kind, `KIND_COUNT` of them; default
 * none) into a `PairTable`, rounding up to WEIGHT_SCALE (never under the
 * given weight by more than float noise). Throws RangeError for a weight
 * that is negative or not finite, or where a pair weight plus its current
 * kind's repeat weight is above MAX_UNIT_WEIGHT.
 */
export function pairTableOf(pairWeights: Float64Array, repeatWeights: Float64Array = new Float64Array(KIND_COUNT)): PairTable {
  if (pairWeights.length !== PAIR_TABLE_SIZE) throw new RangeError(`a pair table has ${PAIR_TABLE_SIZE} weights, not ${pairWeights.length}`);
  if (repeatWeights.length !== KIND_COUNT) throw new RangeError(`a pair table has ${KIND_COUNT} repeat weights, not ${repeatWeights.length}`);
  const kinds = new Int32Array(PAIR_TABLE_SIZE);
  const repeats = new Int32Array(KIND_COUNT);
  for (let kind = 0; kind < KIND_COUNT; kind += 1) {
    const weight = ASCII_KIND_SET.has(kind) ? 0 : repeatWeights[kind]!;
    if (!(weight >= 0 && weight <= MAX_UNIT_WEIGHT)) throw new RangeError(`repeat weight "${CHARACTER_KINDS[kind]}" is ${weight}; a weight is between 0 and ${MAX_UNIT_WEIGHT}`);
    repeats[kind] = Math.ceil(weight * WEIGHT_SCALE - 1e-6);
  }
  for (let index = 0; index < PAIR_TABLE_SIZE; index += 1) {
    const weight = pairWeights[index]!;
    if (!(weight >= 0 && weight + repeats[index % KIND_COUNT]! / WEIGHT_SCALE <= MAX_UNIT_WEIGHT)) {
      const pair = `${CHARACTER_KINDS[Math.floor(index / KIND_COUNT)]} ${CHARACTER_KINDS[index % KIND_COUNT]}`;
      throw new RangeError(`pair weight "${pair}" is ${weight}; a weight (with its repeat weight) is between 0 and ${MAX_UNIT_WEIGHT}`);
    }
    kinds[index] = Math.ceil(weight * WEIGHT_SCALE - 1e-6);
  }
  const ascii = new Int32Array(128 * 128);
  for (let previous = 0; previous < 128; previous += 1) {
    for (let current = 0; current < 128; current += 1) ascii[(previous << 7) | current] = kinds[ASCII_KINDS[previous]! * KIND_COUNT + ASCII_KINDS[current]!]!;
  }
  return { kinds, repeats, ascii };
}

const ENCODER = new TextEncoder();
/** Room for an all-ASCII chunk's UTF-8: a byte per unit (`encodeInto` stops where it is full). */
const CHUNK_BYTES = new Uint8Array(CHUNK_UNITS);

/**
 * A chunk's UTF-16 units, copied by Node's `Buffer.write` (a plain copy for
 * two-byte strings; lone surrogates kept as they are) and read as 16-bit
 * units: the unit path without `charCodeAt`.
 */
const CHUNK_UNITS_BUFFER = Buffer.alloc(CHUNK_UNITS * 2);
const CHUNK_UNIT_VIEW = new Uint16Array(CHUNK_UNITS_BUFFER.buffer, CHUNK_UNITS_BUFFER.byteOffset, CHUNK_UNITS);

/**
 * Sums the pair weights over the kinds of the text's UTF-16 units (the
 * previous kind is `start` for the first), and counts the text's UTF-8 bytes.
 * The hot path of the estimator, with no allocation beyond the result. Each
 * chunk of the text is copied by native code into a reused buffer and read
 * back from it: typed-array reads stay fast whatever representation the
 * engine chose for the string, where `charCodeAt` slows to a generic path
 * once a process has seen concatenated and sliced strings (2-3x, measured in
 * `npm run bench` after other benchmarks).
 *
 * - A chunk that is all ASCII (most tool output, code and English) is
 *   encoded by `TextEncoder.encodeInto` (which also tells whether it was all
 *   ASCII) and weighed by byte pairs from the ASCII table: the byte is its
 *   own index, with no unit-table lookup. It is not tried where the chunk's
 *   first, middle or last unit is not ASCII.
 * - Any other chunk is copied as UTF-16 units by `Buffer.write` (lone
 *   surrogates as they are) and weighed through the unit table, by
 *   `weighUnits`, which also adds the repeat weights.
 *
 * All sum integers into two accumulators, so the additions do not wait on
 * each other.
 */
export function weighText(text: string, table: PairTable): { weight: number; utf8Bytes: number } {
  const { kinds, repeats, ascii } = table;
  let total = 0;
  let utf8Bytes = 0;
  let previous = 0; // the kind before the next unit: `start`
  let previousUnit = -1; // the unit before the next one: none
  for (let offset = 0; offset < text.length; offset += CHUNK_UNITS) {
    const end = Math.min(text.length, offset + CHUNK_UNITS);
    const chunk = offset === 0 && end === text.length ? text : text.slice(offset, end);
    let even = 0;
    let odd = 0;
    /** The chunk's bytes in CHUNK_BYTES when it is all ASCII (one per unit); 0 otherwise. */
    let written = 0;
    if ((text.charCodeAt(offset) | text.charCodeAt((offset + end) >>> 1) | text.charCodeAt(end - 1)) < 128) {
      const encoded = ENCODER.encodeInto(chunk, CHUNK_BYTES);
      if (encoded.read === chunk.length && encoded.written === encoded.read) written = encoded.written;
    }
    if (written > 0) {
      // All ASCII: one byte per unit.
      let code = CHUNK_BYTES[0]!;
      even = kinds[previous * KIND_COUNT + ASCII_KINDS[code]!]!;
      let index = 1;
      for (; index + 1 < written; index += 2) {
        const first = CHUNK_BYTES[index]!;
        const second = CHUNK_BYTES[index + 1]!;
        odd = (odd + ascii[(code << 7) | first]!) | 0;
        even = (even + ascii[(first << 7) | second]!) | 0;
        code = second;
      }
      if (index < written) {
        const last = CHUNK_BYTES[index]!;
        odd = (odd + ascii[(code << 7) | last]!) | 0;
        code = last;
      }
      utf8Bytes += written;
      previous = ASCII_KINDS[code]!;
      previousUnit = code;
    } else {
      UNIT_STATE[0] = previous;
      UNIT_STATE[1] = previousUnit;
      weighUnits(CHUNK_UNITS_BUFFER.write(chunk, 0, 'utf16le') >>> 1, kinds, repeats);
      previous = UNIT_STATE[0]!;
      previousUnit = UNIT_STATE[1]!;
      even = UNIT_STATE[2]!;
      odd = UNIT_STATE[3]!;
      utf8Bytes += UNIT_STATE[4]!;
    }
    total += even + odd;
  }
  return { weight: total / WEIGHT_SCALE, utf8Bytes };
}

/**
 * The unit path's state, carried between `weighText` and `weighUnits`: the
 * kind and unit before the chunk (in), and after it (out), the chunk's two
 * sums and its UTF-8 bytes (out). A function of its own so that the
 * all-ASCII loop stays small and is optimised early (first sight).
 */
const UNIT_STATE = new Int32Array(5);

/** Weighs the first `units` units of CHUNK_UNIT_VIEW through the unit table (see `weighText`). */
function weighUnits(units: number, kinds: Int32Array, repeats: Int32Array): void {
  let previous = UNIT_STATE[0]!;
  let previousUnit = UNIT_STATE[1]!;
  let even = 0;
  let odd = 0;
  let utf8Bytes = 0;
  let index = 0;
  for (; index + 1 < units; index += 2) {
    const firstUnit = CHUNK_UNIT_VIEW[index]!;
    const secondUnit = CHUNK_UNIT_VIEW[index + 1]!;
    const first = UNIT_TABLE[firstUnit]!;
    const second = UNIT_TABLE[secondUnit]!;
    const firstKind = first & KIND_MASK;
    const secondKind = second & KIND_MASK;
    even = (even + kinds[previous * KIND_COUNT + firstKind]! + (firstUnit === previousUnit ? repeats[firstKind]! : 0)) | 0;
    odd = (odd + kinds[firstKind * KIND_COUNT + secondKind]! + (secondUnit === firstUnit ? repeats[secondKind]! : 0)) | 0;
    utf8Bytes += (first >>> KIND_BITS) + (second >>> KIND_BITS);
    previous = secondKind;
    previousUnit = secondUnit;
  }
  if (index < units) {
    const lastUnit = CHUNK_UNIT_VIEW[index]!;
    const last = UNIT_TABLE[lastUnit]!;
    even = (even + kinds[previous * KIND_COUNT + (last & KIND_MASK)]! + (lastUnit === previousUnit ? repeats[last & KIND_MASK]! : 0)) | 0;
    utf8Bytes += last >>> KIND_BITS;
    previous = last & KIND_MASK;
    previousUnit = lastUnit;
  }
  UNIT_STATE[0] = previous;
  UNIT_STATE[1] = previousUnit;
  UNIT_STATE[2] = even;
  UNIT_STATE[3] = odd;
  UNIT_STATE[4] = utf8Bytes;
}

/**
 * How often each (previous, current) kind pair occurs in `text`, keyed
 * `"previous current"`, and how often a unit beyond ASCII of each kind
 * repeats the unit before it, keyed `"repeat kind"`: what `weighText`
 * weighs, for fitting and tests.
 */
export function countKindPairs(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  let previous = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const current = UNIT_TABLE[unit]! & KIND_MASK;
    add(`${CHARACTER_KINDS[previous]} ${CHARACTER_KINDS[current]}`);
    if (unit >= 128 && index > 0 && unit === text.charCodeAt(index - 1)) add(`repeat ${CHARACTER_KINDS[current]}`);
    previous = current;
  }
  return counts;
}
