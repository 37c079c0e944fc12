import { CHARACTER_KINDS, KIND_COUNT, PAIR_TABLE_SIZE, SMALL_LETTERS, classOfKind, isSmallLetter, startsRun, weighText, type CharacterClass, type SmallLetter } from './character-classes.js';
import type { CanonicalMessage, MediaPart } from './messages.js';
import { jsonText, messageText } from './message-text.js';
import type { TokenEstimator, TokenizerFamily, ToolSchema } from './token-estimator.js';

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
  /** Extra tokens per uncommon Han character and per uncommon Hangul character. */
  readonly uncommon: { readonly han: number; readonly hangul: number };
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

/** Per class `[character, run]`, extra weights of `"previous current"` class pairs, and the kinds' weights. */
function profile(classes: Record<Exclude<CharacterClass, 'start'>, readonly [number, number]>, pairs: Record<string, number>, kinds: KindWeights): EstimatorProfile {
  const weights = Object.fromEntries(Object.entries(classes).map(([name, [character, run]]) => [name, Object.freeze({ character, run })]));
  const letterPairs = Object.fromEntries(Object.entries(kinds.letterPairs).map(([letter, row]) => [letter, Object.freeze([...row])]));
  return Object.freeze({
    classes: Object.freeze(weights) as EstimatorProfile['classes'],
    pairs: Object.freeze({ ...pairs }),
    letterPairs: Object.freeze(letterPairs) as KindWeights['letterPairs'],
    wordStarts: Object.freeze([...kinds.wordStarts]),
    wordEnds: Object.freeze([...kinds.wordEnds]),
    uncommon: Object.freeze({ ...kinds.uncommon }),
  });
}

/**
 * Per-family profiles, fitted as a linear program (HiGHS, by
 * `packages/context/estimator-fit/`) and rounded up to four decimals.
 * Constraints: no text of 200+ characters and no whole conversation
 * under-counted on the shared real histories (alpaca zh/en, glaive zh/en,
 * tau-bench, SWE-agent, reason-tool-use) and on the generated corpora of
 * `estimator-corpus.ts` (ICU text in every locale, every script mixed with
 * Japanese, Chinese, English and Russian, all capitals, base64 and hex,
 * minified code, emoji sequences, long runs); conversations of the generated
 * corpora with 1% to spare. Objective: the mean over-count per conversation
 * of each shared corpus, the Chinese ones weighted up (they sit nearest the
 * 40% median goal). `unknown` is fitted the same way to
 * the larger of the o200k and cl100k counts of each text.
 *
 * Small ASCII letters are priced by letter pair, word start and word end
 * (`KindWeights`): that is what tells English words (about 4.5 characters
 * per token) from rare names (Uzbek, Ewe, Akan, Toki Pona names in ICU:
 * about 3), which one weight per letter could not (it held those names to
 * 0.8 of their count for a 34-48% median over-count of English; now they are
 * held in full). About 700 letter weights fit their training text closely,
 * so text that is more than 30% small letters is held to 1.1 times its exact
 * count: fitted on half of the conversations, that margin leaves 2-5 of
 * about 500 unseen alpaca conversations under-counted (the class-only
 * profiles, fitted the same way: 1-3). Han characters outside GB 2312 level 1 and Hangul syllables
 * outside KS X 1001 carry an extra weight (`uncommon`).
 *
 * Floors per character keep unseen text over-counted: 1/3 per digit (the
 * encoders split digits in threes), 0.11 per ASCII letter, 0.3 per character
 * of any other script. Scripts without a class (`other`) and surrogate halves
 * are charged their UTF-8 bytes per character, the most a byte-level BPE
 * emits; only their run weights are fitted (a space beside them is a token of its own).
 */
export const ESTIMATOR_PROFILES: Readonly<Record<TokenizerFamily, EstimatorProfile>> = Object.freeze({
  o200k: profile(
    {
      upper: [0.11, 0],
      lower: [0.11, 0],
      digit: [0.3334, 0],
      punctuation: [0.12, 0],
      space: [0.008, 0],
      break: [0.06, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [0.3062, 0],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.0092, 0.8694],
      greek: [0.7068, 1.7826],
      cyrillic: [1.01, 0],
      armenian: [1.0084, 0],
      hebrew: [0.4008, 1.3315],
      arabic: [0.5684, 2],
      devanagari: [0.3449, 1.4182],
      bengali: [0.4243, 1.6125],
      gurmukhi: [0.7043, 0.7846],
      gujarati: [0.5348, 1.0598],
      oriya: [1.2122, 0],
      tamil: [0.5493, 1.2125],
      telugu: [0.4114, 2],
      kannada: [0.4361, 2],
      malayalam: [0.7261, 0],
      sinhala: [0.7815, 0],
      thai: [0.4487, 1.8116],
      lao: [2.0199, 0.4139],
      tibetan: [1.4751, 1.8871],
      myanmar: [1.4083, 0],
      khmer: [0.6799, 1.4852],
      georgian: [2.8824, 1.8874],
      ethiopic: [1.832, 1.9349],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.144, 0],
      other: [3, 1.5247],
      highSurrogate: [2, 0.4051],
      lowSurrogate: [2, 0],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 1.362,
      'start han': 2,
      'start commonSymbol': 2,
      'upper upper': 0.3939,
      'upper lower': 0.4421,
      'upper digit': 0.0219,
      'upper punctuation': 0.5821,
      'upper space': 0.9639,
      'upper latin': 2,
      'upper commonOther': 1.5163,
      'lower digit': 0.0156,
      'lower break': 0.0995,
      'lower commonOther': 1.0929,
      'lower commonPunctuation': 1.0342,
      'lower combining': 2,
      'lower han': 1.2713,
      'lower kana': 1.6422,
      'digit upper': 1.8171,
      'digit lower': 0.875,
      'digit digit': 0.0022,
      'digit space': 0.8328,
      'digit commonPunctuation': 1.2062,
      'digit commonSymbol': 2,
      'punctuation upper': 0.3224,
      'punctuation digit': 0.9732,
      'punctuation punctuation': 0.5466,
      'punctuation space': 1.1247,
      'punctuation break': 0.4197,
      'punctuation commonOther': 1.5559,
      'punctuation commonPunctuation': 0.8596,
      'space upper': 0.0369,
      'space digit': 1.5554,
      'space punctuation': 0.132,
      'space break': 0.3257,
      'space commonOther': 1.5519,
      'break upper': 1.0635,
      'break digit': 1.1997,
      'break space': 1.5184,
      'break break': 0.0051,
      'break han': 0.4178,
      'latin lower': 2,
      'latin punctuation': 2,
      'commonOther lower': 1.4158,
      'commonOther commonOther': 2,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 0.9898,
      'commonPunctuation punctuation': 0.4143,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.3399,
      'commonPunctuation kana': 0.9439,
      'combining upper': 0.1682,
      'combining lower': 1.4951,
      'combining digit': 0.1774,
      'combining latin': 2,
      'combining kana': 0.1643,
      'han space': 1.3881,
      'han break': 1.3333,
      'han commonPunctuation': 1.0645,
      'han han': 0.7213,
      'han kana': 1.091,
      'kana space': 2,
      'kana commonPunctuation': 2,
      'kana han': 0.0301,
      'kana kana': 0.0864,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol commonSymbol': 2,
    },
    {
      letterPairs: {
        a: [0.0274, 0, 0, 0.1718, 0, 1.2718, 0, 0.6832, 0.4093, 0, 0, 0, 0, 0, 2, 0.052, 0, 0.0887, 0, 0, 0, 0.2748, 2, 0, 0.0123, 1.3459],
        b: [0.1227, 0, 2, 1.7883, 0, 2, 2, 2, 0.3131, 0, 2, 0, 0, 2, 0, 0.4605, 2, 0, 0, 1.1107, 0.1513, 2, 2, 0, 0.3696, 2],
        c: [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.7281, 0, 0, 0, 0, 2, 0, 0],
        d: [0, 0, 0, 0, 0.2748, 1.7088, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.4439, 2, 0, 0, 1.2055, 0],
        e: [0, 0, 0, 0, 0.2797, 0, 0, 0, 0, 2, 2, 0, 0.022, 0, 2, 0.9647, 0, 0, 0, 0, 0, 0, 0.4739, 0, 0.5528, 1.072],
        f: [0, 1.0517, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0.0646, 0, 0, 0.0164, 0, 2, 0, 2, 0, 0, 2, 0, 0.3173, 0, 2],
        g: [1.048, 2, 0, 0, 0, 0, 2, 0, 0.6849, 2, 2, 0.4754, 0, 0, 0, 0, 0, 0, 1.919, 0, 0, 2, 0, 0, 0, 0],
        h: [0, 2, 2, 0, 0, 0, 0, 0, 0.7773, 2, 0, 0, 1.1902, 0, 0.003, 0.0142, 2, 0, 0.135, 0.8306, 1.4505, 0, 2, 0, 0, 2],
        i: [0.796, 0, 0, 0, 0, 0.1078, 0, 0, 0, 0.889, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1.7367, 0.6309, 0, 0, 1.0596, 0],
        j: [0.9595, 0, 0, 2, 0, 0, 2, 2, 2, 0, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0.3745, 2, 2, 1.5743, 0, 2, 0, 0, 0, 0, 0, 0, 2, 2],
        l: [0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 1.0461, 0.096, 0, 0, 0, 0.7858, 2, 1.7307, 0, 0, 0, 0, 0, 2, 0, 0],
        m: [0, 0, 0, 1.3317, 0, 0, 0, 2, 0.0318, 2, 0, 0.0902, 0, 0.3975, 0.079, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1.1571, 2],
        n: [0.0854, 2, 0, 0, 0, 0, 0, 0, 0.2557, 0.0392, 1.3996, 0, 0, 0.6935, 0, 2, 0.602, 0, 0, 0, 0.473, 0, 0, 0, 0, 2],
        o: [0, 0, 0, 0, 0, 0, 0.1756, 0, 0.3629, 2, 0, 1.3148, 0, 0, 0, 0, 0, 0, 0, 1.1901, 0, 0, 0, 0.512, 0, 0],
        p: [0, 0, 0, 0, 0, 0, 0.8179, 0, 0.2318, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0.0616, 0.1859, 1.257, 0, 0, 0.5787, 2],
        q: [0, 2, 0.5298, 2, 2, 2, 0, 2, 0, 0, 2, 0, 2, 2, 2, 2, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2],
        r: [0, 1.933, 0, 1.4068, 0, 0.9717, 0, 1.4988, 0, 0.4042, 0, 0, 0, 1.8357, 0, 0, 0, 0.0978, 0.7417, 0, 0, 1.4703, 1.1191, 0, 0, 2],
        s: [1.1171, 0.6759, 0, 2, 0, 0, 0, 0.967, 0, 2, 0.7305, 0, 0.7862, 2, 0.2289, 0.3028, 0.3399, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0, 0, 2, 0, 0, 0, 0.122, 0, 2, 0, 0, 1.415, 0, 0, 0, 2, 0, 0, 0.3415, 0, 0, 0, 0, 0, 0],
        u: [0, 0, 0, 0, 0, 0.4511, 0, 2, 0.3415, 2, 2, 0, 0.1793, 0, 0.5684, 0.0285, 2, 0.264, 0, 0, 0, 2, 2, 0, 0.8472, 0],
        v: [0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 2, 0, 2, 2, 2, 0, 0, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.199, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0.2772, 2, 0, 0.6669, 0, 0, 1.765, 1.1271, 0.4744, 2, 0, 2],
        x: [0, 0, 0, 2, 0.1427, 2, 0, 0, 1.4035, 2, 2, 0, 0, 2, 0, 0, 2, 0, 2, 0, 0, 2, 2, 2, 0, 0],
        y: [2, 0.2063, 0.858, 0, 1.0092, 0, 0.3571, 0, 0, 0, 0, 0, 0, 0, 0, 0.3069, 2, 1.8997, 0, 0, 2, 0, 0, 0, 0.3159, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0.3984, 2, 2, 0, 0, 0, 2, 2, 0],
      },
      wordStarts: [0, 0, 0, 0, 0, 0.0137, 0, 0.6835, 0.7438, 0, 1.2515, 0.1049, 0, 0.0495, 0.5845, 0, 0.4825, 0, 0, 0.4876, 0, 0.3519, 0.0398, 1.0661, 0.1124, 2],
      wordEnds: [0.92, 2, 1.7239, 0.0782, 0.0942, 0.6167, 0.6113, 0.7779, 2, 1.5083, 0.2746, 0, 0, 0.1636, 0.7943, 0.5078, 2, 0, 0, 0, 0.6923, 2, 0.4259, 0, 0, 2],
      uncommon: { han: 2, hangul: 0 },
    },
  ),
  cl100k: profile(
    {
      upper: [0.11, 0],
      lower: [0.11, 0],
      digit: [0.3334, 0],
      punctuation: [0.12, 0],
      space: [0.008, 0],
      break: [0.06, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [0.735, 0],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.0077, 2],
      greek: [2.0031, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.2635, 0],
      hebrew: [1.3498, 0],
      arabic: [1.2126, 2],
      devanagari: [1.1481, 2],
      bengali: [1.3145, 2],
      gurmukhi: [2.122, 0],
      gujarati: [2.0946, 0],
      oriya: [3, 1.4862],
      tamil: [1.5534, 0.8401],
      telugu: [2.1288, 0],
      kannada: [2.1352, 0],
      malayalam: [1.8399, 1.2801],
      sinhala: [2.2641, 0],
      thai: [0.9889, 1.5174],
      lao: [2.043, 2],
      tibetan: [2.1132, 0.8853],
      myanmar: [2.5637, 0],
      khmer: [1.9652, 0],
      georgian: [2.8995, 0.8073],
      ethiopic: [3, 0.5538],
      han: [0.3, 0],
      kana: [0.3, 1.2597],
      hangul: [1.6845, 0],
      other: [3, 1.0727],
      highSurrogate: [2, 0.2277],
      lowSurrogate: [2, 0.1008],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 1.01,
      'start han': 2,
      'upper upper': 0.3938,
      'upper lower': 0.5866,
      'upper punctuation': 0.94,
      'upper space': 0.9185,
      'upper latin': 2,
      'upper commonOther': 0.1694,
      'lower digit': 0.3143,
      'lower latin': 1.8318,
      'lower commonOther': 2,
      'lower commonPunctuation': 1.5399,
      'lower combining': 2,
      'lower han': 1.8042,
      'lower kana': 1.8252,
      'digit upper': 2,
      'digit lower': 0.7125,
      'digit digit': 0.002,
      'digit space': 0.8592,
      'digit commonSymbol': 2,
      'punctuation upper': 0.0296,
      'punctuation digit': 0.9027,
      'punctuation punctuation': 0.5396,
      'punctuation space': 1.2205,
      'punctuation break': 0.2016,
      'space digit': 1.6095,
      'space punctuation': 0.0452,
      'space break': 0.6081,
      'space latin': 2,
      'space commonOther': 2,
      'space han': 0.3218,
      'space kana': 0.3153,
      'break upper': 0.8662,
      'break digit': 1.0821,
      'break punctuation': 0.2093,
      'break space': 1.7224,
      'break break': 0.0041,
      'break han': 0.3492,
      'latin lower': 2,
      'latin punctuation': 0.9595,
      'commonOther upper': 2,
      'commonOther lower': 1.6123,
      'commonOther commonOther': 1.102,
      'commonOther commonPunctuation': 2,
      'commonPunctuation punctuation': 0.9076,
      'commonPunctuation break': 0.4502,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.812,
      'combining lower': 0.4118,
      'combining digit': 1.3177,
      'combining latin': 0.5983,
      'combining combining': 1.3048,
      'han punctuation': 0.516,
      'han space': 1.9894,
      'han break': 0.9423,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'han kana': 1.6557,
      'kana space': 2,
      'kana commonOther': 0.9145,
      'kana han': 0.6492,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 2,
    },
    {
      letterPairs: {
        a: [0.0271, 0.0262, 0, 0.2751, 2, 0.762, 0, 2, 0.1272, 0, 0, 0, 0.0496, 0.0821, 2, 0, 0, 0.0093, 0, 0, 0.1527, 0.5457, 1.6857, 0, 0.2241, 2],
        b: [0, 0, 2, 0, 0, 2, 2, 2, 0.1396, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 0.5076, 0, 2, 0.5408, 0, 0, 2],
        c: [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0.3261, 0.3093, 0, 0, 0, 0, 0, 0, 0.8893, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0, 0.2949, 0, 0, 2, 0, 2, 0.6639, 1.1311, 0.1991, 0, 0, 0, 0, 0.1685, 0, 0, 0.4108, 1.3052, 0, 2, 0.7025, 0],
        e: [0, 0, 0, 0, 0.1016, 0, 0.6753, 0, 0, 0, 2, 0, 0, 0, 1.3247, 1.2129, 0, 0, 0, 0, 0, 0, 0, 0, 0.5888, 0.0791],
        f: [0.3817, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0.1462, 0, 2, 0.3022, 2, 0, 0, 2, 0, 2, 0.0593, 2],
        g: [0.6044, 1.5863, 0, 0, 0, 0, 1.705, 0, 0.2619, 2, 2, 0, 0, 0, 0.0414, 0, 0, 1.0198, 0.6436, 0, 0, 2, 1.9467, 0, 0, 0],
        h: [0, 1.7617, 2, 0, 0, 0, 1.1493, 2, 0.4375, 0, 0, 0, 0.3869, 0, 0, 0, 2, 0, 0, 0.87, 2, 2, 2, 0, 0, 2],
        i: [2, 1.1091, 0, 0, 0.0752, 0, 0, 1.8634, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0.1512, 0, 0.5661, 0.4909, 0, 0, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 2, 0, 0, 2, 0, 0, 0.951, 2, 2, 0, 2, 0.1953, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 0, 0, 0, 0, 2, 0.5818, 0, 2, 0, 2, 1.4601, 2, 0, 0, 2, 0, 0, 0.586, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.0765, 0, 0.0992, 2, 1.5279, 0.0022, 0, 0.7324, 0.2637, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 2, 0, 0],
        m: [0, 0, 0, 1.7386, 0, 1.8118, 2, 2, 0.0903, 2, 2, 0.1708, 0, 0.1116, 0.168, 0, 2, 2, 0.1667, 0, 0, 0, 0, 0, 0.5827, 2],
        n: [0.464, 2, 0, 0, 0.1455, 0, 0, 0, 0.3574, 2, 1.8757, 0, 0, 0.2496, 0, 2, 1.5948, 0, 0.1878, 0, 0.6498, 0, 0, 0, 0, 0],
        o: [0, 0, 0, 0, 0, 0, 0.1309, 0, 0, 1.2719, 0, 1.0106, 0, 0, 0, 0, 2, 0, 0, 1.1223, 0, 0.0155, 0, 0.4794, 0, 2],
        p: [0, 0, 0, 0, 0, 0, 0, 0, 0.8831, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0.19, 0.0514, 0, 0.7508, 2, 0, 0.8602, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0, 0, 0, 2, 0, 2, 2, 2, 2, 2],
        r: [0, 2, 0, 1.5067, 0, 0.1362, 0, 2, 0, 2, 0, 0, 0, 1.8123, 0, 0, 2, 0.1936, 0.0298, 0, 0, 0.8112, 0.705, 2, 0, 2],
        s: [1.1495, 0, 0, 2, 0.1775, 0, 0, 0.6512, 0, 0, 0.3028, 0, 0.0593, 2, 0.0254, 0, 0.3959, 2, 0, 0.0859, 0.0985, 0, 0, 0, 0, 2],
        t: [0, 0, 0.319, 2, 0, 0, 0, 0, 0, 2, 1.9714, 0, 2, 0, 0, 0, 2, 0.1107, 0, 0, 0, 0, 0, 0, 0, 0],
        u: [0, 0, 0, 0, 0, 0.2063, 0, 0.6159, 0, 2, 2, 0, 0.0449, 0, 0, 0, 2, 0.0428, 0, 0, 1.1523, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 2, 2, 2, 2, 2, 0, 0, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.0923, 0.135, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 2, 1.5134, 0, 0, 2, 2, 0.2036, 2, 0.8148, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 0, 0.8199, 2, 2, 0, 0, 0.9557, 0, 0, 2, 0, 2, 0, 1.9904, 2, 2, 2, 2, 2],
        y: [2, 1.7985, 0, 0.1745, 1.3822, 0, 2, 0, 0, 0, 2, 0, 0, 0.3191, 0, 0, 2, 1.534, 0, 0, 2, 0, 0, 2, 0, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0],
      },
      wordStarts: [0, 0.2271, 0.0709, 0, 0, 0, 0.1923, 0.4696, 0.5091, 0, 1.0568, 0.5287, 0.0446, 0, 0.3551, 0, 1.1934, 0, 0.0632, 0.5131, 0, 0.0982, 0, 1.5555, 0, 2],
      wordEnds: [0.9557, 2, 0.7341, 0.194, 0.1363, 0.5014, 0.2857, 0.6441, 2, 1.6403, 0.1506, 0, 0, 0.3212, 0.4904, 0.3222, 2, 0.0623, 0, 0, 0.7756, 2, 0.4202, 0, 0, 0.8108],
      uncommon: { han: 2, hangul: 0 },
    },
  ),
  unknown: profile(
    {
      upper: [0.11, 0],
      lower: [0.11, 0],
      digit: [0.3334, 0],
      punctuation: [0.12, 0],
      space: [0.008, 0],
      break: [0.06, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [0.735, 0],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.0077, 2],
      greek: [2.0032, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.2644, 0],
      hebrew: [1.3498, 0],
      arabic: [1.2237, 2],
      devanagari: [1.1136, 2],
      bengali: [1.2927, 2],
      gurmukhi: [2.122, 0],
      gujarati: [2.0958, 0],
      oriya: [3, 1.5089],
      tamil: [1.4874, 1.2521],
      telugu: [2.1322, 0],
      kannada: [2.1385, 0],
      malayalam: [1.7356, 1.9847],
      sinhala: [2.2659, 0],
      thai: [0.9889, 1.5174],
      lao: [2.0339, 2],
      tibetan: [2.1138, 0.8877],
      myanmar: [2.5637, 0],
      khmer: [1.9697, 0],
      georgian: [2.9029, 1.7272],
      ethiopic: [3, 0.5538],
      han: [0.3, 0],
      kana: [0.3, 1.4469],
      hangul: [1.6845, 0],
      other: [3, 1.1644],
      highSurrogate: [2, 0.2191],
      lowSurrogate: [2, 0.1037],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 1.0886,
      'start han': 2,
      'upper upper': 0.3939,
      'upper lower': 0.5194,
      'upper punctuation': 0.9469,
      'upper space': 0.9013,
      'upper latin': 2,
      'upper commonOther': 0.1757,
      'lower digit': 0.6641,
      'lower latin': 1.7588,
      'lower commonOther': 2,
      'lower commonPunctuation': 1.5164,
      'lower combining': 2,
      'lower han': 1.7631,
      'lower kana': 1.7212,
      'digit upper': 2,
      'digit lower': 0.3124,
      'digit digit': 0.0021,
      'digit space': 0.8354,
      'digit commonSymbol': 2,
      'punctuation upper': 0.1303,
      'punctuation lower': 0.0039,
      'punctuation digit': 0.9027,
      'punctuation punctuation': 0.5466,
      'punctuation space': 1.1659,
      'punctuation break': 0.2316,
      'punctuation commonOther': 0.1923,
      'space digit': 1.7002,
      'space punctuation': 0.0556,
      'space break': 0.8702,
      'space latin': 2,
      'space commonOther': 2,
      'space han': 0.329,
      'space kana': 0.1487,
      'break upper': 0.9024,
      'break digit': 1.0321,
      'break punctuation': 0.2538,
      'break space': 1.6195,
      'break break': 0.0041,
      'break han': 0.2095,
      'latin lower': 2,
      'latin punctuation': 1.8964,
      'latin space': 0.0553,
      'commonOther upper': 2,
      'commonOther lower': 0.5896,
      'commonOther commonOther': 1.0465,
      'commonOther commonPunctuation': 2,
      'commonPunctuation punctuation': 0.9459,
      'commonPunctuation break': 0.4952,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.6795,
      'combining lower': 0.5755,
      'combining digit': 1.5984,
      'combining latin': 0.6277,
      'combining combining': 1.1018,
      'han punctuation': 0.4952,
      'han space': 1.9651,
      'han break': 0.9796,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'han kana': 1.4555,
      'kana space': 2,
      'kana commonOther': 0.7115,
      'kana han': 0.6012,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 2,
    },
    {
      letterPairs: {
        a: [0.0271, 0, 0, 0.3926, 2, 0.9309, 0, 2, 0.1067, 0, 0, 0, 0.0523, 0.0401, 2, 0, 0, 0, 0, 0, 0.116, 0.6431, 2, 0, 0.0377, 2],
        b: [0, 0, 2, 0, 0, 0, 2, 2, 0.2319, 0, 2, 0, 0, 2, 0, 0.8026, 2, 0.0468, 0, 0.4454, 0, 2, 2, 0.3413, 0.2124, 2],
        c: [0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0.4459, 0.1564, 0, 0, 0, 0, 0, 0, 1.9563, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0, 0.3631, 0, 0, 2, 0, 2, 0, 0.4683, 0, 0, 0, 0, 0, 0, 0, 0, 0.4815, 1.6313, 0, 2, 0.322, 2],
        e: [0, 0, 0, 0, 0.1273, 0, 0.7033, 0, 0, 0, 2, 0, 0, 0, 2, 1.0896, 0, 0, 0, 0, 0, 0.0629, 0, 0, 0.0884, 0.5971],
        f: [0.6168, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0.0977, 0, 2, 0, 2, 0, 0, 2, 0, 2, 0, 2],
        g: [0.9618, 2, 1.1969, 0, 0, 0, 1.3818, 0, 0.5672, 2, 2, 0, 0, 0, 0, 0, 0, 0.9412, 0.6197, 0, 0, 2, 1.0709, 0, 0, 0],
        h: [0, 1.6269, 2, 0, 0, 2, 0.5624, 2, 0.4933, 2, 0, 0, 0.2078, 0, 0, 0, 2, 0, 0.4457, 0.9133, 2, 2, 2, 0, 0, 2],
        i: [2, 0.8412, 0, 0, 0.2065, 0, 0, 2, 2, 0, 2, 0, 0, 0, 0, 0.2417, 0, 0.1028, 0.0834, 0, 0.2735, 0.4561, 0, 0, 2, 0],
        j: [2, 2, 2, 2, 0.2568, 2, 2, 2, 2, 2, 0, 0, 2, 0, 0, 0.9181, 2, 2, 0, 2, 0.0854, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 2, 0, 0, 0, 2, 0.2536, 0, 2, 0.2108, 2, 1.0708, 2, 0, 0, 2, 0, 0.1828, 0.4772, 2, 0.2044, 0, 0.2108, 2],
        l: [0, 2, 0, 0.1835, 0, 0, 2, 1.2982, 0.1844, 0, 0.7498, 0.3364, 0, 0, 0, 2, 2, 1.1653, 0, 0, 0, 0, 0, 2, 0, 2],
        m: [0, 0, 0, 2, 0, 2, 2, 2, 0.3748, 2, 2, 0, 0, 0, 0.2958, 0, 2, 2, 0.1719, 0, 0, 0, 0, 0, 0.7969, 2],
        n: [0.4422, 2, 0, 0, 0.0855, 0, 0, 0, 0.4269, 2, 1.9011, 0, 0, 0.153, 0, 2, 2, 0, 0.2123, 0, 0.7063, 0, 0, 0, 0, 0],
        o: [0, 0, 0, 0, 0, 0, 0.3553, 0, 0.0151, 1, 0, 1.1034, 0, 0, 0, 0, 2, 0, 0, 1.1891, 0, 0.0147, 0, 0.8379, 0, 0.5435],
        p: [0, 0, 0, 0.4919, 0, 0, 0, 0, 0.8742, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1.1375, 2, 0, 0.8397, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 2, 0, 0, 2, 0, 2, 2, 2, 2, 2],
        r: [0, 2, 0, 1.5327, 0, 0.7252, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 0.2227, 0.1189, 0, 0.1835, 0.7504, 1.4463, 2, 0, 2],
        s: [0.7368, 0, 0, 1.018, 0.2161, 0, 0, 0.5729, 0, 0, 0.1885, 0, 0, 2, 0.0481, 0.0659, 0.6859, 2, 0, 0.1193, 0.1217, 0, 0, 1.8378, 0, 2],
        t: [0, 0.9761, 0.3037, 2, 0, 0, 0, 0, 0, 2, 2, 0, 1.919, 0, 0, 0, 2, 0.14, 0, 0.4308, 0, 0, 0, 0, 0, 0],
        u: [0, 0, 0, 0, 0, 0.0419, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 0.1219, 0, 0, 1.0097, 2, 2, 0, 0.194, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 2, 2, 2, 2, 2, 0, 2, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.1696, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 2, 1.2743, 0, 0, 2, 2, 0.1902, 2, 0.6585, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 0, 1.6061, 2, 2, 0, 0, 2, 0, 0, 2, 0, 2, 0, 2, 2, 2, 2, 2, 2],
        y: [2, 0.2393, 0, 0.1745, 1.555, 0, 2, 0, 0.2258, 0, 2, 0, 0, 0.6401, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 2, 2, 2, 1.9284, 2, 2, 2, 2, 0],
      },
      wordStarts: [0, 0.1174, 0.0141, 0, 0, 0, 0, 0.6823, 0.5832, 0, 1.885, 0.2568, 0, 0, 0.3553, 0, 1.1919, 0, 0, 0.4731, 0, 0, 0, 1.3395, 0, 2],
      wordEnds: [0.9371, 2, 1.354, 0.1786, 0.1562, 0.5377, 0.1411, 0.8854, 2, 1.7215, 0.2108, 0, 0, 0.2838, 0.5973, 0, 2, 0.0802, 0, 0, 0.7193, 2, 0.4802, 0, 0, 1.2246],
      uncommon: { han: 2, hangul: 0 },
    },
  ),
});

/** The weight of every (previous, current) kind pair: what `weighText` sums. */
export function pairWeightsOf(profile: EstimatorProfile): Float64Array {
  const table = new Float64Array(PAIR_TABLE_SIZE);
  const letterNumber = (letter: SmallLetter) => SMALL_LETTERS.indexOf(letter);
  for (const [previousNumber, previousKind] of CHARACTER_KINDS.entries()) {
    for (const [currentNumber, currentKind] of CHARACTER_KINDS.entries()) {
      const previous = classOfKind(previousKind);
      const current = classOfKind(currentKind);
      if (current === 'start') continue;
      const weights = profile.classes[current];
      let weight = weights.character + (startsRun(previous, current) ? weights.run : 0);
      weight += profile.pairs[`${previous} ${current}`] ?? 0;
      if (isSmallLetter(previousKind) && isSmallLetter(currentKind)) weight += profile.letterPairs[previousKind][letterNumber(currentKind)]!;
      if (isSmallLetter(currentKind) && !isSmallLetter(previousKind) && previousKind !== 'upper') weight += profile.wordStarts[letterNumber(currentKind)]!;
      if (isSmallLetter(previousKind) && !isSmallLetter(currentKind)) weight += profile.wordEnds[letterNumber(previousKind)]!;
      if (currentKind === 'uncommonHan') weight += profile.uncommon.han;
      if (currentKind === 'uncommonHangul') weight += profile.uncommon.hangul;
      table[previousNumber * KIND_COUNT + currentNumber] = weight;
    }
  }
  return table;
}

const PAIR_WEIGHTS = new WeakMap<EstimatorProfile, Float64Array>();

/** Role and framing tokens of one chat message (OpenAI charges 3, plus a name). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Framing of one tool call inside an assistant message. */
export const TOOL_CALL_OVERHEAD_TOKENS = 6;
/** Framing of one tool schema in the request's tool list. */
export const TOOL_SCHEMA_OVERHEAD_TOKENS = 12;

/**
 * Counts `text` with the profile, never above the text's UTF-8 byte count:
 * a byte-level BPE never emits more tokens than the text has bytes.
 */
export function estimateTextTokens(text: string, profile: EstimatorProfile): number {
  let pairWeights = PAIR_WEIGHTS.get(profile);
  if (pairWeights === undefined) {
    pairWeights = pairWeightsOf(profile);
    PAIR_WEIGHTS.set(profile, pairWeights);
  }
  const { weight, utf8Bytes } = weighText(text, pairWeights);
  return Math.min(Math.ceil(weight), utf8Bytes);
}

/**
 * Tokens charged per image, whatever its size: Anthropic's cost of the
 * largest image it keeps unscaled (about 1.15 megapixels / 750), above
 * OpenAI's high-detail maximum for a 2048 x 768 image (85 + 8 x 170 = 1,445).
 */
export const IMAGE_TOKENS = 1_600;
/**
 * Tokens charged per byte of an inline file: a byte-level BPE never emits
 * more tokens than bytes, so this bounds text files. For compressed formats
 * (PDF) it is an estimate, not a bound.
 */
export const FILE_TOKENS_PER_BYTE = 1;
/** Tokens charged for a file given by URL, whose size is unknown here (an assumption: about 100 pages of text). */
export const URL_FILE_TOKENS = 32_000;

/** Decoded size of base64 data, from its length alone. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** What a message's images and files cost, conservatively (see the constants above). */
export function estimateMediaTokens(media: readonly MediaPart[] | undefined): number {
  let tokens = 0;
  for (const part of media ?? []) {
    if (part.type === 'image') tokens += IMAGE_TOKENS;
    else if (part.data !== undefined) tokens += Math.ceil(base64Bytes(part.data) * FILE_TOKENS_PER_BYTE);
    else tokens += URL_FILE_TOKENS;
  }
  return tokens;
}

/** Message framing plus the framing of each tool call. */
export function messageOverheadTokens(message: CanonicalMessage): number {
  const calls = message.role === 'assistant' ? message.toolCalls?.length ?? 0 : 0;
  return MESSAGE_OVERHEAD_TOKENS + calls * TOOL_CALL_OVERHEAD_TOKENS;
}

/** The text a tool schema costs: name, description and JSON parameters. */
export function toolSchemaText(tool: ToolSchema): string {
  return `${tool.name}\n${tool.description ?? ''}\n${jsonText(tool.parameters, `tool ${tool.name}.parameters`)}`;
}

/**
 * Wraps a text counter with per-message caching: messages are immutable, so
 * a turn that appends one message counts only that message. Media are
 * charged by `estimateMediaTokens`, for exact and conservative counters alike.
 */
export abstract class CachingTokenEstimator implements TokenEstimator {
  abstract readonly family: TokenizerFamily;
  abstract readonly exact: boolean;
  private readonly messageCache = new WeakMap<CanonicalMessage, number>();

  abstract countText(text: string): number;

  countMessage(message: CanonicalMessage): number {
    const cached = this.messageCache.get(message);
    if (cached !== undefined) return cached;
    const media = message.role === 'user' || message.role === 'tool' ? message.media : undefined;
    const count = this.countText(messageText(message)) + messageOverheadTokens(message) + estimateMediaTokens(media);
    this.messageCache.set(message, count);
    return count;
  }

  countTool(tool: ToolSchema): number {
    return this.countText(toolSchemaText(tool)) + TOOL_SCHEMA_OVERHEAD_TOKENS;
  }
}

/**
 * The fast default: counts by character class and deliberately over-estimates
 * mixed Chinese/English text, so a budget it approves fits the real tokenizer.
 */
export class ConservativeTokenEstimator extends CachingTokenEstimator {
  readonly family: TokenizerFamily;
  readonly exact = false;
  private readonly profile: EstimatorProfile;

  constructor(options: { family?: TokenizerFamily } = {}) {
    super();
    this.family = options.family ?? 'unknown';
    this.profile = ESTIMATOR_PROFILES[this.family];
  }

  countText(text: string): number {
    return estimateTextTokens(text, this.profile);
  }
}
