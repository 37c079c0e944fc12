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
  /** Extra tokens per capital letter of the cased scripts beyond ASCII. */
  readonly capitals: { readonly latin: number; readonly greek: number; readonly cyrillic: number; readonly armenian: number };
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
    capitals: Object.freeze({ ...kinds.capitals }),
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
 * every small letter, random letter strings, terminal output with ANSI
 * escapes, tabs and CRLF, decomposed and half-width text) and on the
 * machine's gettext catalogs (program messages translated into about 200
 * languages, read from /usr/share/locale); conversations of the generated
 * corpora with 1% to spare. Fitted on half of the conversations, the other
 * half has 0.25% of its gettext items under-counted (worst 0.89 of the
 * count): text unlike any corpus can still be, by a little. Objective: the mean over-count per conversation
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
 * outside KS X 1001 carry an extra weight (`uncommon`), and so do capital
 * letters of Latin beyond ASCII, Greek, Cyrillic and Armenian (`capitals`):
 * without it, one weight per Cyrillic letter had to price Russian in
 * capitals, and charged Russian prose four times its o200k count.
 *
 * Floors per character keep unseen text over-counted: 1/3 per digit (the
 * encoders split digits in threes), 0.11 per ASCII letter, 0.3 per character
 * of any other script. Scripts without a class (`other`) and surrogate halves
 * are charged their UTF-8 bytes per character, the most a byte-level BPE
 * emits, and ASCII controls (`control`: ESC, NUL, ...) one token each; only
 * their run weights are fitted (a space beside them is a token of its own).
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
      tab: [0.06, 0],
      control: [1, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [0.3, 1.9715],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.5871, 0],
      greek: [1.7136, 2],
      cyrillic: [0.3868, 2],
      armenian: [0.5785, 0.0675],
      hebrew: [0.4539, 1.5488],
      arabic: [0.6097, 1.4289],
      devanagari: [0.5085, 1.1067],
      bengali: [0.4637, 1.5122],
      gurmukhi: [0.9635, 0],
      gujarati: [0.5268, 1.1079],
      oriya: [1.0297, 1.2891],
      tamil: [0.6737, 0.281],
      telugu: [0.4551, 1.7449],
      kannada: [0.4361, 2],
      malayalam: [0.6031, 0.7276],
      sinhala: [0.5148, 2],
      thai: [0.4392, 1.985],
      lao: [2.02, 0.4173],
      tibetan: [1.6605, 0.7263],
      myanmar: [1.4083, 0],
      khmer: [0.8222, 0.4184],
      georgian: [0.3021, 2],
      ethiopic: [1.8278, 2],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [0.6834, 1.6993],
      other: [3, 1.459],
      highSurrogate: [2, 0.3565],
      lowSurrogate: [2, 0],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 2,
      'start tab': 0.2343,
      'start han': 2,
      'upper upper': 0.4153,
      'upper lower': 0.4222,
      'upper digit': 0.0586,
      'upper punctuation': 0.5359,
      'upper space': 1.06,
      'upper break': 0.6813,
      'upper latin': 2,
      'upper commonOther': 0.5058,
      'upper kana': 2,
      'lower break': 1.8134,
      'lower latin': 1.6429,
      'lower commonPunctuation': 1.0312,
      'lower han': 0.9036,
      'lower kana': 0.6489,
      'lower commonSymbol': 2,
      'digit upper': 1.2672,
      'digit lower': 1.0537,
      'digit digit': 0.0022,
      'digit space': 0.7272,
      'digit break': 0.0924,
      'digit commonPunctuation': 1.226,
      'digit commonSymbol': 2,
      'punctuation upper': 0.5487,
      'punctuation lower': 0.1145,
      'punctuation digit': 0.9135,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.8666,
      'punctuation break': 0.5561,
      'punctuation control': 0.6899,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.6665,
      'space digit': 1.9488,
      'space punctuation': 0.2259,
      'space space': 0.0227,
      'space break': 0.4409,
      'space tab': 2,
      'space latin': 1.1939,
      'space commonPunctuation': 0.9767,
      'space han': 0.3633,
      'break upper': 2,
      'break digit': 0.9631,
      'break space': 1.0997,
      'break break': 0.0082,
      'break tab': 2,
      'break commonOther': 2,
      'break commonPunctuation': 0.9671,
      'break han': 0.425,
      'break kana': 1.0324,
      'tab upper': 1.1895,
      'tab lower': 1.0122,
      'tab tab': 0.0032,
      'tab latin': 2,
      'control lower': 0.7644,
      'control space': 2,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther punctuation': 1.7295,
      'commonOther space': 1.3866,
      'commonOther commonOther': 0.8003,
      'commonOther commonPunctuation': 1.6366,
      'commonOther kana': 1.5708,
      'commonPunctuation upper': 0.1722,
      'commonPunctuation punctuation': 0.4822,
      'commonPunctuation space': 0.3817,
      'commonPunctuation han': 0.3399,
      'commonPunctuation kana': 0.5593,
      'combining lower': 1.8588,
      'combining combining': 1.7355,
      'han space': 1.0179,
      'han break': 1.2062,
      'han commonPunctuation': 1.0645,
      'han han': 0.7213,
      'han kana': 0.4428,
      'kana punctuation': 1.1617,
      'kana space': 1.1495,
      'kana break': 1.7675,
      'kana kana': 0.233,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol commonSymbol': 1.9999,
    },
    {
      letterPairs: {
        a: [2, 0.4483, 0, 0.1356, 0, 0.7725, 0, 0, 0, 0.0091, 0.8097, 0, 0, 0, 0.8709, 0, 0, 0, 0, 0, 0, 0, 0.4951, 0.1293, 0, 1.7024],
        b: [0.5788, 0.1646, 2, 2, 0.0351, 2, 2, 2, 0, 0, 2, 0, 0, 1.7033, 0, 0.0609, 2, 0.1942, 0, 1.3515, 0, 0.7258, 2, 0, 0.8972, 2],
        c: [0, 2, 0.1646, 0, 0, 0, 1.0049, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0819, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1655, 0.3768, 2, 0.8515, 2, 0, 1.4585, 2, 0, 0, 0, 0, 1.0778, 0, 0.3358, 0, 0, 0.1186, 0, 0, 0, 1.6462, 0],
        e: [0, 0, 0, 0, 0.1658, 0, 0.7904, 0, 0, 0, 2, 0, 0, 0, 1.0471, 1.3391, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.9716],
        f: [0.8461, 0, 0, 1.4714, 0, 0.0288, 0, 2, 0, 2, 0, 0, 0, 0, 0.0199, 0, 2, 0, 2, 0.254, 0, 2, 0, 2, 0, 2],
        g: [0.7298, 0.7611, 2, 0, 0, 0.0977, 1.89, 0, 0.1149, 2, 2, 0.352, 0, 1.3291, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0],
        h: [0.0754, 2, 2, 0, 0, 2, 0, 0.1643, 0.5678, 2, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0.0511, 0.4303, 2, 2, 0, 0, 2],
        i: [1.4948, 0, 0, 0.5116, 0, 0, 0, 0, 0.1644, 2, 2, 0.6189, 0, 0, 0, 0, 2, 0.22, 0, 0, 2, 0.4585, 0, 0, 2, 0],
        j: [1.3017, 2, 2, 2, 0, 2, 2, 2, 2, 0.4397, 0, 0, 2, 1.1639, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 0, 0, 0, 0, 2, 1.6952, 0.0363, 0.1644, 0, 2, 2, 2, 2, 0, 2, 0, 2, 0.2986, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4242, 0, 0, 0, 2, 0.2482, 0, 1.8226, 0.4786, 0, 0, 0, 0.3049, 2, 2, 0, 0, 0, 0.5227, 0, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0.1758, 2, 2, 0, 0.1658, 0.964, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0.3142, 2],
        n: [0, 2, 0, 0, 0.5678, 0, 0, 0, 0, 2, 2, 1.1437, 0, 0.4396, 0, 2, 0.4314, 0, 0, 0, 0.0756, 0, 0, 0, 0, 2],
        o: [0, 0, 0, 0, 0, 0, 0.458, 0, 0.0059, 0, 0, 0.5075, 0, 0, 0.0269, 0, 0, 0, 0.9467, 0.7591, 0, 0, 0.0362, 0, 0, 0.3811],
        p: [0, 0, 0.499, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0.471, 0.4397, 0, 0, 0, 0.0324, 0.5294, 0, 2, 0, 0, 2],
        q: [2, 2, 0, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4396, 0, 0.1232, 0, 0.4326, 2, 2, 2, 2, 2],
        r: [0, 1.9959, 0, 0.4546, 0, 0, 0.0338, 0.8451, 0, 1.0515, 0, 0, 0, 0.7628, 0, 1.5759, 2, 0.1658, 0.334, 0, 0, 1.6645, 2, 1.8049, 0, 2],
        s: [0, 2, 0, 2, 0, 0, 2, 0.4294, 0, 2, 0.3459, 0, 0, 0.021, 0, 0, 0, 0, 0.1644, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0.4503, 0, 2, 0, 2, 0, 0.2469, 0, 2, 0, 0, 1.8024, 0, 0, 0, 2, 0.281, 0, 0.4396, 0, 2, 0, 2, 0, 0],
        u: [0, 0, 0, 0, 0, 0, 1.0186, 0, 1.0234, 2, 2, 0, 0.1361, 0, 1.3351, 0, 2, 0, 0, 0, 0.4396, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0.4176, 0.7308, 2, 2, 2, 0, 2, 0, 0.1646, 2, 0, 0.0091, 2],
        w: [0, 0, 0, 0, 0, 1.3657, 0, 0, 0, 2, 2, 0, 0, 0, 0.7319, 0, 2, 1.042, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 1.693, 0, 2, 0, 2, 2, 2, 0.5716, 2, 2, 0, 0, 2, 0, 0, 2, 1.5476, 2, 0, 0, 2, 2, 0.0295, 0, 2],
        y: [2, 0, 2, 1.3368, 1.5106, 0, 2, 0, 1.5559, 0, 2, 0, 0, 2, 0, 1.2819, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.7107, 2, 0, 0, 2, 2, 0.3823, 0, 2, 2, 2, 2, 0, 0, 2, 2, 2, 0.4394],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 1.2811, 0.6889, 0, 0.9342, 0.1923, 0, 0.2653, 0.742, 0, 0.41, 0, 0.6767, 0.0838, 0.1451, 0, 0, 0.4461, 0.3089, 1.2071],
      wordEnds: [0.8046, 2, 1.0927, 0.1038, 0, 0, 0.695, 1.0005, 2, 0.4057, 0.3662, 0, 0, 0.1078, 1.2495, 0.7032, 2, 0, 0.2789, 0, 0.6876, 2, 0, 0, 0, 2],
      uncommon: { han: 2, hangul: 0 },
      capitals: { latin: 0, greek: 0, cyrillic: 0.6216, armenian: 0.4218 },
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
      tab: [0.06, 0],
      control: [1, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [2.5999, 2],
      commonOther: [0.3, 0.0864],
      combining: [0.3, 0],
      latin: [1.4728, 0.2523],
      greek: [1.1441, 0],
      cyrillic: [0.9688, 0.9448],
      armenian: [2.2661, 0],
      hebrew: [1.5375, 0],
      arabic: [1.36, 2],
      devanagari: [1.1202, 2],
      bengali: [1.5676, 1.5292],
      gurmukhi: [2.0695, 0.6264],
      gujarati: [2.1446, 0],
      oriya: [3, 1.4238],
      tamil: [1.4825, 1.283],
      telugu: [2.1272, 0],
      kannada: [2.1316, 0],
      malayalam: [1.9131, 0.9073],
      sinhala: [2.2593, 0],
      thai: [0.9889, 1.5174],
      lao: [2.0344, 2],
      tibetan: [2.0848, 1.211],
      myanmar: [2.5629, 0],
      khmer: [1.9535, 0],
      georgian: [2.112, 1.0556],
      ethiopic: [2.793, 1.4156],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.5391, 0.5683],
      other: [3, 0.9577],
      highSurrogate: [2, 0.1715],
      lowSurrogate: [2, 0.1196],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 2,
      'start tab': 2,
      'start commonOther': 2,
      'start han': 2,
      'upper upper': 0.4128,
      'upper lower': 0.5172,
      'upper punctuation': 0.8663,
      'upper space': 0.8503,
      'upper break': 2,
      'upper latin': 2,
      'upper combining': 1.55,
      'upper kana': 2,
      'lower break': 2,
      'lower control': 1.5969,
      'lower latin': 2,
      'lower commonOther': 0.3947,
      'lower commonPunctuation': 1.3396,
      'lower combining': 0.0214,
      'lower han': 1.2401,
      'lower kana': 0.4134,
      'lower commonSymbol': 2,
      'digit upper': 1.9841,
      'digit lower': 1.1844,
      'digit digit': 0.0023,
      'digit space': 0.8372,
      'digit break': 0.1545,
      'digit commonSymbol': 2,
      'punctuation upper': 0.1966,
      'punctuation lower': 0.1402,
      'punctuation digit': 0.9133,
      'punctuation punctuation': 0.5396,
      'punctuation space': 0.7669,
      'punctuation break': 0.3896,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.0144,
      'punctuation kana': 2,
      'space upper': 0.004,
      'space digit': 1.8898,
      'space punctuation': 0.3338,
      'space space': 0.0155,
      'space break': 1.2143,
      'space tab': 0.7978,
      'space latin': 2,
      'space commonOther': 0.7506,
      'space commonPunctuation': 1.1599,
      'space han': 0.5724,
      'space kana': 0.3633,
      'break upper': 1.9795,
      'break digit': 0.796,
      'break punctuation': 0.3738,
      'break space': 1.1605,
      'break tab': 1.6584,
      'break commonOther': 0.4555,
      'break commonPunctuation': 2,
      'break han': 0.1371,
      'break kana': 1.5637,
      'tab upper': 0.8233,
      'tab lower': 0.3968,
      'tab tab': 0.0024,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 1.8738,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther upper': 1.2219,
      'commonOther lower': 1.0091,
      'commonOther punctuation': 1.4111,
      'commonOther space': 2,
      'commonOther commonOther': 0.6657,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 2,
      'commonPunctuation upper': 0.0566,
      'commonPunctuation punctuation': 0.9903,
      'commonPunctuation break': 0.5421,
      'commonPunctuation latin': 0.9189,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.0844,
      'combining lower': 2,
      'combining digit': 0.7183,
      'combining break': 0.1231,
      'combining combining': 1.8036,
      'han punctuation': 0.5192,
      'han space': 1.208,
      'han break': 1.206,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana punctuation': 0.1398,
      'kana space': 1.2197,
      'kana commonOther': 0.3686,
      'kana han': 0.9956,
      'kana kana': 0.6278,
      'commonSymbol upper': 0.9108,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 0.1163,
    },
    {
      letterPairs: {
        a: [2, 0.1958, 0, 0.2215, 2, 1.612, 0, 2, 0, 2, 0.8462, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0142, 2, 0.1747, 0, 2],
        b: [0.6292, 0.1646, 2, 2, 0.1022, 0, 0, 2, 0.1426, 0, 2, 0, 0, 2, 0, 0, 2, 0.2009, 0, 0.9499, 0.639, 0.8096, 2, 2, 0, 2],
        c: [0, 0, 0.1672, 0, 0, 0, 1.6965, 0, 0, 0, 0.0478, 0.4808, 0, 0, 0, 0, 0, 0.137, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1672, 0.5082, 2, 0.466, 2, 0, 2, 2, 0, 0, 0, 0, 1.5724, 0, 0, 0, 0, 0.1954, 0, 2, 0, 1.1313, 2],
        e: [0, 0, 0, 0, 0.2155, 0, 1.9387, 1.0208, 0.3765, 0, 2, 0.1062, 0, 0, 0.5719, 1.5423, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        f: [0.3053, 0, 0.0925, 2, 0.5732, 0.0302, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 0, 2, 0.3079, 0, 2, 0, 2, 0, 2],
        g: [1.4613, 0.7832, 2, 0, 0, 2, 0.6522, 0, 0.1488, 2, 2, 0.3473, 0, 0.7, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        h: [0, 2, 0, 0, 0, 0, 0, 0.4395, 0.9294, 0, 0, 0, 0, 0, 0.0688, 0, 2, 0, 2, 0.1441, 1.2248, 2, 2, 0, 0, 2],
        i: [2, 1.3111, 0, 0.2325, 0, 0.2262, 0, 0.2745, 0.6543, 2, 2, 0.2255, 0, 0, 0, 0, 0, 0, 0.222, 0, 2, 0.6148, 2, 0.0418, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 0.4411, 1.3361, 0, 2, 1.7832, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0.4393, 0, 2, 1.3838, 2, 0, 0, 2, 0, 2, 0.0819, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4492, 0, 0, 1.0544, 1.0227, 0.1025, 0, 2, 0.7026, 0, 0, 0, 1.5034, 2, 1.4341, 0, 0, 0, 0.1521, 0.0518, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0, 2, 1.4733, 2, 0.4413, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0.1775, 0, 0.2362, 2],
        n: [0.3338, 2, 0, 0, 0.6428, 0, 0, 0.0749, 0.2401, 2, 2, 1.2631, 0, 0.4744, 0, 2, 1.2081, 0, 0.2103, 0, 0.1881, 0, 0.6377, 2, 0, 2],
        o: [0, 0, 0, 0.0348, 0, 0.1362, 0.1824, 0, 0, 0, 0, 0.2487, 0, 0, 0.0269, 0, 0, 0, 0.759, 0.8085, 0, 0.2666, 0, 0, 0, 0],
        p: [0, 0, 1.9813, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.4606, 0.4398, 0, 0, 0.7927, 0, 0.0771, 0.0765, 1.0505, 0, 0, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4392, 0, 0, 0, 0.0062, 2, 2, 0, 2, 2],
        r: [0, 1.6677, 0, 0.7385, 0, 0.1915, 0, 2, 0, 2, 0, 0, 0, 0.3704, 0, 0, 0, 0.4413, 0.1364, 0, 1.1407, 1.2773, 2, 2, 0, 2],
        s: [0, 2, 0.2903, 2, 0, 0, 0, 0.296, 0, 2, 0.6517, 0, 0, 2, 0, 0, 0, 0, 0.4395, 0, 0, 0, 0, 0, 0, 1.7988],
        t: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 0.6931, 0, 0, 0, 2, 0.4553, 0, 0.4397, 0, 2, 0, 2, 0, 2],
        u: [0, 0, 0, 0, 0, 0, 0, 2, 1.5154, 0, 2, 0, 0, 0, 0.4015, 0, 2, 0, 0, 0, 0.7491, 2, 2, 0, 0, 2],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0, 1.7391, 2, 2, 2, 0, 2, 0, 0.4397, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.1507, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 2, 1.0202, 1.8799, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.03, 0, 2],
        y: [2, 0, 2, 2, 2, 0.8583, 1.2579, 0, 2, 2, 2, 0, 0, 1.768, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1644, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.673, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0, 0, 2, 2, 2, 0, 1.6816, 0.4392],
      },
      wordStarts: [0, 0.1391, 0, 0, 0, 0, 0, 0.564, 0.345, 0, 1.2991, 0.6941, 0, 0.4103, 0.5145, 0, 2, 0, 0.7678, 0.2524, 0.5017, 0, 0, 0.0309, 0.6737, 2],
      wordEnds: [1.1488, 2, 0, 0, 0, 0, 0.342, 0.536, 2, 0.0495, 0.4096, 0, 0, 0.3554, 1.1279, 0.4636, 2, 0, 0.2663, 0, 0.2819, 2, 0, 0, 0, 0],
      uncommon: { han: 2, hangul: 0 },
      capitals: { latin: 0, greek: 0.8595, cyrillic: 0.203, armenian: 0 },
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
      tab: [0.06, 0],
      control: [1, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [2.7156, 2],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.1675, 1.7458],
      greek: [1.1432, 0],
      cyrillic: [0.9803, 0.9448],
      armenian: [2.248, 0],
      hebrew: [1.5375, 0],
      arabic: [1.3666, 2],
      devanagari: [1.129, 2],
      bengali: [1.5792, 1.4554],
      gurmukhi: [2.0224, 0.8971],
      gujarati: [2.1446, 0],
      oriya: [3, 1.4356],
      tamil: [1.4825, 1.283],
      telugu: [2.1272, 0],
      kannada: [2.1316, 0],
      malayalam: [1.9833, 0.3586],
      sinhala: [2.2612, 0],
      thai: [0.9889, 1.5174],
      lao: [2.0382, 2],
      tibetan: [2.0841, 1.218],
      myanmar: [2.5628, 0],
      khmer: [1.9504, 0.0213],
      georgian: [2.1467, 0.9269],
      ethiopic: [2.793, 1.4156],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.5391, 0.5683],
      other: [3, 1.1856],
      highSurrogate: [2, 0.1606],
      lowSurrogate: [2, 0.1232],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 2,
      'start tab': 2,
      'start commonOther': 2,
      'start han': 2,
      'upper upper': 0.4153,
      'upper lower': 0.5135,
      'upper punctuation': 0.6341,
      'upper space': 0.7602,
      'upper break': 1.9972,
      'upper latin': 2,
      'upper combining': 1.5446,
      'upper kana': 2,
      'lower break': 2,
      'lower control': 1.5664,
      'lower latin': 2,
      'lower commonPunctuation': 1.368,
      'lower combining': 0.0032,
      'lower han': 1.2747,
      'lower kana': 0.5171,
      'lower commonSymbol': 2,
      'digit upper': 1.9903,
      'digit lower': 1.1973,
      'digit digit': 0.0023,
      'digit space': 0.647,
      'digit break': 0.3877,
      'digit commonSymbol': 2,
      'punctuation upper': 0.2712,
      'punctuation lower': 0.1671,
      'punctuation digit': 0.9133,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.7887,
      'punctuation break': 0.2813,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.2674,
      'punctuation kana': 2,
      'space upper': 0.0293,
      'space digit': 1.872,
      'space punctuation': 0.3713,
      'space space': 0.0016,
      'space break': 1.067,
      'space tab': 0.6141,
      'space latin': 2,
      'space commonOther': 0.7699,
      'space commonPunctuation': 1.3169,
      'space han': 0.6908,
      'space kana': 0.6046,
      'break upper': 2,
      'break digit': 0.7274,
      'break punctuation': 0.5092,
      'break space': 1.0752,
      'break break': 0.0072,
      'break tab': 1.8745,
      'break commonOther': 0.6149,
      'break commonPunctuation': 1.7814,
      'break han': 0.4205,
      'break kana': 1.466,
      'tab upper': 0.7277,
      'tab lower': 0.4823,
      'tab tab': 0.0024,
      'tab latin': 1.6684,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther upper': 1.5128,
      'commonOther lower': 1.8393,
      'commonOther punctuation': 1.3753,
      'commonOther space': 1.9369,
      'commonOther commonOther': 0.2042,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 1.1063,
      'commonPunctuation upper': 0.072,
      'commonPunctuation punctuation': 1.2525,
      'commonPunctuation break': 0.264,
      'commonPunctuation latin': 0.7433,
      'commonPunctuation commonOther': 1.1151,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.1824,
      'combining lower': 2,
      'combining digit': 0.7282,
      'combining break': 0.052,
      'combining combining': 1.8057,
      'han punctuation': 0.4116,
      'han space': 1.0883,
      'han break': 1.0993,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana punctuation': 0.1461,
      'kana space': 1.1658,
      'kana break': 0.1841,
      'kana commonOther': 0.9345,
      'kana han': 1.0478,
      'kana kana': 0.578,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
    },
    {
      letterPairs: {
        a: [2, 0.0068, 0, 0.1802, 2, 1.6488, 0, 2, 0, 2, 0.6481, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0056, 1.499, 0.0573, 0.0164, 2],
        b: [0.4632, 0.1646, 2, 2, 0.0298, 0, 1.6931, 2, 0.6504, 0, 2, 0, 0, 1.571, 0, 0, 2, 0.8908, 0, 1.1883, 0, 0, 2, 2, 0, 2],
        c: [0, 2, 0.1667, 0, 0, 0, 2, 0, 0, 0, 0.1746, 0.9569, 0, 0, 0, 0, 0, 0.0855, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.2212, 0.3969, 2, 1.2443, 2, 0, 2, 2, 0, 0.6818, 0, 0, 0, 0, 0, 0, 0, 0.1688, 0.6049, 1.8701, 0, 1.0627, 0],
        e: [0, 0, 0, 0, 0.1668, 0, 2, 1.3858, 0.2898, 0, 2, 0.1894, 0, 0, 1.3645, 1.6087, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.5361],
        f: [0.0979, 0, 0, 2, 0.2186, 0.0298, 0, 2, 0, 1.5738, 0, 0, 0, 2, 0, 0, 2, 0, 2, 0, 0, 2, 0, 2, 0, 2],
        g: [1.4452, 0.9426, 1.8751, 0, 0, 0.8532, 0.4825, 0, 0, 2, 2, 0.7038, 0, 0.5728, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        h: [0, 2, 0.0545, 0, 0, 0, 0, 0.4394, 0.6522, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0.3093, 0.4659, 2, 2, 0, 0, 2],
        i: [2, 1.1045, 0, 0.0958, 0, 0.5887, 0, 1.1238, 0.8849, 2, 2, 0.2282, 0, 0, 0, 0, 0, 0.1639, 0.2161, 0, 2, 0.5197, 2, 0.3131, 2, 0],
        j: [2, 2, 2, 2, 0.4456, 2, 2, 2, 2, 0.4409, 2, 0, 2, 0.9235, 0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0.4392, 0, 2, 2, 2, 0, 0, 2, 0, 2, 0.2096, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4321, 0, 0, 1.1611, 1.6647, 0.1488, 0, 2, 0.4733, 0, 0, 0, 0.8053, 2, 1.3352, 0, 0, 0, 0.1568, 0, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0, 2, 1.8741, 0, 0.4409, 0.0838, 0, 0, 2, 2, 0, 0, 0, 0, 0.0144, 0, 0.3124, 2],
        n: [0, 2, 0, 0, 0.66, 0, 0, 0, 0.3456, 2, 2, 1.1508, 0, 0.4472, 0, 1.8949, 1.1064, 0, 0.1481, 0, 0.557, 0, 2, 2, 0, 0],
        o: [0, 0, 0, 0.0395, 0, 0.0949, 0.1255, 0, 0, 0, 0, 0.1283, 0, 0, 0.0269, 0, 0, 0, 0.7785, 0.9964, 0, 0.3789, 0, 0, 0, 2],
        p: [0, 0, 1.8915, 0, 0, 0, 0, 0, 0, 0, 1.1141, 0, 0, 0, 0.3382, 0.4397, 0, 0, 0.2284, 0, 0.0821, 0.5431, 0.5037, 0, 0, 2],
        q: [0, 2, 0, 2, 2, 1.8985, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4392, 0, 0, 0, 0.146, 2, 2, 0, 2, 2],
        r: [0, 1.0997, 0, 0.7156, 0, 0, 0, 2, 0, 2, 0, 0.5098, 0, 0.552, 0, 0, 0, 0.4409, 0, 0, 1.1331, 0.9736, 2, 0, 0, 2],
        s: [0, 2, 0.3051, 2, 0, 0, 0.5803, 0.1498, 0, 1.3597, 0.571, 0, 0, 2, 0, 0, 0, 0, 0.4395, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 0.8015, 0, 0, 0, 2, 0.8577, 0, 0.4396, 0, 2, 0, 2, 0, 1.9047],
        u: [0, 0, 0.1981, 0, 0, 0, 0.2923, 2, 1.8497, 0, 2, 0, 0, 0, 1.1556, 0, 2, 0, 0, 0, 0.7922, 2, 2, 0, 0, 1.793],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0, 1.1552, 2, 2, 2, 0, 2, 0, 0.4397, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.271, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0.0998, 2, 2, 2, 1.0376, 0, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.0325, 0, 2],
        y: [2, 0, 2, 2, 2, 0, 2, 0, 1.7727, 2, 2, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 0, 2, 2, 0, 2, 0, 0, 1.2579, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0.2027, 0, 0.9313, 2, 2, 0, 2, 0.4392],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 0.9674, 0.4179, 0, 1.9175, 0.6713, 0, 0.2004, 0.4492, 0, 2, 0, 0.6543, 0.2705, 0.2193, 0, 0, 0.1413, 0.4818, 1.8599],
      wordEnds: [1.2737, 1.9736, 0.0417, 0, 0, 0, 0.276, 0.5258, 2, 0, 0.33, 0, 0, 0.4444, 1.1964, 0.3877, 2, 0, 0.3088, 0, 0.594, 2, 0, 0, 0, 0],
      uncommon: { han: 2, hangul: 0 },
      capitals: { latin: 0, greek: 0.8602, cyrillic: 0.1914, armenian: 0 },
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
      if (currentKind === 'capitalLatin') weight += profile.capitals.latin;
      if (currentKind === 'capitalGreek') weight += profile.capitals.greek;
      if (currentKind === 'capitalCyrillic') weight += profile.capitals.cyrillic;
      if (currentKind === 'capitalArmenian') weight += profile.capitals.armenian;
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
