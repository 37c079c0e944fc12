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
  /** Extra tokens per uncommon character of Han, Hangul and Latin (see `CHARACTER_KINDS`). */
  readonly uncommon: { readonly han: number; readonly hangul: number; readonly latin: number };
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
 * count): text unlike any corpus can still be, by a little. Objective: the
 * mean over-count per conversation of each shared corpus, the Chinese ones
 * weighted up (they sit nearest the 40% median goal), and with a small
 * weight that of every other corpus. `unknown` is fitted the same way to
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
      commonSymbol: [0.8852, 2],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.4784, 0.1578],
      greek: [1.8161, 2],
      cyrillic: [0.3868, 2],
      armenian: [0.5785, 0.0675],
      hebrew: [0.4537, 1.5502],
      arabic: [0.6093, 1.4333],
      devanagari: [0.5074, 1.1152],
      bengali: [0.4634, 1.5141],
      gurmukhi: [0.9635, 0],
      gujarati: [0.5268, 1.1079],
      oriya: [1.03, 1.2869],
      tamil: [0.6737, 0.281],
      telugu: [0.4551, 1.7449],
      kannada: [0.4361, 2],
      malayalam: [0.6031, 0.7276],
      sinhala: [0.5148, 2],
      thai: [0.4424, 2],
      lao: [2.02, 0.4259],
      tibetan: [1.6608, 0.725],
      myanmar: [1.4083, 0],
      khmer: [0.8291, 0.3661],
      georgian: [0.3021, 2],
      ethiopic: [1.8281, 2],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [0.6573, 1.8022],
      other: [3, 1.5004],
      highSurrogate: [2, 0.3557],
      lowSurrogate: [2, 0],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 2,
      'start tab': 0.3535,
      'start han': 2,
      'upper upper': 0.4153,
      'upper lower': 0.4336,
      'upper digit': 0.0392,
      'upper punctuation': 0.4949,
      'upper space': 1.0946,
      'upper break': 0.6813,
      'upper latin': 2,
      'upper commonOther': 0.4236,
      'upper kana': 2,
      'lower break': 1.8708,
      'lower latin': 1.6718,
      'lower commonPunctuation': 1.0462,
      'lower han': 0.884,
      'lower kana': 0.6424,
      'lower commonSymbol': 2,
      'digit upper': 1.3109,
      'digit lower': 1.0548,
      'digit digit': 0.0023,
      'digit space': 0.7414,
      'digit break': 0.1969,
      'digit commonPunctuation': 1.2259,
      'digit commonSymbol': 2,
      'punctuation upper': 0.5867,
      'punctuation lower': 0.1201,
      'punctuation digit': 0.9134,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.8779,
      'punctuation break': 0.5804,
      'punctuation control': 0.0387,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.6685,
      'space digit': 1.9252,
      'space punctuation': 0.2107,
      'space space': 0.0182,
      'space break': 0.3724,
      'space tab': 2,
      'space latin': 1.7114,
      'space commonPunctuation': 1.0618,
      'space han': 0.3577,
      'break upper': 1.9406,
      'break digit': 0.9502,
      'break space': 1.0848,
      'break break': 0.0089,
      'break tab': 2,
      'break commonOther': 2,
      'break commonPunctuation': 1.3235,
      'break han': 0.4254,
      'break kana': 0.8881,
      'tab upper': 0.9848,
      'tab lower': 0.8014,
      'tab tab': 0.0031,
      'tab latin': 2,
      'tab commonPunctuation': 0.0985,
      'control lower': 0.8473,
      'control space': 2,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther punctuation': 1.6268,
      'commonOther space': 1.5234,
      'commonOther commonOther': 0.8213,
      'commonOther commonPunctuation': 1.5381,
      'commonOther kana': 1.5605,
      'commonPunctuation upper': 0.1724,
      'commonPunctuation punctuation': 0.4724,
      'commonPunctuation space': 0.3742,
      'commonPunctuation han': 0.3399,
      'commonPunctuation kana': 0.5479,
      'combining lower': 1.865,
      'combining combining': 1.735,
      'han space': 1.0147,
      'han break': 1.1967,
      'han commonPunctuation': 1.0645,
      'han han': 0.7213,
      'han kana': 0.4832,
      'kana punctuation': 1.1615,
      'kana space': 1.139,
      'kana break': 2,
      'kana kana': 0.2354,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol commonSymbol': 1.4118,
    },
    {
      letterPairs: {
        a: [2, 0.4977, 0, 0.1309, 0, 0.8294, 0, 0, 0, 0, 0.8594, 0, 0, 0, 0.057, 0, 0, 0, 0, 0, 0, 0, 0.2987, 0.0592, 0, 2],
        b: [0.6126, 0.1646, 2, 2, 0.0986, 2, 2, 2, 0, 0, 2, 0, 0, 1.7197, 0, 0.1393, 2, 0.1733, 0, 1.5071, 0, 0.6741, 2, 0, 0.8196, 2],
        c: [0, 2, 0.1646, 0, 0, 0, 1.0164, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0058, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.166, 0.3877, 2, 0.7762, 2, 0, 1.6239, 2, 0, 0, 0, 0, 1.7978, 0, 0.3724, 0, 0, 0.2953, 0, 0, 0, 1.685, 0],
        e: [0, 0, 0, 0, 0.1663, 0, 0.8637, 0, 0, 0, 2, 0, 0, 0, 1.126, 1.1998, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        f: [0.7694, 0, 0, 1.4314, 0, 0.0293, 0, 2, 0, 2, 0, 0, 0, 0, 0.0012, 0, 2, 0, 2, 0.1985, 0, 2, 0, 2, 0, 2],
        g: [0.8383, 0.7214, 2, 0, 0, 0, 1.7618, 0, 0.0888, 2, 2, 0.3045, 0, 1.0177, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0],
        h: [0.0717, 2, 2, 0, 0, 0.3591, 0, 0.1643, 0.5429, 2, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0.058, 0.4548, 2, 2, 0, 0, 2],
        i: [1.371, 0, 0, 0.5254, 0, 0, 0, 0, 0.1644, 2, 2, 0.5802, 0, 0, 0, 0, 1.7523, 0.1287, 0, 0, 2, 0.444, 0, 0, 2, 0],
        j: [0.9587, 2, 2, 2, 0, 2, 1.1558, 2, 2, 0.4397, 0, 0, 2, 1.1952, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 0, 0, 0, 0, 2, 1.5072, 0.0898, 0.1644, 0, 1.8461, 2, 2, 1.8236, 0, 2, 0, 2, 0.2939, 0.9733, 0, 0, 0, 2],
        l: [0, 2, 0, 0.3394, 0, 0, 0, 2, 0.3021, 0, 2, 0.4747, 0, 0, 0, 0.2258, 2, 2, 0, 0, 0, 0.6441, 0, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 0.7149, 2, 0.1999, 2, 0, 0, 0.1663, 0.8105, 0, 0, 0.8171, 0, 0, 0, 0, 0, 0, 0, 0.2834, 2],
        n: [0, 2, 0, 0, 0.5686, 0, 0, 0, 0, 2, 2, 1.549, 0, 0.4396, 0, 1.9005, 0.2366, 0, 0, 0, 0.0492, 0, 0, 0, 0, 2],
        o: [0, 0, 0, 0, 0, 0, 0.4522, 0, 0, 0, 0, 0.4657, 0, 0, 0.0269, 0, 0.2497, 0, 1.0146, 0.7275, 0, 0, 0.0621, 0, 0, 1.4454],
        p: [0, 0, 0.577, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0.4106, 0.4397, 0, 0, 0, 0.1393, 0.5069, 0, 0.7003, 0, 0, 2],
        q: [2, 2, 0, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4396, 0, 0, 0, 0.4484, 2, 2, 2, 2, 2],
        r: [0, 2, 0, 0.3695, 0, 0, 0.0072, 0.8343, 0, 0, 0, 0, 0, 0.868, 0, 1.8144, 2, 0.1663, 0.3353, 0, 0, 1.5567, 2, 1.2819, 0, 2],
        s: [0, 2, 0, 2, 0, 0, 1.9196, 0.4313, 0, 2, 0.3994, 0, 0, 0.0274, 0, 0, 0, 0, 0.1644, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0.1355, 0, 2, 0, 2, 0, 0.2602, 0, 2, 0, 0, 1.9441, 0, 0, 0, 2, 0.2911, 0, 0.4399, 0, 2, 0, 2, 0, 0],
        u: [0, 0, 0, 0, 0, 0, 1.0513, 0, 1.0377, 2, 2, 0, 0.0649, 0, 1.672, 0, 2, 0, 0, 0, 0.4396, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0.181, 0.7059, 2, 2, 2, 0.151, 2, 0, 0.1646, 2, 0, 0.1122, 2],
        w: [0, 0, 0, 0, 0, 1.2576, 0, 0, 0, 2, 2, 0, 0, 0, 0.7223, 0, 2, 1.189, 0, 0, 2, 2, 0.4397, 2, 1.9364, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 2, 0.4968, 2, 2, 0, 0, 2, 0, 0, 2, 0.6368, 2, 0, 0, 2, 2, 0.0309, 0, 2],
        y: [2, 0, 2, 1.2496, 1.3853, 0, 2, 0, 1.7586, 0, 2, 0, 0, 2, 0, 1.2214, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.3431, 2, 0, 0, 2, 2, 0.4946, 0, 2, 2, 2, 2, 0.1602, 0, 2, 2, 2, 0.4393],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 1.3085, 0.7313, 0, 0.9505, 0.1647, 0, 0.283, 0.76, 0, 0.4071, 0, 0.6624, 0.0755, 0.0972, 0, 0, 0.2987, 0.4205, 1.2528],
      wordEnds: [0.8435, 2, 1.0319, 0.1, 0, 0, 0.7014, 0.9569, 2, 0.4214, 0.3198, 0, 0, 0.0969, 1.2191, 0.7211, 2, 0, 0.2776, 0, 0.6286, 2, 0, 0, 0, 2],
      uncommon: { han: 2, hangul: 0, latin: 0 },
      capitals: { latin: 2, greek: 0, cyrillic: 0.6216, armenian: 0.4218 },
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
      commonSymbol: [2.7156, 2],
      commonOther: [0.3, 0.1133],
      combining: [0.3, 0],
      latin: [1.4211, 0.4675],
      greek: [1.1439, 0],
      cyrillic: [0.9687, 0.9448],
      armenian: [2.2671, 0],
      hebrew: [1.5375, 0],
      arabic: [1.3568, 2],
      devanagari: [1.1202, 2],
      bengali: [1.5676, 1.5292],
      gurmukhi: [2.0658, 0.6473],
      gujarati: [2.1446, 0],
      oriya: [3, 1.4369],
      tamil: [1.4825, 1.283],
      telugu: [2.1272, 0],
      kannada: [2.1316, 0],
      malayalam: [1.9115, 0.9263],
      sinhala: [2.2611, 0],
      thai: [0.9889, 1.5174],
      lao: [2.0355, 2],
      tibetan: [2.085, 1.2087],
      myanmar: [2.5629, 0],
      khmer: [1.9555, 0],
      georgian: [2.1134, 1.0519],
      ethiopic: [2.793, 1.4156],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.5391, 0.5683],
      other: [3, 0.9586],
      highSurrogate: [2, 0.1722],
      lowSurrogate: [2, 0.1193],
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
      'upper lower': 0.5182,
      'upper punctuation': 0.8637,
      'upper space': 0.8545,
      'upper break': 2,
      'upper latin': 2,
      'upper combining': 1.554,
      'upper kana': 2,
      'lower break': 2,
      'lower control': 1.5924,
      'lower latin': 2,
      'lower commonOther': 0.4147,
      'lower commonPunctuation': 1.3493,
      'lower combining': 0.0229,
      'lower han': 1.2333,
      'lower kana': 0.4082,
      'lower commonSymbol': 2,
      'digit upper': 1.9962,
      'digit lower': 1.1816,
      'digit digit': 0.0023,
      'digit space': 0.8407,
      'digit break': 0.1474,
      'digit commonSymbol': 2,
      'punctuation upper': 0.1963,
      'punctuation lower': 0.14,
      'punctuation digit': 0.9133,
      'punctuation punctuation': 0.5396,
      'punctuation space': 0.7685,
      'punctuation break': 0.3805,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.0212,
      'punctuation kana': 2,
      'space upper': 0.0021,
      'space digit': 1.8857,
      'space punctuation': 0.3363,
      'space space': 0.0169,
      'space break': 1.1833,
      'space tab': 1.425,
      'space latin': 2,
      'space commonOther': 0.9012,
      'space commonPunctuation': 1.1432,
      'space han': 0.5714,
      'space kana': 0.3586,
      'break upper': 2,
      'break digit': 0.8041,
      'break punctuation': 0.3868,
      'break space': 1.1438,
      'break tab': 1.681,
      'break commonOther': 0.5587,
      'break commonPunctuation': 2,
      'break han': 0.1507,
      'break kana': 1.5607,
      'tab upper': 0.8039,
      'tab lower': 0.3947,
      'tab tab': 0.0022,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 1.9391,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther upper': 1.034,
      'commonOther lower': 1.0312,
      'commonOther punctuation': 1.3618,
      'commonOther space': 2,
      'commonOther commonOther': 0.6288,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 2,
      'commonPunctuation upper': 0.0666,
      'commonPunctuation punctuation': 0.9951,
      'commonPunctuation break': 0.5285,
      'commonPunctuation latin': 0.7851,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.0799,
      'combining lower': 2,
      'combining digit': 0.7186,
      'combining break': 0.1158,
      'combining combining': 1.8027,
      'han punctuation': 0.5152,
      'han space': 1.2106,
      'han break': 1.1971,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana punctuation': 0.1798,
      'kana space': 1.2271,
      'kana commonOther': 0.3459,
      'kana han': 0.9992,
      'kana kana': 0.6265,
      'commonSymbol upper': 0.9082,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
    },
    {
      letterPairs: {
        a: [2, 0.1975, 0, 0.2262, 2, 1.6271, 0, 2, 0, 2, 0.8555, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0035, 2, 0.1635, 0, 2],
        b: [0.6211, 0.1646, 2, 2, 0.0973, 0, 0, 2, 0.1326, 0, 2, 0, 0, 2, 0, 0, 2, 0.2473, 0, 0.9645, 0.6208, 0.9085, 2, 2, 0, 2],
        c: [0, 0, 0.1672, 0, 0, 0, 1.6429, 0, 0, 0, 0.0583, 0.4852, 0.0263, 0, 0, 0, 0, 0.1052, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1672, 0.5065, 2, 0.5235, 2, 0, 2, 2, 0, 0, 0, 0, 1.3538, 0, 0, 0, 0, 0.1979, 0, 2, 0, 1.1272, 2],
        e: [0, 0, 0, 0, 0.2178, 0, 1.9509, 1.0535, 0.3661, 0, 2, 0.0962, 0, 0, 0.569, 1.54, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        f: [0.3129, 0, 0, 2, 0.626, 0.0302, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 0, 2, 0.3308, 0, 2, 0, 2, 0, 2],
        g: [1.4712, 0.7972, 2, 0, 0, 2, 0.6973, 0, 0.1408, 2, 2, 0.411, 0, 0.7233, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        h: [0, 2, 0.4078, 0, 0, 0, 0, 0.4395, 0.906, 0, 0, 0, 0, 0, 0.0719, 0, 2, 0, 2, 0.1548, 1.2389, 2, 2, 0, 0, 2],
        i: [2, 1.3553, 0, 0.2352, 0, 0.2038, 0, 0.1614, 0.7247, 2, 2, 0.2414, 0, 0, 0, 0, 0, 0, 0.2256, 0, 2, 0.6277, 2, 0.0422, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 0.4411, 1.3733, 0, 2, 1.8867, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0.4393, 0, 2, 1.4318, 2, 0, 0, 2, 0, 2, 0.0773, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4591, 0, 0, 1.1292, 1.0748, 0.0919, 0, 2, 0.6709, 0, 0, 0, 1.5051, 2, 1.5054, 0, 0, 0, 0.1764, 0.0768, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0, 2, 1.3602, 2, 0.4413, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0.1882, 0, 0.2548, 2],
        n: [0.3336, 2, 0, 0, 0.6309, 0, 0, 0.0898, 0.2376, 2, 2, 1.294, 0, 0.4396, 0, 2, 1.1959, 0, 0.2204, 0, 0.1905, 0, 0.838, 2, 0, 1.6549],
        o: [0, 0, 0, 0.0361, 0, 0.1226, 0.1638, 0, 0, 0, 0, 0.2638, 0, 0, 0.0269, 0, 0.423, 0, 0.7363, 0.7823, 0, 0.2699, 0, 0, 0, 0],
        p: [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.4301, 0.4398, 0, 0, 0.7686, 0, 0.0734, 0.0717, 0.9032, 0, 0, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4392, 0, 0, 0, 0.0147, 2, 2, 0, 2, 2],
        r: [0, 1.6427, 0, 0.7471, 0, 0.1575, 0, 2, 0, 2, 0, 0.0286, 0, 0.3925, 0, 0.0421, 0, 0.4413, 0.1399, 0, 1.1663, 1.3166, 2, 2, 0, 2],
        s: [0, 2, 0.2937, 2, 0, 0, 0, 0.2901, 0, 2, 0.6608, 0, 0, 2, 0, 0, 0, 0, 0.4395, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 0.6008, 0, 0, 0, 2, 0.4478, 0, 0.4396, 0, 2, 0, 2, 0, 2],
        u: [0, 0, 0, 0, 0, 0, 0, 2, 1.515, 0, 2, 0, 0, 0, 0.4489, 0, 2, 0, 0, 0, 0.789, 2, 2, 0, 0, 2],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0, 1.7676, 2, 2, 2, 0, 2, 0, 0.4397, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.123, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 2, 1.0663, 2, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.03, 0, 2],
        y: [2, 0, 2, 2, 2, 0.5182, 0.9839, 0, 2, 2, 2, 0, 0, 1.7781, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1644, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.5754, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0, 0, 2, 2, 2, 0, 1.4541, 0.4392],
      },
      wordStarts: [0, 0.1347, 0, 0, 0, 0, 0, 0.571, 0.3474, 0, 1.276, 0.703, 0, 0.4005, 0.5078, 0, 2, 0, 0.7681, 0.2622, 0.498, 0, 0, 0.0298, 0.6729, 2],
      wordEnds: [1.1598, 2, 0, 0, 0, 0, 0.3428, 0.5484, 2, 0.057, 0.3908, 0, 0, 0.3484, 1.1274, 0.466, 2, 0, 0.2622, 0, 0.2835, 2, 0, 0, 0, 0],
      uncommon: { han: 2, hangul: 0, latin: 0 },
      capitals: { latin: 0.6174, greek: 0.8597, cyrillic: 0.203, armenian: 0 },
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
      uncommon: { han: 2, hangul: 0, latin: 0 },
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
      if (currentKind === 'uncommonLatin') weight += profile.uncommon.latin;
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
