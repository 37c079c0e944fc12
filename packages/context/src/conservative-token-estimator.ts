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
 * outside KS X 1001 carry an extra weight (`uncommon`).
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
      commonSymbol: [0.3, 1.9698],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.5875, 0],
      greek: [1.7138, 2],
      cyrillic: [1.0101, 0],
      armenian: [1.0084, 0],
      hebrew: [0.4539, 1.5488],
      arabic: [0.6097, 1.4292],
      devanagari: [0.5085, 1.107],
      bengali: [0.4636, 1.5125],
      gurmukhi: [0.9635, 0],
      gujarati: [0.5268, 1.1079],
      oriya: [1.0297, 1.2891],
      tamil: [0.6737, 0.281],
      telugu: [0.4551, 1.7449],
      kannada: [0.4361, 2],
      malayalam: [0.6031, 0.7276],
      sinhala: [0.5148, 2],
      thai: [0.4392, 1.9852],
      lao: [2.02, 0.4174],
      tibetan: [1.6605, 0.7263],
      myanmar: [1.4083, 0],
      khmer: [0.8187, 0.4448],
      georgian: [2.8951, 1.7883],
      ethiopic: [1.8278, 2],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [0.6832, 1.6997],
      other: [3, 1.4589],
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
      'upper digit': 0.0584,
      'upper punctuation': 0.5358,
      'upper space': 1.0601,
      'upper break': 0.6813,
      'upper latin': 2,
      'upper commonOther': 0.5038,
      'upper kana': 2,
      'lower break': 1.8132,
      'lower latin': 1.6417,
      'lower commonPunctuation': 1.031,
      'lower han': 0.9031,
      'lower kana': 0.6463,
      'lower commonSymbol': 2,
      'digit upper': 1.2673,
      'digit lower': 1.0537,
      'digit digit': 0.0022,
      'digit space': 0.7274,
      'digit break': 0.0923,
      'digit commonPunctuation': 1.226,
      'digit commonSymbol': 2,
      'punctuation upper': 0.549,
      'punctuation lower': 0.1145,
      'punctuation digit': 0.9135,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.8665,
      'punctuation break': 0.5559,
      'punctuation control': 0.692,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.6663,
      'space digit': 1.9489,
      'space punctuation': 0.226,
      'space space': 0.0227,
      'space break': 0.4412,
      'space tab': 2,
      'space latin': 1.1921,
      'space commonPunctuation': 0.9773,
      'space han': 0.3634,
      'break upper': 2,
      'break digit': 0.9632,
      'break space': 1.0999,
      'break break': 0.0082,
      'break tab': 2,
      'break commonOther': 2,
      'break commonPunctuation': 0.9651,
      'break han': 0.425,
      'break kana': 1.0546,
      'tab upper': 1.1858,
      'tab lower': 1.0135,
      'tab tab': 0.0032,
      'tab latin': 2,
      'control lower': 0.7641,
      'control space': 2,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther punctuation': 1.7363,
      'commonOther space': 1.3854,
      'commonOther commonOther': 0.8013,
      'commonOther commonPunctuation': 1.6338,
      'commonOther kana': 1.5598,
      'commonPunctuation upper': 0.1727,
      'commonPunctuation punctuation': 0.4823,
      'commonPunctuation space': 0.3809,
      'commonPunctuation han': 0.3399,
      'commonPunctuation kana': 0.5651,
      'combining lower': 1.8588,
      'combining combining': 1.7355,
      'han space': 1.0177,
      'han break': 1.2062,
      'han commonPunctuation': 1.0645,
      'han han': 0.7213,
      'han kana': 0.3739,
      'kana punctuation': 1.1675,
      'kana space': 1.1547,
      'kana break': 2,
      'kana kana': 0.2334,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol commonSymbol': 1.9999,
    },
    {
      letterPairs: {
        a: [2, 0.4481, 0, 0.1358, 0, 0.7729, 0, 0, 0, 0, 0.8094, 0, 0, 0, 0.8665, 0, 0, 0, 0, 0, 0, 0, 0.4949, 0.1296, 0, 1.6947],
        b: [0.5782, 0.1646, 2, 2, 0.0348, 2, 2, 2, 0, 0, 2, 0, 0, 1.705, 0, 0.0599, 2, 0.193, 0, 1.3513, 0, 0.7254, 2, 0, 0.896, 2],
        c: [0, 2, 0.1646, 0, 0, 0, 1.0043, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0826, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1655, 0.3771, 2, 0.852, 2, 0, 1.4576, 2, 0, 0, 0, 0, 1.0787, 0, 0.3344, 0, 0, 0.1189, 0, 0, 0, 1.6478, 0],
        e: [0, 0, 0, 0, 0.1658, 0, 0.7906, 0, 0, 0, 2, 0, 0, 0, 1.0467, 1.34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.972],
        f: [0.8456, 0, 0, 1.471, 0, 0.0288, 0, 2, 0, 2, 0, 0, 0, 0, 0.0198, 0, 2, 0, 2, 0.254, 0, 2, 0, 2, 0, 2],
        g: [0.7303, 0.7615, 2, 0, 0, 0.0994, 1.8901, 0, 0.1142, 2, 2, 0.3521, 0, 1.3269, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0],
        h: [0.0753, 2, 2, 0, 0, 2, 0, 0.1643, 0.5679, 2, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0.0513, 0.4317, 2, 2, 0, 0, 2],
        i: [1.4953, 0, 0, 0.5119, 0, 0, 0, 0, 0.1644, 2, 2, 0.6192, 0, 0, 0, 0, 2, 0.2196, 0, 0, 2, 0.4587, 0, 0, 2, 0],
        j: [1.3004, 2, 2, 2, 0, 2, 2, 2, 2, 0.4397, 0, 0, 2, 1.1659, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 0, 0, 0, 0, 2, 1.6942, 0.0383, 0.1644, 0, 2, 2, 2, 2, 0, 2, 0, 2, 0.2984, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4242, 0, 0, 0, 2, 0.2482, 0, 1.8212, 0.4785, 0, 0, 0, 0.3047, 2, 2, 0, 0, 0, 0.5248, 0, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0.1754, 2, 2, 0, 0.1658, 0.967, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0.3141, 2],
        n: [0, 2, 0, 0, 0.5677, 0, 0, 0, 0, 2, 2, 1.1466, 0, 0.4396, 0, 2, 0.4299, 0, 0, 0, 0.0758, 0, 0, 0, 0, 2],
        o: [0, 0, 0, 0, 0, 0, 0.4579, 0, 0.0072, 0, 0, 0.5072, 0, 0, 0.0269, 0, 0, 0, 0.9471, 0.7588, 0, 0, 0.0365, 0, 0, 0.3728],
        p: [0, 0, 0.4962, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0.4704, 0.4397, 0, 0, 0, 0.0315, 0.5293, 0, 2, 0, 0, 2],
        q: [2, 2, 0, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4396, 0, 0.1172, 0, 0.433, 2, 2, 2, 2, 2],
        r: [0, 1.9965, 0, 0.4547, 0, 0, 0.0349, 0.8444, 0, 1.0457, 0, 0, 0, 0.7638, 0, 1.5736, 2, 0.1658, 0.3344, 0, 0, 1.6649, 2, 1.8077, 0, 2],
        s: [0, 2, 0, 2, 0, 0, 2, 0.4296, 0, 2, 0.3462, 0, 0, 0.0227, 0, 0, 0, 0, 0.1644, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0.4494, 0, 2, 0, 2, 0, 0.247, 0, 2, 0, 0, 1.8007, 0, 0, 0, 2, 0.2809, 0, 0.4396, 0, 2, 0, 2, 0, 0],
        u: [0, 0, 0, 0, 0, 0, 1.0188, 0, 1.0238, 2, 2, 0, 0.1359, 0, 1.3362, 0, 2, 0, 0, 0, 0.4396, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0.418, 0.732, 2, 2, 2, 0, 2, 0, 0.1646, 2, 0, 0.0075, 2],
        w: [0, 0, 0, 0, 0, 1.367, 0, 0, 0, 2, 2, 0, 0, 0, 0.7324, 0, 2, 1.0428, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 1.6998, 0, 2, 0, 2, 2, 2, 0.5712, 2, 2, 0, 0, 2, 0, 0, 2, 1.5453, 2, 0, 0, 2, 2, 0.0295, 0, 2],
        y: [2, 0, 2, 1.3316, 1.5113, 0, 2, 0, 1.5555, 0, 2, 0, 0, 2, 0, 1.2812, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.719, 2, 0, 0, 2, 2, 0.3825, 0, 2, 2, 2, 2, 0, 0, 2, 2, 2, 0.4394],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 1.2803, 0.6888, 0, 0.9336, 0.1923, 0, 0.2653, 0.7419, 0, 0.4092, 0, 0.6769, 0.0837, 0.1449, 0, 0, 0.4463, 0.3085, 1.2085],
      wordEnds: [0.8046, 2, 1.093, 0.1037, 0, 0, 0.6952, 1.0006, 2, 0.4058, 0.3665, 0, 0, 0.1079, 1.2497, 0.7036, 2, 0, 0.2787, 0, 0.6882, 2, 0, 0, 0, 2],
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
      tab: [0.06, 0],
      control: [1, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [2.5742, 2],
      commonOther: [0.3, 0.0815],
      combining: [0.3, 0],
      latin: [1.4704, 0.2514],
      greek: [2.0036, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.2663, 0],
      hebrew: [1.5375, 0],
      arabic: [1.3586, 2],
      devanagari: [1.1201, 2],
      bengali: [1.5681, 1.526],
      gurmukhi: [2.0696, 0.6254],
      gujarati: [2.1446, 0],
      oriya: [3, 1.4373],
      tamil: [1.4825, 1.283],
      telugu: [2.1272, 0],
      kannada: [2.1316, 0],
      malayalam: [1.9136, 0.9064],
      sinhala: [2.2612, 0],
      thai: [0.9889, 1.5174],
      lao: [2.0348, 2],
      tibetan: [2.0846, 1.2127],
      myanmar: [2.5629, 0],
      khmer: [1.9556, 0],
      georgian: [2.8931, 0.8554],
      ethiopic: [2.793, 1.4156],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.5391, 0.5683],
      other: [3, 0.955],
      highSurrogate: [2, 0.173],
      lowSurrogate: [2, 0.1191],
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
      'upper lower': 0.5171,
      'upper punctuation': 0.8723,
      'upper space': 0.8466,
      'upper break': 2,
      'upper latin': 2,
      'upper combining': 1.5526,
      'upper kana': 2,
      'lower break': 2,
      'lower control': 1.589,
      'lower latin': 2,
      'lower commonOther': 0.4083,
      'lower commonPunctuation': 1.3507,
      'lower combining': 0.022,
      'lower han': 1.2389,
      'lower kana': 0.4204,
      'lower commonSymbol': 2,
      'digit upper': 2,
      'digit lower': 1.183,
      'digit digit': 0.0023,
      'digit space': 0.8353,
      'digit break': 0.1632,
      'digit commonSymbol': 2,
      'punctuation upper': 0.1968,
      'punctuation lower': 0.1397,
      'punctuation digit': 0.9133,
      'punctuation punctuation': 0.5396,
      'punctuation space': 0.768,
      'punctuation break': 0.3942,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.0112,
      'punctuation kana': 2,
      'space upper': 0.0031,
      'space digit': 1.8865,
      'space punctuation': 0.3346,
      'space space': 0.0169,
      'space break': 1.2145,
      'space tab': 1.0004,
      'space latin': 2,
      'space commonOther': 0.7524,
      'space commonPunctuation': 1.1369,
      'space han': 0.58,
      'space kana': 0.3772,
      'break upper': 1.9704,
      'break digit': 0.7862,
      'break punctuation': 0.3674,
      'break space': 1.1469,
      'break tab': 1.6534,
      'break commonOther': 0.4847,
      'break commonPunctuation': 2,
      'break han': 0.1394,
      'break kana': 1.5646,
      'tab upper': 0.8264,
      'tab lower': 0.398,
      'tab tab': 0.0023,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 1.8892,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther upper': 1.2346,
      'commonOther lower': 1.0585,
      'commonOther punctuation': 1.4081,
      'commonOther space': 2,
      'commonOther commonOther': 0.6682,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 2,
      'commonPunctuation upper': 0.0568,
      'commonPunctuation punctuation': 0.9978,
      'commonPunctuation break': 0.5398,
      'commonPunctuation latin': 0.9233,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.0792,
      'combining lower': 2,
      'combining digit': 0.7171,
      'combining break': 0.1186,
      'combining combining': 1.8032,
      'han punctuation': 0.5162,
      'han space': 1.1998,
      'han break': 1.2049,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana punctuation': 0.1677,
      'kana space': 1.2089,
      'kana commonOther': 0.3793,
      'kana han': 0.9955,
      'kana kana': 0.6261,
      'commonSymbol upper': 0.9988,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 0.1421,
    },
    {
      letterPairs: {
        a: [2, 0.1973, 0, 0.2145, 2, 1.6037, 0, 2, 0, 2, 0.8393, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0.1737, 0, 2],
        b: [0.616, 0.1646, 2, 2, 0.1079, 0, 0, 2, 0.1375, 0, 2, 0, 0, 2, 0, 0, 2, 0.1986, 0, 0.944, 0.633, 0.8399, 2, 2, 0, 2],
        c: [0, 0, 0.1672, 0, 0, 0, 1.6868, 0, 0, 0, 0.0509, 0.5051, 0, 0, 0, 0, 0, 0.1078, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1672, 0.5079, 2, 0.4871, 2, 0, 2, 2, 0, 0, 0, 0, 0.6533, 0, 0, 0, 0, 0.1984, 0, 2, 0, 1.1393, 0],
        e: [0, 0, 0, 0, 0.2188, 0, 1.9355, 1.076, 0.3657, 0, 2, 0.1022, 0, 0, 0.579, 1.5495, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        f: [0.3081, 0, 0.0853, 2, 0.6051, 0.0301, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 0, 2, 0.3264, 0, 2, 0, 2, 0, 2],
        g: [1.4753, 0.8955, 2, 0, 0, 2, 0.6478, 0, 0.1554, 2, 2, 0.4086, 0, 0.7157, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        h: [0, 2, 0.1405, 0, 0, 0, 0, 0.4395, 0.9196, 0, 0, 0, 0, 0, 0.0656, 0, 2, 0, 2, 0.1469, 1.1906, 2, 2, 0, 0, 2],
        i: [2, 1.3198, 0, 0.2381, 0, 0.21, 0, 0.3004, 0.6057, 2, 2, 0.2229, 0, 0, 0, 0, 0, 0, 0.2211, 0, 2, 0.6289, 2, 0.0522, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 0.4411, 1.4367, 0, 2, 1.8149, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0.4393, 0, 2, 1.4113, 2, 0, 0, 2, 0, 2, 0.0632, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4511, 0, 0, 1.085, 1.0256, 0.0904, 0, 2, 0.6942, 0, 0, 0, 1.5057, 2, 1.456, 0, 0, 0, 0.1632, 0.0699, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0, 2, 1.2357, 2, 0.4413, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0.1745, 0, 0.2484, 2],
        n: [0.3419, 2, 0, 0, 0.6491, 0, 0, 0.104, 0.2364, 2, 2, 1.228, 0, 0.4463, 0, 2, 1.1775, 0, 0.2168, 0, 0.196, 0, 0.6418, 2, 0, 1.7926],
        o: [0, 0, 0, 0.0338, 0, 0.1186, 0.1688, 0, 0, 0, 0, 0.2591, 0, 0, 0.0269, 0, 0, 0, 0.7406, 0.7979, 0, 0.2748, 0, 0, 0, 0],
        p: [0, 0, 1.9788, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.4604, 0.4398, 0, 0, 0.769, 0, 0.0825, 0.0687, 1.0332, 0, 0, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4392, 0, 0, 0, 0.0134, 2, 2, 0, 2, 2],
        r: [0, 1.667, 0, 0.7426, 0, 0.1764, 0, 2, 0, 2, 0, 0.0244, 0, 0.389, 0, 0, 0, 0.4413, 0.1246, 0, 1.1368, 1.2923, 2, 2, 0, 2],
        s: [0, 2, 0.2955, 2, 0, 0, 0, 0.2999, 0, 2, 0.6168, 0, 0, 2, 0, 0, 0, 0, 0.4395, 0, 0, 0, 0, 0, 0, 1.1426],
        t: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 0.6463, 0, 0, 0, 2, 0.4499, 0, 0.4396, 0, 2, 0, 2, 0, 2],
        u: [0, 0, 0, 0, 0, 0, 0, 2, 1.5256, 0, 2, 0, 0, 0, 0.4206, 0, 2, 0, 0, 0, 0.7581, 2, 2, 0, 0, 2],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0, 1.7472, 2, 2, 2, 0, 2, 0, 0.4397, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.1428, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 2, 1.0292, 1.4622, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.0299, 0, 2],
        y: [2, 0, 2, 2, 2, 0.7943, 1.1885, 0, 2, 2, 2, 0, 0, 1.7719, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1644, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.6395, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0, 0, 2, 2, 2, 0, 1.4179, 0.4392],
      },
      wordStarts: [0, 0.1377, 0, 0, 0, 0, 0, 0.5697, 0.3459, 0, 1.2768, 0.7052, 0, 0.3976, 0.5126, 0, 2, 0, 0.7714, 0.256, 0.501, 0, 0, 0.035, 0.6742, 2],
      wordEnds: [1.1547, 2, 0, 0, 0, 0, 0.3426, 0.5355, 2, 0.0551, 0.4003, 0, 0, 0.352, 1.1296, 0.4664, 2, 0, 0.2681, 0, 0.2826, 2, 0, 0, 0, 0],
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
      tab: [0.06, 0],
      control: [1, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [2.7156, 2],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.1687, 1.7393],
      greek: [2.0034, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.2475, 0],
      hebrew: [1.5375, 0],
      arabic: [1.3663, 2],
      devanagari: [1.1289, 2],
      bengali: [1.5792, 1.4556],
      gurmukhi: [2.0227, 0.8951],
      gujarati: [2.1446, 0],
      oriya: [3, 1.4351],
      tamil: [1.4825, 1.283],
      telugu: [2.1272, 0],
      kannada: [2.1316, 0],
      malayalam: [1.9845, 0.3481],
      sinhala: [2.2611, 0],
      thai: [0.9889, 1.5174],
      lao: [2.0381, 2],
      tibetan: [2.0841, 1.2182],
      myanmar: [2.5628, 0],
      khmer: [1.9499, 0.0242],
      georgian: [2.8728, 1.9626],
      ethiopic: [2.793, 1.4156],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.5391, 0.5683],
      other: [3, 1.1828],
      highSurrogate: [2, 0.16],
      lowSurrogate: [2, 0.1234],
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
      'upper lower': 0.5132,
      'upper punctuation': 0.6346,
      'upper space': 0.7597,
      'upper break': 2,
      'upper latin': 2,
      'upper combining': 1.5459,
      'upper kana': 2,
      'lower break': 2,
      'lower control': 1.5692,
      'lower latin': 2,
      'lower commonPunctuation': 1.3681,
      'lower combining': 0.0035,
      'lower han': 1.2771,
      'lower kana': 0.5214,
      'lower commonSymbol': 2,
      'digit upper': 1.9931,
      'digit lower': 1.1977,
      'digit digit': 0.0023,
      'digit space': 0.6466,
      'digit break': 0.3889,
      'digit commonSymbol': 2,
      'punctuation upper': 0.2706,
      'punctuation lower': 0.1673,
      'punctuation digit': 0.9133,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.7885,
      'punctuation break': 0.282,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.2671,
      'punctuation kana': 2,
      'space upper': 0.0304,
      'space digit': 1.8717,
      'space punctuation': 0.3718,
      'space space': 0.0018,
      'space break': 1.067,
      'space tab': 0.6139,
      'space latin': 2,
      'space commonOther': 0.7717,
      'space commonPunctuation': 1.317,
      'space han': 0.6917,
      'space kana': 0.6046,
      'break upper': 2,
      'break digit': 0.7262,
      'break punctuation': 0.5053,
      'break space': 1.0743,
      'break break': 0.0072,
      'break tab': 1.871,
      'break commonOther': 0.6032,
      'break commonPunctuation': 1.7687,
      'break han': 0.418,
      'break kana': 1.4637,
      'tab upper': 0.7282,
      'tab lower': 0.4815,
      'tab tab': 0.0024,
      'tab latin': 1.6574,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther upper': 1.5115,
      'commonOther lower': 1.832,
      'commonOther punctuation': 1.3735,
      'commonOther space': 1.9326,
      'commonOther commonOther': 0.1838,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 1.1131,
      'commonPunctuation upper': 0.0692,
      'commonPunctuation punctuation': 1.253,
      'commonPunctuation break': 0.267,
      'commonPunctuation latin': 0.7663,
      'commonPunctuation commonOther': 1.1653,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.1815,
      'combining lower': 2,
      'combining digit': 0.7289,
      'combining break': 0.0534,
      'combining combining': 1.8056,
      'han punctuation': 0.4116,
      'han space': 1.0866,
      'han break': 1.0996,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana punctuation': 0.145,
      'kana space': 1.1658,
      'kana break': 0.1869,
      'kana commonOther': 0.9346,
      'kana han': 1.0496,
      'kana kana': 0.5775,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol kana': 2,
    },
    {
      letterPairs: {
        a: [2, 0.0078, 0, 0.1808, 2, 1.6413, 0, 2, 0, 2, 0.6451, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0038, 1.4939, 0.0581, 0.0154, 2],
        b: [0.4594, 0.1646, 2, 2, 0.0283, 0, 1.7936, 2, 0.6511, 0, 2, 0, 0, 1.5489, 0, 0, 2, 0.8934, 0, 1.1908, 0, 0, 2, 2, 0, 2],
        c: [0, 2, 0.1667, 0, 0, 0, 2, 0, 0, 0, 0.1762, 0.9563, 0, 0, 0, 0, 0, 0.0825, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.2211, 0.3975, 2, 1.2485, 2, 0, 2, 2, 0, 0.6906, 0, 0, 0, 0, 0, 0, 0, 0.1689, 0.6048, 1.874, 0, 1.0608, 0],
        e: [0, 0, 0, 0, 0.1668, 0, 2, 1.392, 0.2875, 0, 2, 0.1888, 0, 0, 1.3696, 1.6099, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.5487],
        f: [0.0985, 0, 0, 2, 0.2155, 0.0298, 0, 2, 0, 1.5682, 0, 0, 0, 2, 0, 0, 2, 0, 2, 0, 0, 2, 0, 2, 0, 2],
        g: [1.4448, 0.9436, 1.8741, 0, 0, 0.9223, 0.484, 0, 0, 2, 2, 0.6994, 0, 0.5684, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        h: [0, 2, 0.0137, 0, 0, 0, 0, 0.4394, 0.6529, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0.3078, 0.4688, 2, 2, 0, 0, 2],
        i: [2, 1.0969, 0, 0.0964, 0, 0.5885, 0, 1.2206, 0.8761, 2, 2, 0.2281, 0, 0, 0, 0, 0, 0.1638, 0.2167, 0, 2, 0.5196, 2, 0.3114, 2, 0],
        j: [2, 2, 2, 2, 0.4419, 2, 2, 2, 2, 0.4409, 2, 0, 2, 0.9246, 0, 0, 0, 2, 0.0059, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0.4392, 0, 2, 2, 2, 0, 0, 2, 0, 2, 0.2124, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4299, 0, 0, 1.1648, 1.6603, 0.1491, 0, 2, 0.4766, 0, 0, 0, 0.8047, 2, 1.3263, 0, 0, 0, 0.155, 0, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0, 2, 1.8802, 0, 0.4409, 0.0808, 0, 0, 2, 2, 0, 0, 0, 0, 0.0156, 0, 0.3155, 2],
        n: [0, 2, 0, 0, 0.6597, 0, 0, 0, 0.3454, 2, 2, 1.1537, 0, 0.4504, 0, 1.8919, 1.1006, 0, 0.1475, 0, 0.5581, 0, 2, 2, 0, 0],
        o: [0, 0, 0, 0.0414, 0, 0.0951, 0.1279, 0, 0, 0, 0, 0.1282, 0, 0, 0.0269, 0, 0, 0, 0.7808, 0.996, 0, 0.3777, 0, 0, 0, 2],
        p: [0, 0, 1.8868, 0, 0, 0, 0, 0, 0, 0, 1.0971, 0, 0, 0, 0.3406, 0.4397, 0, 0, 0.2236, 0, 0.0798, 0.5454, 0.4823, 0, 0, 2],
        q: [0, 2, 0, 2, 2, 1.7702, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4392, 0, 0, 0, 0.1471, 2, 2, 0, 2, 2],
        r: [0, 1.0998, 0, 0.7196, 0, 0, 0, 2, 0, 2, 0, 0.5083, 0, 0.5537, 0, 0, 0, 0.4409, 0, 0, 1.13, 0.9707, 2, 0, 0, 2],
        s: [0, 2, 0.3052, 2, 0, 0, 0.5775, 0.15, 0, 1.3542, 0.5719, 0, 0, 2, 0, 0, 0, 0, 0.4395, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 0.8083, 0, 0, 0, 2, 0.8576, 0, 0.4396, 0, 2, 0, 2, 0, 1.8947],
        u: [0, 0, 0.1964, 0, 0, 0, 0.2996, 2, 1.8539, 0, 2, 0, 0, 0, 1.1446, 0, 2, 0, 0, 0, 0.7922, 2, 2, 0, 0, 1.7989],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0, 1.1529, 2, 2, 2, 0, 2, 0, 0.4397, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.2706, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0.1071, 2, 2, 2, 1.0408, 0, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.0325, 0, 2],
        y: [2, 0, 2, 2, 2, 0, 2, 0, 1.769, 2, 2, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 0, 2, 2, 0, 2, 0, 0, 1.2591, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0.1104, 0, 0.9384, 1.2431, 2, 0, 2, 0.4392],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 0.9662, 0.4183, 0, 1.9204, 0.6695, 0, 0.2002, 0.4495, 0, 2, 0, 0.6544, 0.2701, 0.2209, 0, 0, 0.1415, 0.4823, 1.8546],
      wordEnds: [1.2741, 1.9762, 0.0384, 0, 0, 0, 0.2765, 0.5251, 2, 0, 0.3295, 0, 0, 0.4445, 1.1961, 0.3855, 2, 0, 0.3088, 0, 0.5928, 2, 0, 0, 0, 0],
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
