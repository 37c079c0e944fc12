import type { CharacterClass, HindiLetter, RussianLetter, SmallLetter } from './character-classes.js';

// The shape of a conservative estimator profile: what the fit script writes
// (estimator-profiles.generated.ts) and what the estimator charges. Apart from
// the estimator, so the generated profiles and the estimator import it, not each other.

/** Tokens per character of a class, and per run of it (a run starts where the class changes; see `startsRun`). */
export interface ClassWeights {
  readonly character: number;
  readonly run: number;
}

/**
 * Extra weights of the kinds that refine a class (see `CHARACTER_KINDS`):
 * what a profile knows about words and characters beyond their script.
 */
export interface KindWeights {
  /** Extra tokens per small ASCII letter after a small letter: per previous letter, one number per current letter, a to z. */
  readonly letterPairs: Readonly<Record<SmallLetter, readonly number[]>>;
  /** Extra tokens per small letter that starts a word (after anything but an ASCII letter), a to z. */
  readonly wordStarts: readonly number[];
  /**
   * Extra tokens per word end, by the word's last small letter (a to z),
   * charged on the unit after it when that is not a small letter; the end of
   * the text is not charged.
   */
  readonly wordEnds: readonly number[];
  /** Extra tokens per small Russian letter after a small Russian letter: per previous letter, one number per current letter (`RUSSIAN_LETTERS` order). */
  readonly russianLetterPairs: Readonly<Record<RussianLetter, readonly number[]>>;
  /** Extra tokens per small Russian letter that starts a word (after anything but a Cyrillic character). */
  readonly russianWordStarts: readonly number[];
  /** Extra tokens per word end, by the word's last small Russian letter, charged on the unit after it when that is not Cyrillic. */
  readonly russianWordEnds: readonly number[];
  /** Extra tokens per Hindi letter after a Hindi letter: per previous letter, one number per current letter (`HINDI_LETTERS` order). */
  readonly hindiLetterPairs: Readonly<Record<HindiLetter, readonly number[]>>;
  /** Extra tokens per Hindi letter that starts a word (after anything but a Devanagari character). */
  readonly hindiWordStarts: readonly number[];
  /** Extra tokens per word end, by the word's last Hindi letter, charged on the unit after it when that is not Devanagari. */
  readonly hindiWordEnds: readonly number[];
  /** Extra tokens per uncommon character of Han, Hangul, Latin, Cyrillic and Arabic (see `CHARACTER_KINDS`). */
  readonly uncommon: { readonly han: number; readonly hangul: number; readonly latin: number; readonly cyrillic: number; readonly arabic: number };
  /** Extra tokens per capital letter of the cased scripts beyond ASCII. */
  readonly capitals: { readonly latin: number; readonly greek: number; readonly cyrillic: number; readonly armenian: number };
  /**
   * Extra tokens per unit beyond ASCII that equals the unit before it, by
   * class (classes absent: none): a run of one character (`中中中`, a row
   * of box-drawing lines) merges far less than words of its class.
   */
  readonly repeats: Readonly<Partial<Record<CharacterClass, number>>>;
  /**
   * The most a text can cost: `ceil(utf8Bytes * perByte) + extra`. A
   * byte-level BPE never emits more tokens than the text has bytes (1, 0);
   * a SentencePiece model may add a word-start marker (1, 1).
   */
  readonly utf8Cap: { readonly perByte: number; readonly extra: number };
}

/** What the conservative estimator charges: per class, extra weights of some class pairs, and of refined kinds. */
export interface EstimatorProfile extends KindWeights {
  readonly classes: Readonly<Record<Exclude<CharacterClass, 'start'>, ClassWeights>>;
  /**
   * Extra tokens per character of `current` after `previous`, keyed `"previous current"`
   * (fitted among ASCII, Latin, Common, Han and kana classes): all capitals,
   * capitalised words and digits inside words cost more.
   */
  readonly pairs: Readonly<Record<string, number>>;
}

/** A fitted profile as the fit script writes it: per class `[character, run]`, the class pairs' and the kinds' weights. */
export interface FittedProfile extends KindWeights {
  readonly classes: Readonly<Record<Exclude<CharacterClass, 'start'>, readonly [number, number]>>;
  readonly pairs: Readonly<Record<string, number>>;
}

