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
 * profiles, fitted the same way: 1-3). Text that is more than 30% letters of
 * the scripts beyond Latin, Greek, Cyrillic and CJK is held to 1.05 times
 * its count: one weight per character of such a script is fitted on the
 * little ICU and gettext text there is of it, and natural prose ran 5% above
 * it (Lao on cl100k). Han characters outside GB 2312 level 1 and Hangul syllables
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
      commonSymbol: [0.8732, 2],
      commonOther: [0.3, 0],
      combining: [0.3, 0],
      latin: [1.4656, 0.2366],
      greek: [1.8137, 2],
      cyrillic: [0.3868, 2],
      armenian: [0.4025, 2],
      hebrew: [0.4609, 1.6924],
      arabic: [0.6825, 1.311],
      devanagari: [0.5392, 1.0746],
      bengali: [0.5431, 1.3544],
      gurmukhi: [1.002, 0],
      gujarati: [0.5313, 1.5206],
      oriya: [1.0434, 1.5746],
      tamil: [0.7074, 0.5242],
      telugu: [0.4914, 2],
      kannada: [0.5213, 2],
      malayalam: [0.4847, 2],
      sinhala: [0.55, 2],
      thai: [0.4903, 2],
      lao: [2.1027, 0.4289],
      tibetan: [1.7435, 0.7706],
      myanmar: [1.4788, 0],
      khmer: [0.9526, 0],
      georgian: [0.3661, 2],
      ethiopic: [2.0769, 1.144],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [0.6585, 1.7975],
      other: [3, 1.502],
      highSurrogate: [2, 0.3554],
      lowSurrogate: [2, 0],
    },
    {
      'start upper': 2,
      'start lower': 2,
      'start digit': 2,
      'start space': 2,
      'start tab': 0.4274,
      'start han': 2,
      'upper upper': 0.4153,
      'upper lower': 0.4338,
      'upper digit': 0.0395,
      'upper punctuation': 0.494,
      'upper space': 1.0965,
      'upper break': 0.6805,
      'upper latin': 2,
      'upper commonOther': 0.4413,
      'upper kana': 2,
      'lower break': 1.8723,
      'lower latin': 1.6903,
      'lower commonPunctuation': 1.0462,
      'lower han': 0.8818,
      'lower kana': 0.3765,
      'lower commonSymbol': 2,
      'digit upper': 1.3107,
      'digit lower': 1.055,
      'digit digit': 0.0023,
      'digit space': 0.7413,
      'digit break': 0.1985,
      'digit commonPunctuation': 1.226,
      'digit commonSymbol': 2,
      'punctuation upper': 0.587,
      'punctuation lower': 0.1203,
      'punctuation digit': 0.9134,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.8785,
      'punctuation break': 0.5809,
      'punctuation control': 0.0485,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.6691,
      'space digit': 1.9247,
      'space punctuation': 0.2103,
      'space space': 0.0182,
      'space break': 0.3693,
      'space tab': 2,
      'space latin': 1.6333,
      'space commonPunctuation': 1.053,
      'space han': 0.357,
      'break upper': 1.9381,
      'break digit': 0.9504,
      'break space': 1.0849,
      'break break': 0.0089,
      'break tab': 2,
      'break commonOther': 2,
      'break commonPunctuation': 1.3189,
      'break han': 0.4254,
      'break kana': 0.8802,
      'tab upper': 0.9584,
      'tab lower': 0.8001,
      'tab tab': 0.0031,
      'tab latin': 2,
      'tab commonPunctuation': 0.4807,
      'control lower': 0.8494,
      'control space': 2,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther punctuation': 1.6113,
      'commonOther space': 1.5138,
      'commonOther commonOther': 0.758,
      'commonOther commonPunctuation': 1.6972,
      'commonPunctuation upper': 0.1737,
      'commonPunctuation punctuation': 0.4717,
      'commonPunctuation space': 0.3838,
      'commonPunctuation han': 0.3399,
      'commonPunctuation kana': 0.4189,
      'combining lower': 1.8651,
      'combining combining': 1.735,
      'han space': 1.0142,
      'han break': 1.1968,
      'han commonPunctuation': 1.0645,
      'han han': 0.7213,
      'han kana': 0.9116,
      'kana lower': 0.1139,
      'kana punctuation': 0.7623,
      'kana space': 1.411,
      'kana break': 0.4237,
      'kana commonOther': 0.3685,
      'kana kana': 0.3069,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol commonSymbol': 1.4238,
    },
    {
      letterPairs: {
        a: [2, 0.5006, 0, 0.1321, 0, 0.8271, 0, 0, 0, 0, 0.8569, 0, 0, 0, 0.0595, 0, 0, 0, 0, 0, 0, 0, 0.3028, 0.0604, 0, 2],
        b: [0.615, 0.1646, 2, 2, 0.0988, 2, 2, 2, 0, 0, 2, 0, 0, 1.7227, 0, 0.1382, 2, 0.1636, 0, 1.5047, 0, 0.6707, 2, 0, 0.8188, 2],
        c: [0, 2, 0.1646, 0, 0, 0, 1.017, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.0041, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.166, 0.3885, 2, 0.7773, 2, 0, 1.6271, 2, 0, 0, 0, 0, 1.8449, 0, 0.3761, 0, 0, 0.2952, 0, 0, 0, 1.6897, 0],
        e: [0, 0, 0, 0, 0.1663, 0, 0.8639, 0, 0, 0, 2, 0, 0, 0, 1.1309, 1.1977, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        f: [0.7655, 0, 0, 1.4347, 0, 0.0293, 0, 2, 0, 2, 0, 0, 0, 0, 0.0014, 0, 2, 0, 2, 0.2015, 0, 2, 0, 2, 0, 2],
        g: [0.8413, 0.7213, 2, 0, 0, 0, 1.7581, 0, 0.0923, 2, 2, 0.302, 0, 1.0078, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0],
        h: [0.0692, 2, 2, 0, 0, 0.3603, 0, 0.1643, 0.5425, 2, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0.0584, 0.4661, 2, 2, 0, 0, 2],
        i: [1.3709, 0, 0, 0.5248, 0, 0, 0, 0, 0.1644, 2, 2, 0.579, 0, 0, 0, 0, 1.7611, 0.1289, 0, 0, 2, 0.442, 0, 0, 2, 0],
        j: [0.952, 2, 2, 2, 0, 2, 1.3323, 2, 2, 0.4397, 0, 0, 2, 1.2126, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 0, 0, 0, 0, 0, 0, 2, 1.5043, 0.0965, 0.1644, 0, 1.8474, 2, 2, 1.8286, 0, 2, 0, 2, 0.2936, 0.9767, 0, 0, 0, 2],
        l: [0, 2, 0, 0.3395, 0, 0, 0, 2, 0.3018, 0, 1.9924, 0.4744, 0, 0, 0, 0.2281, 2, 2, 0, 0, 0, 0.6442, 0, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 0.7426, 2, 0.2009, 2, 0, 0, 0.1663, 0.8186, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.2818, 2],
        n: [0, 2, 0, 0, 0.5686, 0, 0, 0, 0, 2, 2, 1.5539, 0, 0.4396, 0, 1.8976, 0.2239, 0, 0, 0, 0.0488, 0, 0, 0, 0, 2],
        o: [0, 0, 0, 0, 0, 0, 0.45, 0, 0, 0, 0, 0.4647, 0, 0, 0.0269, 0, 0.2628, 0, 1.0158, 0.7263, 0, 0, 0.0627, 0, 0, 1.435],
        p: [0, 0, 0.5732, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0.4076, 0.4397, 0, 0, 0, 0.1393, 0.5067, 0, 0.6876, 0, 0, 2],
        q: [2, 2, 0, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4396, 0, 0, 0, 0.4476, 2, 2, 2, 2, 2],
        r: [0, 2, 0, 0.3673, 0, 0, 0.0087, 0.8376, 0, 0, 0, 0, 0, 0.8713, 0, 1.8151, 2, 0.1663, 0.3345, 0, 0, 1.557, 2, 1.271, 0, 2],
        s: [0, 2, 0, 2, 0, 0, 1.9032, 0.4307, 0, 2, 0.4003, 0, 0, 0.0182, 0, 0, 0, 0, 0.1644, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0.14, 0, 2, 0, 2, 0, 0.2603, 0, 2, 0, 0, 1.9512, 0, 0, 0, 2, 0.2914, 0, 0.4399, 0, 2, 0, 2, 0, 0],
        u: [0, 0, 0, 0, 0, 0, 1.0553, 0, 1.0388, 2, 2, 0, 0.0615, 0, 1.6722, 0, 2, 0, 0, 0, 0.4396, 2, 2, 0, 0, 0],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0.1947, 0.7101, 2, 2, 2, 0.1395, 2, 0, 0.1646, 2, 0, 0.1162, 2],
        w: [0, 0, 0, 0, 0, 1.2524, 0, 0, 0, 2, 2, 0, 0, 0, 0.7242, 0, 2, 1.2113, 0, 0, 2, 2, 0.4397, 2, 1.9613, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 2, 0.4939, 2, 2, 0, 0, 2, 0, 0, 2, 0.6111, 2, 0, 0, 2, 2, 0.0309, 0, 2],
        y: [2, 0, 2, 1.2452, 1.3849, 0, 2, 0, 1.7572, 0, 2, 0, 0, 2, 0, 1.2159, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.3333, 2, 0, 0, 2, 2, 0.5007, 0, 2, 2, 2, 2, 0.1582, 0, 2, 2, 2, 0.4393],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 1.3116, 0.7321, 0, 0.9437, 0.165, 0, 0.2828, 0.7607, 0, 0.4046, 0, 0.6632, 0.075, 0.0971, 0, 0, 0.3021, 0.4213, 1.2541],
      wordEnds: [0.8445, 2, 1.0291, 0.0997, 0, 0, 0.702, 0.9554, 2, 0.4235, 0.3195, 0, 0, 0.0959, 1.2195, 0.7208, 2, 0, 0.2775, 0, 0.6257, 2, 0, 0, 0, 2],
      uncommon: { han: 2, hangul: 0, latin: 0 },
      capitals: { latin: 2, greek: 0, cyrillic: 0.6216, armenian: 0.4213 },
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
      commonOther: [0.3, 0.1064],
      combining: [0.3, 0],
      latin: [1.405, 0.4989],
      greek: [1.1438, 0],
      cyrillic: [0.9686, 0.9448],
      armenian: [2.1873, 0.7468],
      hebrew: [1.583, 0.1154],
      arabic: [1.5, 2],
      devanagari: [1.2174, 2],
      bengali: [1.6725, 1.3209],
      gurmukhi: [2.2204, 0.377],
      gujarati: [2.245, 0],
      oriya: [3, 1.8979],
      tamil: [1.5507, 1.702],
      telugu: [2.1768, 0.3328],
      kannada: [2.2332, 0],
      malayalam: [1.8306, 2],
      sinhala: [2.1952, 0.8175],
      thai: [1.0133, 2],
      lao: [2.154, 2],
      tibetan: [2.2023, 1.159],
      myanmar: [2.6912, 0],
      khmer: [2.0159, 0],
      georgian: [2.2698, 0.3917],
      ethiopic: [3, 1.5096],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.5391, 0.5683],
      other: [3, 0.9602],
      highSurrogate: [2, 0.1716],
      lowSurrogate: [2, 0.1195],
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
      'upper lower': 0.5186,
      'upper punctuation': 0.8621,
      'upper space': 0.8572,
      'upper break': 2,
      'upper latin': 2,
      'upper combining': 1.5679,
      'upper kana': 2,
      'lower break': 2,
      'lower control': 1.5944,
      'lower latin': 2,
      'lower commonOther': 0.4259,
      'lower commonPunctuation': 1.3496,
      'lower combining': 0.0238,
      'lower han': 1.2386,
      'lower kana': 0.3495,
      'lower commonSymbol': 2,
      'digit upper': 1.9896,
      'digit lower': 1.182,
      'digit digit': 0.0023,
      'digit space': 0.8423,
      'digit break': 0.1413,
      'digit commonSymbol': 2,
      'punctuation upper': 0.1958,
      'punctuation lower': 0.1404,
      'punctuation digit': 0.9133,
      'punctuation punctuation': 0.5396,
      'punctuation space': 0.7686,
      'punctuation break': 0.3769,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.021,
      'punctuation kana': 2,
      'space upper': 0.0017,
      'space digit': 1.8865,
      'space punctuation': 0.335,
      'space space': 0.0157,
      'space break': 1.1831,
      'space tab': 1.1911,
      'space latin': 2,
      'space commonOther': 0.8924,
      'space commonPunctuation': 1.1561,
      'space han': 0.5634,
      'space kana': 0.256,
      'break upper': 2,
      'break digit': 0.8117,
      'break punctuation': 0.3948,
      'break space': 1.1575,
      'break tab': 1.688,
      'break commonOther': 0.55,
      'break commonPunctuation': 2,
      'break han': 0.1507,
      'break kana': 1.3161,
      'tab upper': 0.8032,
      'tab lower': 0.3918,
      'tab tab': 0.0023,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther upper': 1.0409,
      'commonOther lower': 1.0141,
      'commonOther punctuation': 1.3648,
      'commonOther space': 2,
      'commonOther commonOther': 0.6326,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 1.3522,
      'commonPunctuation upper': 0.062,
      'commonPunctuation punctuation': 0.9894,
      'commonPunctuation break': 0.5285,
      'commonPunctuation latin': 0.7942,
      'commonPunctuation han': 0.5346,
      'combining lower': 2,
      'combining digit': 0.7204,
      'combining break': 0.5724,
      'combining combining': 1.8019,
      'han punctuation': 0.5174,
      'han space': 1.2201,
      'han break': 1.1995,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana punctuation': 0.0118,
      'kana space': 1.2125,
      'kana commonOther': 1.2046,
      'kana han': 0.9703,
      'kana kana': 0.6425,
      'commonSymbol upper': 0.8964,
      'commonSymbol lower': 2,
    },
    {
      letterPairs: {
        a: [2, 0.1947, 0, 0.2354, 2, 1.632, 0, 2, 0, 2, 0.8612, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0122, 2, 0.159, 0, 2],
        b: [0.6324, 0.1646, 2, 2, 0.0982, 0, 0, 2, 0.1346, 0, 2, 0, 0, 2, 0, 0, 2, 0.2518, 0, 0.9633, 0.6212, 0.8939, 2, 2, 0, 2],
        c: [0, 0, 0.1672, 0, 0, 0, 1.653, 0, 0, 0, 0.0587, 0.48, 0.0044, 0, 0, 0, 0, 0.1183, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.1672, 0.5034, 2, 0.5142, 2, 0, 2, 2, 0, 0, 0, 0, 1.8322, 0, 0, 0, 0, 0.188, 0, 2, 0, 1.12, 2],
        e: [0, 0, 0, 0, 0.2155, 0, 1.9513, 1.0387, 0.3729, 0, 2, 0.0995, 0, 0, 0.5446, 1.5323, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
        f: [0.3185, 0, 0, 2, 0.6101, 0.0302, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 2, 0, 2, 0.3217, 0, 2, 0, 2, 0, 2],
        g: [1.4722, 0.7929, 2, 0, 0, 2, 0.6854, 0, 0.1439, 2, 2, 0.3799, 0, 0.7172, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        h: [0, 2, 0.4838, 0, 0, 0, 0, 0.4395, 0.9078, 0, 0, 0, 0, 0, 0.0707, 0, 2, 0, 2, 0.1608, 1.2757, 2, 2, 0, 0, 2],
        i: [2, 1.3477, 0, 0.2353, 0, 0.2074, 0, 0, 0.7645, 2, 2, 0.2381, 0, 0, 0, 0, 0, 0, 0.2274, 0, 2, 0.6204, 2, 0.0415, 2, 0],
        j: [2, 2, 2, 2, 0, 2, 2, 2, 2, 0.4411, 1.2989, 0, 2, 1.8825, 0, 0, 2, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0.4393, 0, 2, 1.4327, 2, 0, 0, 2, 0, 2, 0.0882, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4564, 0, 0, 1.1278, 1.0883, 0.0944, 0, 2, 0.6709, 0, 0, 0, 1.5066, 2, 1.4877, 0, 0, 0, 0.1766, 0.0662, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0, 2, 1.4489, 2, 0.4413, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0.2006, 0, 0.2521, 2],
        n: [0.3323, 2, 0, 0, 0.634, 0, 0, 0.0902, 0.2419, 2, 2, 1.3115, 0, 0.4396, 0, 2, 1.2183, 0, 0.2234, 0, 0.1841, 0, 0.8414, 2, 0, 1.8348],
        o: [0, 0, 0, 0.0397, 0, 0.13, 0.1746, 0, 0, 0, 0, 0.2589, 0, 0, 0.0269, 0, 0.4559, 0, 0.7374, 0.7877, 0, 0.27, 0, 0, 0, 0],
        p: [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.4358, 0.4398, 0, 0, 0.7835, 0, 0.078, 0.076, 0.8212, 0, 0, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4392, 0, 0, 0, 0.0114, 2, 2, 0.4504, 2, 2],
        r: [0, 1.6382, 0, 0.738, 0, 0.1663, 0, 2, 0, 2, 0, 0.023, 0, 0.3825, 0, 0.0502, 0, 0.4413, 0.1461, 0, 1.1519, 1.3032, 2, 2, 0, 2],
        s: [0, 2, 0.2922, 2, 0, 0, 0, 0.2822, 0, 2, 0.6791, 0, 0, 2, 0, 0, 0, 0, 0.4395, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 0.5984, 0, 0, 0, 2, 0.4488, 0, 0.4396, 0, 2, 0, 2, 0, 2],
        u: [0, 0, 0, 0, 0, 0, 0, 2, 1.5067, 0, 2, 0, 0, 0, 0.4332, 0, 2, 0, 0, 0, 0.7887, 2, 2, 0, 0, 2],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0, 1.7597, 2, 2, 2, 0, 2, 0, 0.4397, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.1297, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0, 2, 2, 2, 1.0725, 2, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.03, 0, 2],
        y: [2, 0, 2, 2, 2, 0.5048, 1.1187, 0, 2, 2, 2, 0, 0, 1.7785, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1644, 0],
        z: [0, 2, 2, 2, 0, 2, 0, 0, 1.5922, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0, 0, 2, 2, 2, 0, 1.4315, 0.4392],
      },
      wordStarts: [0, 0.1346, 0, 0, 0, 0, 0, 0.573, 0.3513, 0, 1.2816, 0.6957, 0, 0.4016, 0.5067, 0, 2, 0, 0.7693, 0.2602, 0.4956, 0, 0, 0.0288, 0.6745, 2],
      wordEnds: [1.1578, 2, 0, 0, 0, 0, 0.342, 0.5471, 2, 0.0579, 0.3909, 0, 0, 0.3502, 1.1262, 0.4671, 2, 0, 0.2591, 0, 0.2844, 2, 0, 0, 0, 0],
      uncommon: { han: 2, hangul: 0, latin: 0 },
      capitals: { latin: 0.6089, greek: 0.8598, cyrillic: 0.2031, armenian: 0 },
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
      latin: [1.167, 1.7486],
      greek: [1.1431, 0],
      cyrillic: [0.9804, 0.9448],
      armenian: [2.192, 0.7064],
      hebrew: [1.5831, 0.1147],
      arabic: [1.5056, 2],
      devanagari: [1.2268, 2],
      bengali: [1.684, 1.2469],
      gurmukhi: [2.2082, 0.4504],
      gujarati: [2.245, 0],
      oriya: [3, 1.8979],
      tamil: [1.5507, 1.702],
      telugu: [2.1768, 0.3328],
      kannada: [2.2332, 0],
      malayalam: [1.8303, 2],
      sinhala: [2.1922, 0.8352],
      thai: [1.0171, 2],
      lao: [2.154, 2],
      tibetan: [2.1937, 1.2402],
      myanmar: [2.6911, 0],
      khmer: [1.9904, 0.2057],
      georgian: [2.283, 0.3508],
      ethiopic: [3, 1.5096],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.5391, 0.5683],
      other: [3, 1.1864],
      highSurrogate: [2, 0.1601],
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
      'upper lower': 0.5129,
      'upper punctuation': 0.6305,
      'upper space': 0.7595,
      'upper break': 2,
      'upper latin': 2,
      'upper combining': 1.5628,
      'upper kana': 2,
      'lower break': 2,
      'lower control': 1.5658,
      'lower latin': 2,
      'lower commonPunctuation': 1.3702,
      'lower combining': 0.0049,
      'lower han': 1.2743,
      'lower kana': 0.3927,
      'lower commonSymbol': 2,
      'digit upper': 1.9908,
      'digit lower': 1.198,
      'digit digit': 0.0023,
      'digit space': 0.6474,
      'digit break': 0.3847,
      'digit commonSymbol': 2,
      'punctuation upper': 0.2712,
      'punctuation lower': 0.167,
      'punctuation digit': 0.9133,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.7894,
      'punctuation break': 0.2825,
      'punctuation commonOther': 2,
      'punctuation commonPunctuation': 0.2736,
      'punctuation kana': 2,
      'space upper': 0.0301,
      'space digit': 1.8705,
      'space punctuation': 0.371,
      'space space': 0.0013,
      'space break': 1.0721,
      'space tab': 0.6135,
      'space latin': 2,
      'space commonOther': 0.7703,
      'space commonPunctuation': 1.3176,
      'space han': 0.69,
      'space kana': 0.4559,
      'break upper': 2,
      'break digit': 0.7258,
      'break punctuation': 0.5107,
      'break space': 1.081,
      'break break': 0.0072,
      'break tab': 1.8788,
      'break commonOther': 0.6169,
      'break commonPunctuation': 1.7654,
      'break han': 0.4202,
      'break kana': 1.1659,
      'tab upper': 0.7268,
      'tab lower': 0.4852,
      'tab tab': 0.0024,
      'tab latin': 1.6375,
      'latin upper': 2,
      'latin lower': 2,
      'latin punctuation': 2,
      'latin space': 2,
      'latin break': 2,
      'latin commonOther': 2,
      'commonOther upper': 1.5134,
      'commonOther lower': 1.8269,
      'commonOther punctuation': 1.3683,
      'commonOther space': 1.9297,
      'commonOther commonOther': 0.2073,
      'commonOther commonPunctuation': 2,
      'commonOther kana': 0.4989,
      'commonPunctuation upper': 0.0734,
      'commonPunctuation punctuation': 1.2542,
      'commonPunctuation break': 0.2632,
      'commonPunctuation latin': 0.7386,
      'commonPunctuation commonOther': 1.1111,
      'commonPunctuation han': 0.5346,
      'commonPunctuation kana': 0.0313,
      'combining lower': 2,
      'combining digit': 0.7304,
      'combining break': 0.5764,
      'combining combining': 1.8045,
      'han punctuation': 0.4103,
      'han space': 1.0912,
      'han break': 1.101,
      'han commonPunctuation': 1.1535,
      'han han': 1.43,
      'kana space': 1.2422,
      'kana commonOther': 1.6351,
      'kana han': 1.1305,
      'kana kana': 0.5872,
      'commonSymbol upper': 2,
      'commonSymbol lower': 2,
      'commonSymbol kana': 0.2655,
    },
    {
      letterPairs: {
        a: [2, 0.0083, 0, 0.181, 2, 1.6413, 0, 2, 0, 2, 0.6548, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0081, 1.4899, 0.0572, 0.0157, 2],
        b: [0.4619, 0.1646, 2, 2, 0.027, 0, 1.5683, 2, 0.6425, 0, 2, 0, 0, 1.5965, 0, 0, 2, 0.8802, 0, 1.1747, 0, 0, 2, 2, 0, 2],
        c: [0, 2, 0.1667, 0, 0, 0, 2, 0, 0, 0.0386, 0.1786, 0.9556, 0, 0, 0, 0, 0, 0.0833, 0, 0, 0, 0, 0, 0, 0, 0],
        d: [0, 0, 0, 0.2205, 0.3973, 2, 1.2469, 2, 0, 2, 2, 0, 0.6754, 0, 0, 0, 0, 0, 0, 0, 0.1629, 0.5985, 1.8951, 0, 1.0904, 0],
        e: [0, 0, 0, 0, 0.1668, 0, 2, 1.3898, 0.2896, 0, 2, 0.1906, 0, 0, 1.3532, 1.6133, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.5412],
        f: [0.0942, 0, 0, 2, 0.2142, 0.0298, 0, 2, 0, 1.5399, 0, 0, 0, 2, 0, 0, 2, 0, 2, 0, 0, 2, 0, 2, 0, 2],
        g: [1.4436, 0.9433, 1.8673, 0, 0, 0.7091, 0.4929, 0, 0, 2, 2, 0.7041, 0, 0.5711, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0],
        h: [0, 2, 0.0598, 0, 0, 0, 0, 0.4394, 0.6448, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0.3101, 0.472, 2, 2, 0, 0, 2],
        i: [2, 1.0969, 0, 0.1017, 0, 0.587, 0, 1.1729, 0.8641, 2, 2, 0.2277, 0, 0, 0, 0, 0, 0.1725, 0.2175, 0, 2, 0.519, 2, 0.3121, 2, 0],
        j: [2, 2, 2, 2, 0.444, 2, 2, 2, 2, 0.4409, 2, 0, 2, 0.9232, 0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2],
        k: [2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0.4392, 0, 2, 2, 2, 0, 0, 2, 0, 2, 0.2078, 2, 0, 0, 0, 2],
        l: [0, 2, 0, 0.4323, 0, 0, 1.145, 1.6688, 0.1459, 0, 2, 0.4775, 0, 0, 0, 0.8216, 2, 1.293, 0, 0, 0, 0.1563, 0, 2, 0, 0],
        m: [0, 0, 0, 2, 0, 0, 2, 2, 0, 2, 1.763, 0, 0.4409, 0.0653, 0, 0, 2, 2, 0, 0, 0, 0, 0.0058, 0, 0.315, 2],
        n: [0, 2, 0, 0, 0.6613, 0, 0, 0, 0.3452, 2, 2, 1.1619, 0, 0.4533, 0, 1.8911, 1.1198, 0, 0.1489, 0, 0.5596, 0, 2, 2, 0, 0],
        o: [0, 0, 0, 0.035, 0, 0.0981, 0.1258, 0, 0, 0, 0, 0.1318, 0, 0, 0.0269, 0, 0, 0, 0.776, 0.9978, 0, 0.3791, 0, 0, 0, 2],
        p: [0, 0, 1.9074, 0, 0, 0, 0, 0, 0, 0, 1.1185, 0, 0, 0, 0.3441, 0.4397, 0, 0, 0.2238, 0, 0.0896, 0.5312, 0.4932, 0, 0, 2],
        q: [0, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2, 2, 2, 2, 0.4392, 0, 0, 0, 0.1442, 2, 2, 0, 2, 2],
        r: [0, 1.0933, 0, 0.7124, 0, 0, 0, 2, 0, 2, 0, 0.5017, 0, 0.5514, 0, 0, 0, 0.4409, 0, 0, 1.1307, 0.9759, 2, 0, 0, 2],
        s: [0, 2, 0.3067, 2, 0, 0, 0.5956, 0.1465, 0, 1.3593, 0.5698, 0, 0, 2, 0, 0, 0, 0, 0.4395, 0, 0, 0, 0, 0, 0, 0],
        t: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 0, 0, 0.7943, 0, 0, 0, 2, 0.8513, 0, 0.4396, 0, 2, 0, 2, 0, 1.9271],
        u: [0, 0, 0.1967, 0, 0, 0, 0.3111, 2, 1.8548, 0, 2, 0, 0, 0, 1.1663, 0, 2, 0, 0, 0, 0.7895, 2, 2, 0, 0, 1.7866],
        v: [0, 0, 0, 2, 0, 2, 0, 0, 0, 2, 2, 2, 2, 0, 1.1536, 2, 2, 2, 0, 2, 0, 0.4397, 2, 0, 0, 2],
        w: [0, 0, 0, 0, 0.2692, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2, 2, 0.4397, 2, 2, 2],
        x: [0, 2, 0, 2, 0.0999, 2, 2, 2, 1.0471, 0.2403, 2, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0.0325, 0, 2],
        y: [2, 0, 2, 2, 2, 0, 2, 0, 1.7764, 2, 2, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0.1645, 0],
        z: [0, 0, 2, 2, 0, 2, 0, 0, 1.2545, 2, 0, 0, 2, 0, 0, 0, 2, 2, 0.1066, 0, 0.884, 2, 2, 0, 2, 0.4392],
      },
      wordStarts: [0, 0, 0, 0, 0, 0, 0, 0.9694, 0.4215, 0, 1.9194, 0.6721, 0, 0.199, 0.4485, 0, 2, 0, 0.6539, 0.2695, 0.2197, 0, 0, 0.142, 0.4826, 1.8506],
      wordEnds: [1.2713, 1.9725, 0.0446, 0, 0, 0, 0.2749, 0.5234, 2, 0, 0.3276, 0, 0, 0.4448, 1.1961, 0.3881, 2, 0, 0.3082, 0, 0.592, 2, 0, 0, 0, 0],
      uncommon: { han: 2, hangul: 0, latin: 0 },
      capitals: { latin: 0, greek: 0.8604, cyrillic: 0.1914, armenian: 0 },
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
