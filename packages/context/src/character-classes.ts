/**
 * One pass over a string counting the character classes the conservative
 * estimator weighs. Built for speed: one table lookup per UTF-16 unit, no
 * allocation per character; it runs over every new message.
 */
export interface CharacterClassCounts {
  /** Han ideographs, kana and Hangul (BMP). */
  cjk: number;
  /** Other BMP characters outside ASCII (accents, CJK punctuation, full-width forms). */
  otherNonAscii: number;
  /** Characters outside the BMP (emoji, rare ideographs) and lone surrogates: up to four UTF-8 bytes each. */
  astral: number;
  letters: number;
  /** Maximal runs of ASCII letters: roughly words. */
  letterRuns: number;
  digits: number;
  digitRuns: number;
  punctuation: number;
  punctuationRuns: number;
  spaces: number;
  spaceRuns: number;
  /** Newlines, tabs and other ASCII control whitespace. */
  breaks: number;
  breakRuns: number;
  cjkRuns: number;
  otherNonAsciiRuns: number;
}

const LETTER = 1;
const DIGIT = 2;
const PUNCTUATION = 3;
const SPACE = 4;
const BREAK = 5;
const CJK = 6;
const OTHER = 7;
const HIGH_SURROGATE = 8;
const LOW_SURROGATE = 9;

function classOf(code: number): number {
  if (code < 128) {
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return LETTER;
    if (code >= 48 && code <= 57) return DIGIT;
    if (code === 32) return SPACE;
    if (code < 32 || code === 127) return BREAK;
    return PUNCTUATION;
  }
  if (code >= 0xd800 && code <= 0xdbff) return HIGH_SURROGATE;
  if (code >= 0xdc00 && code <= 0xdfff) return LOW_SURROGATE;
  if (
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0x3400 && code <= 0x4dbf) || // extension A
    (code >= 0xf900 && code <= 0xfaff) || // compatibility ideographs
    (code >= 0x3040 && code <= 0x30ff) || // hiragana, katakana
    (code >= 0xac00 && code <= 0xd7af) // Hangul syllables
  ) {
    return CJK;
  }
  return OTHER;
}

/** The class of every UTF-16 code unit (64 KiB, built once). */
const CLASS_OF_UNIT = new Uint8Array(0x10000);
for (let code = 0; code < 0x10000; code += 1) CLASS_OF_UNIT[code] = classOf(code);

/** Classes in use are 0..9; the pair table is indexed by `previous << 4 | current`. */
const USED_CLASSES = 10;

/** How often each (previous class, class) pair occurs: one increment per code unit. */
const pairs = new Int32Array(USED_CLASSES << 4);
/** Per class: how many code units, summed from `pairs`. */
const totals = new Int32Array(USED_CLASSES);

const pairIndex = (previous: number, current: number) => (previous << 4) | current;

export function countCharacterClasses(text: string): CharacterClassCounts {
  pairs.fill(0);
  let previous = 0;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    const current = CLASS_OF_UNIT[text.charCodeAt(index)]!;
    pairs[(previous << 4) | current]! += 1;
    previous = current;
  }
  totals.fill(0);
  for (let before = 0; before < USED_CLASSES; before += 1) {
    const row = before << 4;
    for (let current = 0; current < USED_CLASSES; current += 1) totals[current]! += pairs[row + current]!;
  }
  // A run starts wherever the class before differs; a low surrogate after a high one is part of its pair.
  const runs = (current: number) => totals[current]! - pairs[pairIndex(current, current)]!;
  return {
    cjk: totals[CJK]!,
    cjkRuns: runs(CJK),
    otherNonAscii: totals[OTHER]!,
    otherNonAsciiRuns: runs(OTHER),
    astral: totals[HIGH_SURROGATE]! + totals[LOW_SURROGATE]! - pairs[pairIndex(HIGH_SURROGATE, LOW_SURROGATE)]!,
    letters: totals[LETTER]!,
    letterRuns: runs(LETTER),
    digits: totals[DIGIT]!,
    digitRuns: runs(DIGIT),
    punctuation: totals[PUNCTUATION]!,
    punctuationRuns: runs(PUNCTUATION),
    spaces: totals[SPACE]!,
    spaceRuns: runs(SPACE),
    breaks: totals[BREAK]!,
    breakRuns: runs(BREAK),
  };
}
