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
 * corpora with 1% to spare. Objective: the mean over-count per conversation,
 * each shared corpus weighted equally. `unknown` is fitted the same way to
 * the larger of the o200k and cl100k counts of each text.
 *
 * Small ASCII letters are priced by letter pair, word start and word end
 * (`KindWeights`): that is what tells English words (about 4.5 characters
 * per token) from rare names (Uzbek, Ewe, Akan, Toki Pona names in ICU:
 * about 3), which one weight per letter could not (it held those names to
 * 0.8 of their count for a 34-48% median over-count of English; now they are
 * held in full). About 700 letter weights fit their training text closely,
 * so text that is more than 30% small letters is held to 1.1 times its exact
 * count: fitted on half of the conversations, that margin leaves 1-3 of
 * about 500 unseen alpaca conversations under-counted, as the class-only
 * profiles did. Han characters outside GB 2312 level 1 and Hangul syllables
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
      commonSymbol: [0.4246, 0],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.0093, 0.6429],
      greek: [0.9501, 0],
      cyrillic: [1.0098, 0.0064],
      armenian: [1.0004, 0.0664],
      hebrew: [0.3996, 1.3389],
      arabic: [0.5139, 1.8808],
      devanagari: [0.3046, 1.6696],
      bengali: [0.388, 1.8307],
      gurmukhi: [0.8394, 0],
      gujarati: [0.5268, 1.1079],
      oriya: [1.2333, 0],
      tamil: [0.6154, 0.7179],
      telugu: [0.4114, 2],
      kannada: [0.4361, 2],
      malayalam: [0.726, 0],
      sinhala: [0.496, 2],
      thai: [0.4487, 1.8116],
      lao: [2.0195, 0.6741],
      tibetan: [1.4751, 1.8871],
      myanmar: [1.4083, 0],
      khmer: [0.7102, 1.2585],
      georgian: [2.8682, 1.9985],
      ethiopic: [1.8826, 1.9812],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.144, 0],
      other: [3, 1.8433],
      highSurrogate: [2, 0.4174],
      lowSurrogate: [2, 0],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 1.01,
      'start han': 2,
      'upper upper': 0.3938,
      'upper lower': 0.3158,
      'upper digit': 0.1216,
      'upper punctuation': 0.5385,
      'upper space': 0.6794,
      'upper break': 0.4586,
      'upper latin': 1.6804,
      'upper commonOther': 1.4875,
      'lower upper': 0.1202,
      'lower digit': 0.3453,
      'lower break': 0.3394,
      'lower latin': 2,
      'lower commonPunctuation': 1.4921,
      'lower combining': 2,
      'lower han': 1.4498,
      'lower kana': 1.5961,
      'digit upper': 2,
      'digit lower': 0.5991,
      'digit digit': 0.002,
      'digit punctuation': 0.2363,
      'digit space': 0.9663,
      'digit commonPunctuation': 1.0622,
      'digit commonSymbol': 2,
      'punctuation upper': 0.4885,
      'punctuation lower': 0.2554,
      'punctuation digit': 1.1703,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.9682,
      'punctuation commonOther': 1.4258,
      'space upper': 0.1456,
      'space digit': 1.3551,
      'space punctuation': 0.0061,
      'space break': 0.0939,
      'space commonOther': 2,
      'space commonPunctuation': 0.4947,
      'space han': 0.1169,
      'space commonSymbol': 0.4016,
      'break upper': 0.9071,
      'break digit': 1.0979,
      'break space': 1.9526,
      'break break': 0.0041,
      'break han': 0.4003,
      'latin lower': 2,
      'latin punctuation': 2,
      'commonOther lower': 0.9494,
      'commonOther commonOther': 2,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 0.7537,
      'commonPunctuation punctuation': 0.2606,
      'commonPunctuation space': 0.4575,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.3399,
      'commonPunctuation kana': 0.9736,
      'combining upper': 1.3382,
      'combining lower': 1.474,
      'combining digit': 0.0085,
      'combining latin': 2,
      'combining combining': 0.1103,
      'han punctuation': 0.7541,
      'han space': 1.6052,
      'han break': 2,
      'han commonPunctuation': 1.0645,
      'han han': 0.7213,
      'han kana': 0.9101,
      'kana space': 2,
      'kana commonPunctuation': 2,
      'kana kana': 0.1077,
      'commonSymbol upper': 2,
      'commonSymbol commonSymbol': 1.8843,
    },
    {
      letterPairs: {
        a: [0.027, 0, 0, 0.7613, 2, 0.3572, 0, 0.7246, 0.1923, 0, 0, 0, 0, 0, 2, 0.3283, 0.1615, 0.044, 0.0621, 0, 0, 0.2962, 2, 0.0376, 0.5494, 1.4277],
        b: [0.1757, 0, 2, 0, 0, 0, 0, 2, 0.2634, 0.4698, 2, 0, 0, 0, 0.0431, 2, 0, 0, 0, 0, 0, 0, 2, 0, 0.4457, 0],
        c: [0, 0, 0, 0, 0.161, 0, 0, 0, 0, 0, 0.0961, 0, 0.0058, 0, 0, 0, 0, 0, 0.9365, 0, 0, 0, 0, 1.1822, 0, 0],
        d: [0, 0, 0, 0.7166, 0.1359, 0.5738, 1.2619, 2, 0, 2, 2, 0, 0, 0, 0, 1.6629, 0, 0, 0, 0, 0.2272, 2, 0, 0, 0.3698, 0],
        e: [0, 0, 0, 0, 0.2207, 0, 0.6417, 0, 0, 0.3237, 2, 0, 0, 0, 0.9799, 0.8134, 0, 0, 0, 0, 0, 0.2136, 0, 0, 0.622, 1.5794],
        f: [0.2886, 0.7432, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 0, 0, 0, 0],
        g: [0, 2, 0, 0, 0, 0, 1.0922, 0, 0, 2, 2, 0, 0, 0, 0.033, 0, 0.2686, 0, 0.1767, 0, 0.3566, 2, 0.4527, 0, 0, 0],
        h: [0, 0.0582, 2, 0.7108, 0, 0, 0.8263, 0, 0.225, 2, 0, 0, 0, 0, 0.5394, 2, 2, 0, 0.2439, 0.3425, 1.3869, 0, 0, 0, 0, 2],
        i: [0.4576, 0, 0, 0, 0, 0, 0, 2, 1.5507, 0, 0.1134, 0, 0, 0, 0, 0, 0, 0.1597, 0.475, 0, 1.5988, 0.5517, 0, 0, 2, 0],
        j: [2, 0, 0, 2, 0, 0, 2, 2, 2, 0, 0, 0.7043, 2, 1.8375, 0, 0, 0, 2, 0, 2, 0.8069, 0, 0, 2, 2, 2],
        k: [0, 0, 0, 0.2516, 0, 0, 0, 2, 0.6622, 0, 2, 0.2442, 0, 1.0157, 2, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1.8342, 2],
        l: [0, 2, 0, 0.2523, 0.001, 0, 1.7284, 0.3312, 0, 0, 2, 0.0085, 0.5169, 0, 0.2031, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        m: [0, 0, 2, 2, 0, 0, 0, 2, 0.0524, 2, 0, 0.4387, 0, 1.6574, 0.4858, 0, 0, 0, 0.4506, 0, 0.1469, 0, 0, 0, 0.655, 2],
        n: [0, 2, 0, 0, 0.0369, 0, 0, 0, 0.3817, 2, 1.2419, 0, 0, 0.0312, 0, 1.2441, 0, 0, 0, 0, 0.6249, 0, 0, 0, 0, 2],
        o: [0, 0, 0, 0, 0.3426, 0.2272, 0.6123, 0, 0, 0, 0, 0.1725, 0, 0, 0, 0, 0, 0, 0, 0.3147, 0.264, 0, 0, 0, 0, 0],
        p: [0, 0, 0.1645, 0, 0, 0, 0.1334, 0, 1.155, 0, 0, 0, 2, 0, 0, 0, 0, 0.0301, 0, 0, 0, 1.1877, 2, 0, 0.3905, 2],
        q: [1.1061, 2, 0, 2, 2, 2, 0, 2, 0, 0, 2, 0, 2, 2, 2, 2, 0, 0.0853, 0, 2, 0, 2, 2, 2, 2, 2],
        r: [0.0619, 1.8738, 0, 1.3152, 0, 1.1892, 0, 1.7572, 0, 0.712, 0, 0, 0, 0, 0, 0, 0, 0.2433, 0.1085, 0, 0.2397, 1.0428, 1.3909, 2, 0, 2],
        s: [1.6079, 0.9552, 0.6389, 2, 0.0151, 0, 0, 0.1406, 0, 2, 0.2011, 0, 1.9272, 2, 0.2441, 0, 0.489, 1.1789, 0, 0, 0, 2, 0, 2, 0, 0],
        t: [0, 0, 0.829, 2, 0, 0, 0, 0.2475, 0, 2, 0, 0, 1.092, 0, 0, 0, 2, 0.2641, 0, 0.1525, 0, 0, 0, 0.1943, 0.2623, 0.746],
        u: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.1939, 0, 0, 0, 1.1021, 0, 2, 0.2393, 0.1146, 0, 0.2981, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 2, 0.8173, 2, 0, 0.1228, 2, 0, 2, 2, 2, 0, 0, 2, 0, 0.92, 2],
        w: [0, 0, 0, 0, 0.6469, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0.3332, 0, 0, 0.1187, 0, 0.359, 0, 0, 0.0901, 0, 1.7583, 2],
        x: [0, 0, 1.7782, 2, 0, 2, 0, 0, 1.1078, 2, 2, 0, 0, 2, 0, 0, 2, 0, 2, 0.9149, 0, 2, 0, 2, 0, 0],
        y: [2, 0, 0.1664, 0, 0.5699, 0, 2, 0, 0.1351, 0, 0, 0.0198, 0, 0.8555, 0, 0, 2, 2, 0, 0, 2, 0, 0, 0, 0, 0],
        z: [0, 0.6528, 2, 1.3675, 0, 2, 0, 0, 0, 0, 0, 0, 2, 1.3635, 0, 0, 2, 2, 0.0849, 2, 0, 0, 0, 2, 2, 0],
      },
      wordStarts: [0.0559, 0.0357, 0.1565, 0.1477, 0, 0, 0, 0.5694, 0.2922, 0, 1.2592, 0.4415, 0.1767, 0, 0.4312, 0, 0.1533, 0, 0.219, 0.2364, 0, 0.5191, 0, 1.868, 0, 2],
      wordEnds: [0.9604, 2, 0.5155, 0.025, 0.2467, 0.5071, 0.0897, 0.4252, 2, 1.4188, 0.3979, 0, 0.0121, 0.2211, 0.9863, 0.3233, 2, 0.0735, 0, 0, 0.1816, 2, 0.1523, 0, 0, 1.6665],
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
      latin: [1.7029, 0],
      greek: [2.0039, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.2894, 0],
      hebrew: [1.3498, 0],
      arabic: [1.2679, 2],
      devanagari: [1.2034, 2],
      bengali: [1.3594, 2],
      gurmukhi: [2.1259, 0],
      gujarati: [2.0882, 0.0546],
      oriya: [3, 1.5683],
      tamil: [1.5843, 0.6679],
      telugu: [2.1423, 0],
      kannada: [2.1484, 0],
      malayalam: [1.7545, 2],
      sinhala: [2.2726, 0],
      thai: [0.9889, 1.5174],
      lao: [2.0347, 2],
      tibetan: [2.1189, 0.8622],
      myanmar: [2.5638, 0],
      khmer: [1.9893, 0],
      georgian: [2.861, 1.0962],
      ethiopic: [2.7668, 1.6036],
      han: [0.3, 0],
      kana: [0.3, 0.9553],
      hangul: [1.6902, 0],
      other: [3, 1.1666],
      highSurrogate: [2, 0.163],
      lowSurrogate: [2, 0.1224],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 1.01,
      'start han': 2,
      'upper upper': 0.3938,
      'upper lower': 0.346,
      'upper punctuation': 0.6977,
      'upper space': 0.7178,
      'upper break': 0.7747,
      'upper latin': 1.5448,
      'upper commonOther': 0.081,
      'lower upper': 0.237,
      'lower punctuation': 0.0656,
      'lower break': 0.2283,
      'lower latin': 2,
      'lower commonPunctuation': 1.7587,
      'lower combining': 2,
      'lower han': 1.8924,
      'lower kana': 2,
      'digit upper': 2,
      'digit lower': 0.9958,
      'digit digit': 0.002,
      'digit punctuation': 0.0439,
      'digit space': 0.7404,
      'digit break': 0.248,
      'digit commonOther': 1.2875,
      'digit commonSymbol': 1.6436,
      'punctuation upper': 0.3086,
      'punctuation lower': 0.2094,
      'punctuation digit': 1.1728,
      'punctuation punctuation': 0.5396,
      'punctuation space': 0.9982,
      'punctuation commonOther': 1.0717,
      'space upper': 0.184,
      'space digit': 1.6142,
      'space break': 0.6148,
      'space commonOther': 2,
      'space commonPunctuation': 1.5383,
      'space han': 0.9883,
      'space kana': 0.4853,
      'space commonSymbol': 1.0101,
      'break upper': 0.8898,
      'break digit': 1.249,
      'break space': 1.8138,
      'break break': 0.0041,
      'break han': 0.4664,
      'latin lower': 2,
      'latin punctuation': 2,
      'commonOther upper': 2,
      'commonOther lower': 2,
      'commonOther latin': 0.2797,
      'commonOther commonOther': 1.4907,
      'commonOther commonPunctuation': 2,
      'commonOther commonSymbol': 1.7946,
      'commonPunctuation punctuation': 0.3417,
      'commonPunctuation break': 0.2418,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.5796,
      'commonPunctuation kana': 0.8398,
      'combining upper': 0.7203,
      'combining lower': 0.014,
      'combining digit': 0.8078,
      'combining latin': 2,
      'combining combining': 1.7439,
      'han punctuation': 1.0931,
      'han space': 1.3893,
      'han break': 0.6589,
      'han commonPunctuation': 1.1265,
      'han han': 1.43,
      'han kana': 0.0222,
      'kana space': 2,
      'kana commonOther': 1.1691,
      'kana han': 0.902,
      'kana kana': 0.0783,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 2,
    },
    {
      letterPairs: {
        a: [0.0271, 0, 0, 0.628, 2, 1.49, 0, 2, 0.0074, 0, 0, 0, 0.1961, 0.1507, 0, 0.2454, 1.8066, 0.0532, 0.0148, 0, 0.5914, 0.3672, 2, 0.0046, 0.4131, 2],
        b: [0, 0, 2, 0, 0, 0, 0, 2, 0.2649, 0, 0, 0, 0, 0, 0.2807, 1.2086, 2, 0, 0, 0, 0, 1.2029, 2, 0, 0.1474, 0],
        c: [0, 0, 0, 0, 0.0447, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.4899, 0, 0, 0, 0, 2, 0, 0],
        d: [0, 0, 0.5298, 0.4548, 0.2385, 0, 1.331, 2, 0, 2, 0, 1.0005, 2, 0, 0, 0, 0, 0, 0, 0, 0.5658, 1.1004, 0, 2, 0.4066, 2],
        e: [0, 0, 0, 0, 0.2553, 0, 0.4994, 0, 0, 0, 2, 0, 0, 0, 0, 0.8821, 0, 0, 0, 0, 0, 0, 0, 0, 0.4023, 1.3491],
        f: [1.0305, 0, 0, 0, 0, 0, 2, 2, 0, 2, 0, 0, 0, 0, 0.06, 0, 2, 0.21, 2, 0, 0, 2, 0, 2, 0.6502, 2],
        g: [0.0446, 0.3702, 0, 2, 0, 0, 0.1861, 0, 0, 2, 2, 0, 0.8367, 0, 0.1147, 0, 0, 0, 0.087, 0.7231, 0.3114, 2, 2, 0, 0, 0],
        h: [0, 2, 1.1534, 0.3418, 0, 0, 0.5706, 2, 0.3646, 0, 0, 0, 0, 0, 0.1836, 2, 2, 0, 0, 0.5609, 2, 2, 2, 0, 0, 2],
        i: [2, 0.3389, 0, 0, 0, 0, 0, 2, 2, 0, 1.4896, 0.0079, 0, 0, 0, 0.1046, 0, 0.1019, 0.2898, 0, 1.3295, 0.1939, 0, 0, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [0.5084, 0, 0, 0, 0, 0, 1.09, 2, 0.7171, 0, 2, 1.4538, 2, 0.9814, 2, 0, 0, 2, 0, 0.4709, 0, 2, 0, 2, 1.9716, 2],
        l: [0, 2, 0, 0.1692, 0, 0, 2, 2, 0, 1.5477, 0.0465, 0.0107, 0.6653, 0, 0, 0, 2, 0.3472, 0, 0, 0, 0, 0, 2, 0, 0],
        m: [0, 0, 2, 1.6877, 0, 0, 0, 2, 0.233, 2, 2, 1.3405, 0, 0.43, 0.3591, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0.6097, 2],
        n: [0.0432, 2, 0, 0.0058, 0.0111, 0, 0, 0, 0.2716, 2, 0.2238, 0, 0, 0.8518, 0, 1.3045, 1.4448, 0, 0, 0, 0.5268, 0, 0.8502, 0, 0.336, 0],
        o: [0.1335, 0, 0, 0, 0.5244, 0.3314, 0.9541, 0, 0, 0, 0, 0.3753, 0, 0, 0, 0, 0, 0, 0.0964, 0.4382, 0.2582, 0, 0, 0, 0, 2],
        p: [0, 0, 2, 0, 0, 0, 0.611, 0, 0.8621, 0, 0, 0, 0.4164, 0, 0, 0, 0, 0, 0, 0.2861, 0.0279, 1.1216, 2, 0, 0.7701, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0, 0, 0, 2, 0, 2, 2, 2, 2, 2],
        r: [0.2356, 2, 0, 1.7808, 0, 1.7121, 0, 2, 0, 2, 0, 0, 0, 0.2477, 0, 0, 0, 0.334, 0, 0, 0.1041, 0.4056, 2, 2, 0, 2],
        s: [1.8272, 0, 0, 2, 0.2037, 0, 0, 0.5014, 0, 2, 0.1146, 0, 1.2605, 1.0471, 0.0933, 0, 1.7125, 2, 0, 0.0287, 0.0279, 0, 0, 2, 0.3015, 2],
        t: [0, 0, 0.9134, 2, 0, 0, 0.2485, 0.0505, 0, 2, 0, 0, 0.4267, 0, 0, 0, 2, 0.1936, 0, 0, 0, 0, 0, 2, 0.3674, 2],
        u: [0, 0, 0, 0, 0, 0, 0.8064, 0.3768, 0, 2, 2, 0, 0.3394, 0.0098, 0, 0.0191, 2, 0, 0, 0.0244, 1.4939, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 2, 0.178, 2, 2, 0.8359, 2, 0, 0, 2, 2, 2, 0.9056, 2, 0, 2, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.1339, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0.0672, 0, 2, 1.3458, 0, 0, 2, 2, 0.8915, 2, 1.3491, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 0.7682, 0.5456, 2, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0.7723, 0.8858, 2, 2, 2, 2, 2],
        y: [2, 0, 0, 2, 1.073, 0, 2, 0, 0.0235, 0, 2, 0, 0.2385, 0.3423, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0, 0],
        z: [0, 2, 2, 2, 0, 2, 2, 2, 0, 2, 0, 0.3065, 2, 2, 0, 0, 2, 2, 2, 2, 0, 2, 2, 2, 2, 0],
      },
      wordStarts: [0.012, 0.1946, 0.1966, 0.1703, 0, 0, 0, 0.4201, 0.3235, 0, 0.9747, 0.6064, 0.2157, 0, 0.3093, 0, 1.3935, 0, 0.1585, 0.3881, 0, 0.784, 0, 1.6504, 0, 2],
      wordEnds: [1.0255, 2, 0, 0, 0.2331, 0.1073, 0, 0.4619, 2, 1.5055, 0.5367, 0, 0.0343, 0.2607, 0.7052, 0.1327, 2, 0.1841, 0, 0, 0.262, 2, 0.0441, 0, 0, 0.8974],
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
      latin: [1.7898, 0],
      greek: [2.0039, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.287, 0],
      hebrew: [1.3498, 0],
      arabic: [1.2934, 2],
      devanagari: [1.2584, 2],
      bengali: [1.3855, 2],
      gurmukhi: [2.1273, 0],
      gujarati: [2.0978, 0],
      oriya: [3, 1.5997],
      tamil: [1.6575, 0.2186],
      telugu: [2.1464, 0],
      kannada: [2.1523, 0],
      malayalam: [1.7728, 1.8191],
      sinhala: [2.2775, 0],
      thai: [0.9889, 1.5174],
      lao: [2.033, 2],
      tibetan: [2.1177, 0.873],
      myanmar: [2.5638, 0],
      khmer: [1.9839, 0],
      georgian: [2.8808, 1.9003],
      ethiopic: [2.6914, 1.8713],
      han: [0.3, 0],
      kana: [0.3, 0.7105],
      hangul: [1.6922, 0],
      other: [3, 1.4502],
      highSurrogate: [2, 0.1814],
      lowSurrogate: [2, 0.1163],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 1.01,
      'start han': 2,
      'upper upper': 0.3938,
      'upper lower': 0.4294,
      'upper punctuation': 0.4889,
      'upper space': 0.7804,
      'upper break': 0.7628,
      'upper latin': 1.4464,
      'upper commonOther': 0.2858,
      'lower upper': 0.1603,
      'lower digit': 0.0603,
      'lower punctuation': 0.0191,
      'lower break': 0.1585,
      'lower latin': 2,
      'lower commonPunctuation': 1.7266,
      'lower combining': 2,
      'lower han': 1.7695,
      'lower kana': 2,
      'digit upper': 2,
      'digit lower': 0.822,
      'digit digit': 0.0021,
      'digit punctuation': 0.1736,
      'digit space': 0.856,
      'digit commonOther': 1.7881,
      'digit commonSymbol': 2,
      'punctuation upper': 0.253,
      'punctuation lower': 0.2691,
      'punctuation digit': 1.1545,
      'punctuation punctuation': 0.5466,
      'punctuation space': 1.0032,
      'punctuation commonOther': 1.8794,
      'space upper': 0.1213,
      'space digit': 1.5177,
      'space break': 0.334,
      'space commonOther': 0.5435,
      'space commonPunctuation': 2,
      'space han': 1.0662,
      'space kana': 0.8666,
      'space commonSymbol': 1.1689,
      'break upper': 0.954,
      'break digit': 1.0944,
      'break space': 1.8588,
      'break break': 0.0041,
      'break han': 0.57,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 0.0309,
      'commonOther upper': 1.818,
      'commonOther lower': 2,
      'commonOther latin': 0.1311,
      'commonOther commonOther': 1.4928,
      'commonOther commonPunctuation': 2,
      'commonOther commonSymbol': 0.158,
      'commonPunctuation punctuation': 0.5591,
      'commonPunctuation break': 0.149,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.596,
      'commonPunctuation kana': 0.9479,
      'combining upper': 0.4863,
      'combining digit': 0.8849,
      'combining space': 0.1113,
      'combining latin': 2,
      'combining combining': 1.6699,
      'han punctuation': 1.004,
      'han space': 1.2231,
      'han break': 0.7867,
      'han commonPunctuation': 1.1167,
      'han han': 1.43,
      'han kana': 0.2676,
      'kana space': 2,
      'kana commonOther': 1.2696,
      'kana han': 1.1128,
      'kana kana': 0.0578,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 2,
    },
    {
      letterPairs: {
        a: [0.0271, 0, 0, 0.8132, 2, 1.6204, 0, 1.7164, 0.0364, 0, 0, 0, 0.1317, 0.1129, 0, 0.2893, 1.9462, 0.0723, 0.0068, 0, 0.1435, 0.4085, 2, 0, 0.4436, 2],
        b: [0, 0, 2, 0, 0, 0, 0, 2, 0.2487, 0, 0.4379, 0, 0, 0, 0.1129, 1.9497, 0, 0, 0, 0, 0, 0.4269, 2, 0, 0.2912, 0],
        c: [0, 0, 0, 0, 0.0571, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0131, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0.1711, 0.5029, 0.1457, 0, 1.0534, 2, 0, 2, 0, 0.7602, 2, 0, 0, 0, 0, 0, 0, 0, 0.5104, 1.393, 0, 2, 0, 2],
        e: [0, 0, 0, 0, 0.2757, 0, 0.7091, 0, 0, 0, 2, 0, 0, 0.0186, 0.0081, 1.1498, 0, 0, 0, 0, 0.3147, 0, 0, 0, 0.33, 0.5994],
        f: [0.7952, 0, 0, 0, 0, 0, 2, 2, 0, 2, 0, 0, 0, 0, 0, 0, 2, 0.1938, 2, 0, 0, 2, 0, 2, 0.3769, 2],
        g: [0, 0.5506, 0, 0.546, 0, 0, 0, 0, 0, 2, 2, 0, 1.0882, 0, 0.1406, 0, 0, 0, 0.4043, 0.2983, 0.1335, 2, 2, 0, 0, 0],
        h: [0, 2, 0, 0.6723, 0, 0, 0.5973, 0, 0.3551, 0.5895, 0, 0, 0, 0, 0.3713, 2, 2, 0, 0.2206, 0.6004, 2, 2, 2, 0, 0, 2],
        i: [1.7494, 0.3525, 0, 0, 0, 0, 0, 2, 2, 0, 1.4672, 0, 0, 0, 0, 0.165, 0, 0.1513, 0.3438, 0, 1.3207, 0.1007, 0, 0, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 2, 0, 0, 2, 0, 0, 0, 1.3999, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [0.7901, 0, 0, 0, 0, 0, 0, 2, 0.9386, 0, 2, 1.9026, 2, 0.5704, 2, 0, 0, 2, 0, 0.5054, 0, 2, 0, 0, 0.8697, 2],
        l: [0, 2, 0, 0.2074, 0, 0, 2, 1.9699, 0, 0, 0.075, 0, 0.4618, 0, 0, 0, 2, 0.6911, 0, 0, 0, 0, 0, 2, 0, 0],
        m: [0, 0.0573, 2, 1.6799, 0, 0, 0, 2, 0.3821, 2, 0, 1.0246, 0, 0.9459, 0.4647, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0.7462, 2],
        n: [0.1414, 2, 0, 0.0022, 0.0509, 0, 0, 0, 0.3562, 2, 0.0201, 0, 0, 0.5548, 0, 0.2374, 0.8232, 0, 0, 0, 0.5237, 0, 0, 0, 0.1296, 0],
        o: [0.1999, 0, 0, 0, 0.426, 0.1998, 0.7694, 0, 0, 0, 0, 0.2612, 0, 0, 0, 0, 0, 0, 0.2498, 0.3796, 0.2529, 0, 0, 0, 0.8456, 2],
        p: [0, 0, 0.1093, 0, 0, 0, 0.1304, 0, 1.0679, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.2977, 2, 0, 0.4362, 2],
        q: [0, 2, 2, 0.4946, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 2, 0.5745, 0, 2, 0, 2, 2, 2, 2, 2],
        r: [0.243, 2, 0, 1.6626, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0.5546, 0, 0, 0, 0.2351, 0, 0, 0.2868, 0.6218, 2, 0, 0, 2],
        s: [1.7302, 0, 0, 2, 0.1829, 0, 0, 0.295, 0, 2, 0.142, 0, 1.4022, 0.9364, 0.2141, 0, 1.2712, 2, 0, 0.0198, 0, 0, 0, 2, 0.1557, 2],
        t: [0, 0, 1.2541, 2, 0, 0, 0, 0.0769, 0, 2, 0, 0, 0, 0, 0, 0, 2, 0.2372, 0, 0, 0, 0, 0, 0, 0.4327, 2],
        u: [0, 0, 0, 0, 0, 0, 0.6914, 2, 0, 0, 2, 0, 0.2709, 0, 0.6296, 0, 2, 0.0054, 0, 0.1185, 1.6105, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 1.4122, 0.3094, 2, 2, 0.9285, 2, 0, 0, 2, 2, 2, 1.6219, 2, 0, 2, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.3745, 0, 0, 0, 0.088, 2, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.7143, 2, 0.545, 2],
        x: [0, 0, 0, 2, 0, 2, 2, 1.3842, 1.0702, 2, 2, 0, 0, 2, 0, 0, 2, 0, 2, 0.4681, 0.845, 2, 2, 2, 1.9392, 2],
        y: [2, 0, 0, 2, 0.9019, 0, 2, 0, 0, 0, 2, 0, 0, 0.5006, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0, 0],
        z: [0, 2, 2, 2, 0, 2, 0.9617, 0, 0, 2, 0, 0.2198, 2, 2, 0, 0, 2, 2, 2, 2, 0, 2, 2, 2, 2, 0],
      },
      wordStarts: [0.0073, 0.1777, 0.1436, 0.2046, 0, 0, 0, 0.4538, 0.2914, 0.4849, 1.423, 0.5915, 0.092, 0, 0.295, 0, 1.1985, 0, 0.1662, 0.3163, 0, 0.7046, 0, 1.6141, 0, 2],
      wordEnds: [1.0342, 2, 0.3018, 0, 0.23, 0.4006, 0, 0.5148, 2, 1.947, 0.5775, 0, 0.0559, 0.2732, 0.876, 0.0566, 2, 0.1653, 0, 0, 0.2781, 2, 0, 0, 0, 1.5565],
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
