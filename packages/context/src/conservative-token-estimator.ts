import { CHARACTER_KINDS, KIND_COUNT, PAIR_TABLE_SIZE, SMALL_LETTERS, classOfKind, isSmallLetter, pairTableOf, startsRun, weighText, type CharacterClass, type PairTable, type SmallLetter } from './character-classes.js';
import { ConfigurationError } from './errors/configuration-error.js';
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
 * minified code, dense JSON of tool calls, emoji sequences, long runs of
 * every small letter, random letter strings); conversations of the generated
 * corpora with 1% to spare. Objective: the mean over-count per conversation
 * of each shared corpus, the Chinese ones weighted up (they sit nearest the
 * 40% median goal). `unknown` is fitted the same way to
 * the larger of the o200k and cl100k counts of each text.
 *
 * Small ASCII letters are priced by letter pair, word start and word end
 * (`KindWeights`): that is what tells English words (about 4.5 characters
 * per token) from rare names (Uzbek, Ewe, Akan, Toki Pona names in ICU:
 * about 3), which one weight for all small letters could not (it held those names to
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
      commonSymbol: [0.3095, 0],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [0.722, 1.0519],
      greek: [0.8427, 0.7803],
      cyrillic: [1.01, 0],
      armenian: [1.0053, 0.0243],
      hebrew: [0.4021, 1.3229],
      arabic: [0.5684, 2],
      devanagari: [0.3355, 1.4788],
      bengali: [0.4226, 1.6231],
      gurmukhi: [0.6777, 0.9386],
      gujarati: [0.5351, 1.0577],
      oriya: [1.2122, 0],
      tamil: [0.5501, 1.2061],
      telugu: [0.4114, 2],
      kannada: [0.4361, 2],
      malayalam: [0.7266, 0],
      sinhala: [0.7815, 0],
      thai: [0.4487, 1.8116],
      lao: [2.0199, 0.3639],
      tibetan: [1.4751, 1.8871],
      myanmar: [1.4083, 0],
      khmer: [0.6592, 1.6406],
      georgian: [2.874, 1.9532],
      ethiopic: [1.873, 1.7762],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.144, 0],
      other: [3, 1.5378],
      highSurrogate: [2, 0.4103],
      lowSurrogate: [2, 0],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 1.4235,
      'start han': 2,
      'upper upper': 0.394,
      'upper lower': 0.2812,
      'upper digit': 0.0421,
      'upper punctuation': 0.6414,
      'upper space': 0.6026,
      'upper latin': 2,
      'upper commonOther': 1.384,
      'lower digit': 0.2628,
      'lower break': 0.2654,
      'lower commonPunctuation': 1.1575,
      'lower combining': 2,
      'lower han': 1.4445,
      'lower kana': 1.5851,
      'digit upper': 2,
      'digit lower': 0.5587,
      'digit digit': 0.0022,
      'digit space': 0.7319,
      'digit commonPunctuation': 1.1798,
      'digit commonSymbol': 2,
      'punctuation upper': 0.4622,
      'punctuation digit': 1.0524,
      'punctuation punctuation': 0.5466,
      'punctuation space': 1.1396,
      'punctuation break': 0.5014,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.6595,
      'space upper': 0.1702,
      'space digit': 1.5937,
      'space punctuation': 0.0773,
      'space break': 0.788,
      'space commonOther': 2,
      'break upper': 0.9284,
      'break digit': 1.1662,
      'break space': 1.4177,
      'break break': 0.0042,
      'break han': 0.4197,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 0.1223,
      'latin latin': 0.2874,
      'latin combining': 0.5217,
      'commonOther lower': 1.4912,
      'commonOther space': 0.542,
      'commonOther commonOther': 2,
      'commonOther commonPunctuation': 1.7255,
      'commonOther kana': 0.9623,
      'commonPunctuation punctuation': 0.3986,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.3399,
      'commonPunctuation kana': 0.909,
      'combining lower': 1.5176,
      'combining digit': 0.1682,
      'combining latin': 2,
      'combining kana': 0.1007,
      'han space': 1.4046,
      'han break': 1.3068,
      'han commonPunctuation': 1.0645,
      'han han': 0.7213,
      'han kana': 1.092,
      'kana space': 2,
      'kana commonPunctuation': 2,
      'kana han': 0.0525,
      'kana kana': 0.0821,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol commonSymbol': 2,
    },
    {
      letterPairs: {
        a: [0.0276, 0, 0, 0.9772, 0, 1.3772, 0, 0.3388, 0.021, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0.0232, 0.2662, 2, 0, 0.1634, 0.1258],
        b: [0, 0.1646, 0.7385, 2, 0, 2, 2, 2, 0.5153, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 0.5117, 0, 2, 2, 0, 0.2117, 2],
        c: [0, 2, 0.1646, 0, 0, 0, 0, 0, 0, 2, 0, 0.4317, 0, 0, 0, 0, 0.5195, 0, 0, 0, 0, 0, 0, 2, 0, 0],
        d: [0, 0, 0, 0.1646, 0.0734, 1.8877, 0, 2, 0, 1.165, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.3397, 2, 0, 2, 0.7873, 0],
        e: [0.0766, 0, 0, 0, 0.1646, 0, 0.017, 0, 0, 2, 2, 0, 0, 0, 2, 0.9764, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        f: [0.9218, 2, 0, 0, 0, 0.0271, 0, 2, 0, 2, 0, 0.1647, 0, 0, 0.0085, 0, 2, 0, 0.5747, 0, 0.1342, 2, 0, 2, 0, 2],
        g: [1.597, 2, 0, 0, 0, 0, 1.8406, 0, 0.2319, 2, 2, 0, 0, 0, 0, 0, 0, 0, 1.4364, 0, 0, 2, 0, 0, 0, 0],
        h: [0, 2, 2, 0, 0, 2, 0, 0.1644, 0.3495, 2, 0, 0, 1.4318, 0, 0, 0, 2, 0, 0.6327, 0.6058, 2, 2, 2, 0, 0, 2],
        i: [0.9315, 0, 0, 0.1265, 0, 0, 0, 0.5664, 0.1644, 0.286, 2, 0.0492, 0, 0, 0, 0, 2, 0, 0, 0, 1.649, 0.345, 0, 0, 0.5096, 0],
        j: [1.1123, 2, 2, 2, 0.0761, 2, 2, 2, 2, 0.4397, 0, 0, 2, 2, 0, 1.1827, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 0, 0, 0, 0, 1.2205, 0.1852, 0, 0.1643, 0, 2, 0.335, 2, 0, 0, 2, 0, 0, 0.5772, 2, 0, 0, 2, 2],
        l: [0, 2, 0, 0.0362, 0.0275, 0, 0, 0, 0, 2, 2, 0.0298, 0, 0, 0, 1.4502, 2, 0.7973, 0, 0, 0, 0, 0, 2, 0, 2],
        m: [0, 0, 0, 0.9262, 0, 0, 0, 2, 0.3054, 2, 2, 0, 0.1646, 1.4392, 0, 0, 2, 0.226, 0, 0, 0, 0, 0, 0, 1.1419, 2],
        n: [0.0577, 2, 0, 0, 0.3753, 0, 0, 0, 0.3372, 1.1827, 1.4907, 0, 0, 1.0154, 0, 1.8779, 0.4135, 0, 0, 0, 0.6882, 0, 0, 0, 0, 0],
        o: [0, 0, 0, 0, 0, 0, 0.2017, 0, 0.5309, 2, 0, 1.3078, 0, 0, 0.0269, 0, 0, 0, 0, 1.1163, 0, 0, 0, 0, 0, 2],
        p: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0.1233, 0.4397, 0, 0, 0, 0.2388, 0.0312, 0.6873, 0.5236, 0, 0.0021, 2],
        q: [0, 2, 0, 1.924, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4397, 0, 0, 0, 0, 2, 2, 2, 2, 2],
        r: [0, 2, 0, 1.3578, 0.0145, 0.7103, 0.2075, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 0.1646, 0.7076, 0, 0, 1.3965, 2, 0.78, 0, 2],
        s: [0.7283, 2, 0.1539, 2, 0, 0, 0, 1.318, 0, 2, 0.2183, 0, 1.4267, 2, 0.2229, 0.6584, 0.6017, 0.2621, 0.1646, 0, 0, 0, 0, 2, 0, 2],
        t: [0, 0, 0, 2, 0, 0, 0, 0.0094, 0, 2, 2, 0, 1.9421, 0.9432, 0, 0, 2, 0, 0, 0.4395, 0, 0, 0, 0, 0.0418, 0],
        u: [0, 0, 0, 0, 0, 0, 0, 0.0194, 0, 2, 2, 0, 0.0335, 0, 1.1315, 0.0067, 2, 0.0702, 0.07, 0, 0.4397, 2, 2, 0, 0.5812, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 2, 2, 2, 2, 2, 0, 0.1645, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.298, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 2, 2, 0.451, 0, 0, 2, 2, 0.4397, 2, 0, 2],
        x: [0, 0, 0, 2, 0, 2, 2, 0, 1.0858, 2, 2, 0, 0, 2, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.0268, 0, 2],
        y: [2, 0.1698, 0.9416, 0, 0.4166, 0, 1.3076, 0, 0.7354, 0, 2, 0, 0, 0, 0, 0.1016, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 2, 2, 2, 0, 2, 2, 2, 2, 0.4393],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 0.7021, 0.7498, 0, 1.1994, 0.1252, 0, 0, 0.7023, 0, 0.0264, 0, 0, 0.4996, 0, 0.2563, 0.0317, 1.0046, 0.3601, 1.3356],
      wordEnds: [0.9214, 2, 1.7345, 0.0891, 0.2126, 0.565, 0.5079, 0.8641, 2, 1.8956, 0.545, 0, 0, 0.1243, 0.5548, 0.4511, 2, 0, 0, 0, 0.6628, 2, 0.4296, 0, 0, 2],
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
      latin: [1.1416, 2],
      greek: [2.0032, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.278, 0],
      hebrew: [1.3498, 0],
      arabic: [1.2535, 2],
      devanagari: [1.0888, 2],
      bengali: [1.2677, 2],
      gurmukhi: [2.122, 0],
      gujarati: [2.1154, 0],
      oriya: [3, 1.6263],
      tamil: [1.4825, 1.283],
      telugu: [2.1486, 0],
      kannada: [2.1545, 0],
      malayalam: [1.8501, 1.3002],
      sinhala: [2.2803, 0],
      thai: [1.0673, 0.9497],
      lao: [2.0636, 2],
      tibetan: [2.1131, 0.8849],
      myanmar: [2.5638, 0],
      khmer: [1.9888, 0],
      georgian: [2.9125, 0.71],
      ethiopic: [3, 0.5538],
      han: [0.3, 0],
      kana: [0.3, 1.5469],
      hangul: [1.6845, 0],
      other: [3, 0.9521],
      highSurrogate: [2, 0.2189],
      lowSurrogate: [2, 0.1038],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 1.9778,
      'start space': 1.3491,
      'start han': 2,
      'upper upper': 0.3939,
      'upper lower': 0.4953,
      'upper punctuation': 0.7361,
      'upper space': 0.9163,
      'upper break': 0.0292,
      'upper latin': 2,
      'upper commonOther': 0.0476,
      'lower upper': 0.0348,
      'lower digit': 0.2132,
      'lower latin': 1.7682,
      'lower commonOther': 0.3424,
      'lower commonPunctuation': 1.5223,
      'lower combining': 2,
      'lower han': 1.787,
      'lower kana': 1.3842,
      'digit upper': 2,
      'digit lower': 0.7543,
      'digit digit': 0.0021,
      'digit space': 0.907,
      'digit break': 0.3778,
      'digit commonSymbol': 2,
      'punctuation upper': 0.2414,
      'punctuation lower': 0.0371,
      'punctuation digit': 0.9136,
      'punctuation punctuation': 0.5396,
      'punctuation space': 1.2312,
      'punctuation break': 0.1894,
      'punctuation commonOther': 2,
      'space digit': 1.6256,
      'space break': 0.8386,
      'space latin': 0.4051,
      'space commonOther': 2,
      'space han': 0.286,
      'space kana': 0.0265,
      'break upper': 0.8652,
      'break digit': 1.2672,
      'break punctuation': 0.1796,
      'break space': 1.6558,
      'break break': 0.0041,
      'break han': 0.1195,
      'latin lower': 2,
      'commonOther upper': 2,
      'commonOther lower': 2,
      'commonOther commonOther': 1.5859,
      'commonOther commonPunctuation': 2,
      'commonPunctuation punctuation': 0.6561,
      'commonPunctuation break': 0.5588,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.6571,
      'combining lower': 0.6255,
      'combining digit': 1.59,
      'combining latin': 1.6552,
      'combining combining': 1.1092,
      'han punctuation': 0.6191,
      'han space': 1.936,
      'han break': 1.0371,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana space': 2,
      'kana commonOther': 1.389,
      'kana han': 0.6199,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 2,
    },
    {
      letterPairs: {
        a: [1.5648, 0, 0, 0.8761, 2, 1.0474, 0, 2, 0, 0, 0, 0, 0.0105, 0.0633, 2, 0, 0, 0, 0, 0, 0.5422, 0.2077, 0.3906, 0.0034, 0.0634, 2],
        b: [0, 0.1646, 2, 0, 0, 0, 0, 2, 0.446, 0, 2, 0, 0, 2, 0, 0.3589, 2, 0.0917, 0, 0.491, 0, 0.0405, 2, 0, 0, 2],
        c: [0, 0, 0.1646, 0, 0, 0, 0, 0, 0, 2, 0.1994, 0.0137, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1646, 0.1942, 0, 0.5263, 2, 0, 2, 0, 1.6297, 2, 0, 0, 0, 0, 0, 0, 0, 0.4081, 0, 0, 2, 1.4286, 2],
        e: [0.0828, 0, 0, 0, 0.1646, 0, 0.6161, 0, 0, 0, 2, 0, 0, 0, 1.9133, 0.9606, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.4309],
        f: [1.086, 0, 0, 0, 0, 0.0271, 0, 2, 0, 2, 0, 0, 0, 0, 0.1023, 0, 2, 0.1362, 1.3673, 0, 0, 2, 0, 2, 0, 2],
        g: [0.6192, 2, 2, 0, 0, 0, 1.136, 0, 0.5549, 2, 2, 0, 0, 0, 0, 0, 0.4106, 0.0002, 0.6257, 0, 0, 2, 2, 0, 0, 0],
        h: [0, 0, 2, 0, 0, 2, 0.5202, 0.4395, 0.716, 2, 2, 0, 0, 0, 0, 0, 2, 0, 0.3258, 0.8452, 2, 2, 2, 0, 0, 2],
        i: [2, 0.1292, 0, 0, 0.1002, 0, 0, 2, 0.4395, 0, 1.8297, 0, 0, 0, 0, 0, 0, 0, 0.0433, 0, 0.2461, 0.3882, 0, 0, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 0.4397, 0, 0, 2, 0, 0, 1.2276, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 2, 0, 0, 0.0257, 2, 0.3008, 0, 0.4396, 2, 2, 0.6338, 2, 0, 0, 2, 0, 0, 0.3106, 2, 0, 0, 0.6541, 2],
        l: [0, 2, 0, 0.1696, 0, 0.0623, 2, 2, 0.2693, 2, 0.4673, 0.4395, 0, 0, 0, 2, 2, 0.4029, 0, 0, 0, 0, 0, 2, 0, 2],
        m: [0, 0, 0, 0.3188, 0, 2, 2, 2, 0.1255, 2, 2, 0.173, 0.4396, 0.6968, 0.1629, 0, 2, 2, 0, 0, 0, 2, 2, 0, 0.559, 2],
        n: [0.2441, 2, 0, 0, 0.1787, 0, 0, 0, 0.422, 2, 0.7514, 0, 0, 0.4397, 0, 2, 1.8437, 0, 0.1623, 0, 0.7082, 0, 0, 0, 0, 0],
        o: [0, 0, 0, 0, 0, 0, 0.2162, 0, 0, 1.0831, 0.6169, 0.775, 0, 0, 0.027, 0, 0, 0, 0, 1.1502, 0, 0.1442, 0, 0.997, 0, 2],
        p: [0, 0, 0, 0, 0, 0, 0, 0, 0.5773, 0, 2, 0, 2, 0, 0, 0.4397, 0, 0, 0.1638, 0, 0, 0, 2, 0, 0.7189, 2],
        q: [0, 2, 2, 0, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4394, 0, 0, 2, 0, 2, 2, 2, 2, 2],
        r: [0, 2, 0, 1.0126, 0, 0.5501, 0, 2, 0, 2, 0, 0, 0, 1.4936, 0, 0.5422, 2, 0.4397, 0, 0, 0.5277, 0.5638, 2, 2, 0, 2],
        s: [0.9512, 2, 0, 0, 0.113, 0, 0, 0.3444, 0, 2, 0.3963, 0, 0, 2, 0.3824, 0.1596, 2, 2, 0.4396, 0.0292, 0.0405, 0, 0, 2, 0, 2],
        t: [0, 0, 0.0806, 2, 0, 0, 0, 0.0285, 0, 2, 2, 0, 2, 0, 0, 0, 2, 0.1221, 0, 0.4396, 0, 0, 0, 0, 0, 0],
        u: [0, 0, 0, 0, 0, 0, 0, 0, 0.2766, 2, 2, 0, 0.1076, 0, 0, 0, 2, 0.1833, 0, 0, 0.9665, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 2, 2, 2, 2, 2, 0, 0.4396, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 0, 2, 1.6851, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 2, 0.2342, 2, 2, 0, 0, 2, 0, 0, 2, 0, 2, 0, 2, 2, 2, 0.0268, 2, 2],
        y: [2, 1.5157, 0, 0, 1.2328, 0, 2, 0, 1.2735, 0, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1646, 0],
        z: [0, 2, 2, 2, 0, 2, 2, 0, 0, 2, 2, 0, 2, 2, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0.4392],
      },
      wordStarts: [0, 0.0517, 0.1137, 0, 0, 0, 0.0029, 0.5636, 0.6464, 0, 0.3461, 0.6528, 0.0687, 0, 0.408, 0, 1.1121, 0, 0.0563, 0.398, 0, 0.2155, 0, 1.079, 0, 1.8646],
      wordEnds: [1.0646, 2, 0.8513, 0.2607, 0.1524, 0.425, 0.0416, 0.9629, 2, 2, 0.5828, 0, 0, 0.189, 0.5711, 0.1424, 2, 0.1556, 0, 0, 0.3576, 2, 0.3519, 0, 0, 1.2412],
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
      commonSymbol: [1.1045, 0],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.1253, 2],
      greek: [2.0032, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.2754, 0],
      hebrew: [1.3498, 0],
      arabic: [1.2263, 2],
      devanagari: [1.0894, 2],
      bengali: [1.2625, 2],
      gurmukhi: [2.122, 0],
      gujarati: [2.1197, 0],
      oriya: [3, 1.6436],
      tamil: [1.5001, 1.173],
      telugu: [2.1522, 0],
      kannada: [2.158, 0],
      malayalam: [1.8691, 1.2044],
      sinhala: [2.281, 0],
      thai: [1.0152, 1.3269],
      lao: [2.06, 2],
      tibetan: [2.1133, 0.8856],
      myanmar: [2.5638, 0],
      khmer: [1.9939, 0],
      georgian: [2.9042, 1.7169],
      ethiopic: [2.8648, 1.1167],
      han: [0.3, 0],
      kana: [0.3, 1.4777],
      hangul: [1.6845, 0],
      other: [3, 1.3014],
      highSurrogate: [2, 0.23],
      lowSurrogate: [2, 0.1001],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 1.9512,
      'start space': 1.3549,
      'start han': 2,
      'upper upper': 0.3939,
      'upper lower': 0.4318,
      'upper punctuation': 0.7668,
      'upper space': 0.9045,
      'upper break': 0.1868,
      'upper latin': 2,
      'upper commonOther': 0.0699,
      'lower digit': 0.6067,
      'lower latin': 1.8857,
      'lower commonOther': 1.219,
      'lower commonPunctuation': 1.5533,
      'lower combining': 2,
      'lower han': 1.7547,
      'lower kana': 1.3061,
      'digit upper': 2,
      'digit lower': 0.4489,
      'digit digit': 0.0022,
      'digit space': 0.8471,
      'digit commonSymbol': 2,
      'punctuation upper': 0.2422,
      'punctuation lower': 0.0171,
      'punctuation digit': 0.9269,
      'punctuation punctuation': 0.5466,
      'punctuation space': 1.218,
      'punctuation break': 0.0763,
      'punctuation commonOther': 2,
      'space digit': 1.6638,
      'space break': 0.942,
      'space latin': 0.8046,
      'space commonOther': 2,
      'space han': 0.3691,
      'space kana': 0.1916,
      'break upper': 1.0168,
      'break digit': 1.2345,
      'break punctuation': 0.3184,
      'break space': 1.753,
      'break break': 0.0041,
      'break han': 0.3282,
      'latin lower': 2,
      'latin punctuation': 0.3258,
      'commonOther upper': 2,
      'commonOther lower': 2,
      'commonOther space': 0.0773,
      'commonOther commonOther': 1.3267,
      'commonOther commonPunctuation': 2,
      'commonPunctuation punctuation': 0.8184,
      'commonPunctuation break': 0.3501,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.599,
      'combining lower': 0.6976,
      'combining digit': 1.7327,
      'combining latin': 1.3437,
      'combining combining': 0.9936,
      'han punctuation': 0.5876,
      'han space': 1.8186,
      'han break': 0.8196,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana space': 2,
      'kana commonOther': 0.9219,
      'kana han': 0.7699,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 1.6288,
    },
    {
      letterPairs: {
        a: [1.9775, 0, 0, 1.1063, 2, 0.9435, 0, 1.8556, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0.0204, 0.3204, 1.4552, 0, 0, 2],
        b: [0, 0.1646, 1.3237, 0, 0, 0, 1.3475, 2, 0.4416, 0, 2, 0, 0, 2, 0, 1.2312, 2, 0.1699, 0, 0.561, 0, 1.6377, 2, 0, 0.2283, 2],
        c: [0, 2, 0.1646, 0, 0, 0, 0, 0, 0, 2, 0.2756, 0.222, 0, 0, 0, 0, 0, 0, 0.4942, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1646, 0.0644, 0, 0.0567, 2, 0, 2, 0, 1.0896, 2, 0, 0, 0, 0, 0, 0, 0, 0.5794, 0.8167, 0, 2, 0.5842, 2],
        e: [0.0338, 0, 0, 0, 0.1646, 0, 0.4895, 0, 0, 0, 2, 0, 0, 0, 2, 0.726, 0, 0, 0, 0, 0, 0.0858, 0, 0, 0, 0.8494],
        f: [1.0462, 0, 0, 0, 0.0151, 0.0271, 0, 2, 0, 2, 0, 0, 0, 0, 0.1666, 0, 2, 0, 1.5602, 0, 0, 2, 0, 2, 0, 2],
        g: [1.0501, 2, 2, 0, 0, 0, 1.1554, 0, 0.5198, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0.4342, 0, 0, 2, 1.2093, 0, 0, 0],
        h: [0, 0.0096, 2, 0.1049, 0, 2, 0.5766, 0.4395, 0.5737, 2, 2, 0, 0, 0, 0, 0, 2, 0, 0.9843, 0.8892, 2, 2, 2, 0, 0, 2],
        i: [2, 0.23, 0, 0, 0.3038, 0, 0, 1.3557, 0.4395, 0, 1.6037, 0, 0, 0, 0, 0.1611, 0, 0, 0, 0, 0.0834, 0.3609, 0, 0, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 0.4397, 0, 0, 2, 0, 0, 1.2171, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 1.2227, 0, 0, 0, 1.8297, 0.0864, 0, 0.4394, 2, 2, 1.297, 2, 0, 0, 2, 0, 0.2388, 0.8852, 2, 0, 0, 1.0708, 2],
        l: [0, 2, 0, 0, 0, 0.5733, 2, 1.8768, 0.4076, 2, 0.0989, 0.4396, 0, 0, 0, 2, 2, 0.853, 0, 0, 0, 0, 0, 2, 0, 2],
        m: [0, 0, 0, 1.0456, 0, 0, 2, 2, 0.1153, 2, 2, 0, 0.4397, 0, 0.0622, 0, 2, 2, 0, 0, 0, 2, 0, 0, 0.75, 2],
        n: [0.2045, 2, 0, 0, 0.1907, 0, 0, 0, 0.2895, 2, 0.9663, 0, 0, 0.4397, 0, 2, 1.7995, 0, 0.17, 0, 0.6772, 0, 0, 0, 0, 0],
        o: [0, 0, 0, 0, 0, 0, 0.3283, 0, 0, 1.8056, 0.4417, 0.8585, 0, 0, 0.027, 0, 0, 0, 0, 1.1079, 0, 0.2517, 0, 1.3774, 0, 0],
        p: [0, 0, 0, 0, 0, 0, 0, 0, 0.7184, 0, 2, 0, 2, 0.5519, 0, 0.4397, 0, 0, 0, 0, 0, 0, 2, 0, 1.1785, 2],
        q: [0, 2, 2, 0.4331, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4394, 0, 0, 2, 0, 2, 2, 2, 2, 2],
        r: [0, 2, 0, 1.2253, 0, 0.9629, 0, 2, 0, 2, 0, 0, 0, 2, 0, 1.0091, 2, 0.4397, 0, 0, 0.6979, 0.7633, 1.5189, 2, 0, 2],
        s: [0.6638, 2, 0, 0, 0.0377, 0, 0, 0.3685, 0, 2, 0.1181, 0, 0.0813, 2, 0.2093, 0.2311, 1.6288, 2, 0.4396, 0.1086, 0, 0, 0, 2, 0, 2],
        t: [0, 0, 0, 2, 0, 0, 0, 0.0059, 0, 2, 2, 0, 1.7549, 0, 0, 0, 2, 0.0636, 0, 0.4396, 0, 0, 0.2199, 0, 0, 0],
        u: [0, 0, 0, 0, 0, 0, 0, 0, 0.6123, 2, 2, 0, 0.0555, 0, 0, 0, 2, 0.1743, 0.0097, 0, 0.8911, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 2, 2, 2, 2, 2, 0, 0.4396, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.0519, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 2, 2, 1.8012, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 0.9855, 1.2271, 2, 2, 0, 0, 2, 0, 0, 2, 0, 2, 0, 2, 2, 2, 0.0268, 0.5631, 2],
        y: [2, 0.7641, 0, 0, 1.211, 0, 2, 0, 0.8934, 0, 2, 0, 0, 0.1576, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1646, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 0, 0, 2, 2, 2, 2, 1.9963, 2, 2, 2, 2, 0.4394],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 0.7363, 0.6835, 0, 1.1019, 0.371, 0, 0, 0.4124, 0, 1.2214, 0, 0.0662, 0.3975, 0, 0.1288, 0, 1.0732, 0, 1.2444],
      wordEnds: [1.032, 2, 1.4001, 0.2567, 0.1918, 0.3229, 0, 1.1489, 2, 2, 0.5725, 0, 0, 0.3117, 0.587, 0.0902, 2, 0.1808, 0, 0, 0.4608, 2, 0.3721, 0, 0, 1.7709],
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

const PAIR_TABLES = new WeakMap<EstimatorProfile, PairTable>();

/** The profile's pair table, built once per profile. */
function pairTableFor(profile: EstimatorProfile): PairTable {
  let table = PAIR_TABLES.get(profile);
  if (table === undefined) {
    table = pairTableOf(pairWeightsOf(profile));
    PAIR_TABLES.set(profile, table);
  }
  return table;
}

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
  return tokensOf(text, pairTableFor(profile));
}

function tokensOf(text: string, table: PairTable): number {
  const { weight, utf8Bytes } = weighText(text, table);
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
  private readonly table: PairTable;

  constructor(options: { family?: TokenizerFamily } = {}) {
    super();
    const family = options?.family ?? 'unknown';
    if (!Object.hasOwn(ESTIMATOR_PROFILES, family)) {
      throw new ConfigurationError({ setting: 'family', message: `ConservativeTokenEstimator family must be one of ${Object.keys(ESTIMATOR_PROFILES).join(', ')}, got ${JSON.stringify(family)}` });
    }
    this.family = family;
    this.table = pairTableFor(ESTIMATOR_PROFILES[family]);
  }

  countText(text: string): number {
    return tokensOf(text, this.table);
  }
}
