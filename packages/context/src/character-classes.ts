/**
 * One pass over a string counting the character classes the conservative
 * estimator weighs. Kept allocation-free: it runs over every new message.
 */
export interface CharacterClassCounts {
  /** Han ideographs, kana and Hangul (BMP). */
  cjk: number;
  /** Other BMP characters outside ASCII (accents, CJK punctuation, full-width forms). */
  otherNonAscii: number;
  /** Characters outside the BMP (emoji, rare ideographs): up to four UTF-8 bytes each. */
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

const ASCII_CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code += 1) {
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) ASCII_CLASS[code] = LETTER;
  else if (code >= 48 && code <= 57) ASCII_CLASS[code] = DIGIT;
  else if (code === 32) ASCII_CLASS[code] = SPACE;
  else if (code < 32 || code === 127) ASCII_CLASS[code] = BREAK;
  else ASCII_CLASS[code] = PUNCTUATION;
}

function isCjk(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0x3400 && code <= 0x4dbf) || // extension A
    (code >= 0xf900 && code <= 0xfaff) || // compatibility ideographs
    (code >= 0x3040 && code <= 0x30ff) || // hiragana, katakana
    (code >= 0xac00 && code <= 0xd7af) // Hangul syllables
  );
}

export function countCharacterClasses(text: string): CharacterClassCounts {
  let cjk = 0;
  let otherNonAscii = 0;
  let astral = 0;
  let letters = 0;
  let letterRuns = 0;
  let digits = 0;
  let digitRuns = 0;
  let punctuation = 0;
  let spaces = 0;
  let breaks = 0;
  let previous = 0;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    let kind = 0;
    if (code < 128) {
      kind = ASCII_CLASS[code]!;
      if (kind === LETTER) {
        letters += 1;
        if (previous !== LETTER) letterRuns += 1;
      } else if (kind === DIGIT) {
        digits += 1;
        if (previous !== DIGIT) digitRuns += 1;
      } else if (kind === PUNCTUATION) punctuation += 1;
      else if (kind === SPACE) spaces += 1;
      else breaks += 1;
    } else if (code >= 0xd800 && code <= 0xdbff && index + 1 < length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
      astral += 1;
    } else if (isCjk(code)) cjk += 1;
    else otherNonAscii += 1;
    previous = kind;
  }
  return { cjk, otherNonAscii, astral, letters, letterRuns, digits, digitRuns, punctuation, spaces, breaks };
}
