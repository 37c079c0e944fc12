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
  spaces: number;
  /** Newlines, tabs and other ASCII control whitespace. */
  breaks: number;
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
const CLASSES = 16;

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

/**
 * 1 where the pair (previous class, class) starts something counted once:
 * a letter run, a digit run, or a low surrogate with no high one before it.
 */
const STARTS = new Uint8Array(CLASSES * CLASSES);
for (let previous = 0; previous < CLASSES; previous += 1) {
  for (let current = 0; current < CLASSES; current += 1) {
    const runStart = (current === LETTER || current === DIGIT) && current !== previous;
    const loneLow = current === LOW_SURROGATE && previous !== HIGH_SURROGATE;
    STARTS[previous * CLASSES + current] = runStart || loneLow ? 1 : 0;
  }
}

const units = new Int32Array(CLASSES);
const starts = new Int32Array(CLASSES);

export function countCharacterClasses(text: string): CharacterClassCounts {
  units.fill(0);
  starts.fill(0);
  let previous = 0;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    const current = CLASS_OF_UNIT[text.charCodeAt(index)]!;
    units[current]! += 1;
    starts[current]! += STARTS[(previous << 4) | current]!;
    previous = current;
  }
  return {
    cjk: units[CJK]!,
    otherNonAscii: units[OTHER]!,
    // A high surrogate stands for its pair; a low one counts only when alone.
    astral: units[HIGH_SURROGATE]! + starts[LOW_SURROGATE]!,
    letters: units[LETTER]!,
    letterRuns: starts[LETTER]!,
    digits: units[DIGIT]!,
    digitRuns: starts[DIGIT]!,
    punctuation: units[PUNCTUATION]!,
    spaces: units[SPACE]!,
    breaks: units[BREAK]!,
  };
}
