import { CHARACTER_CLASSES, CLASS_BITS, PAIR_TABLE_SIZE, startsRun, weighText, type CharacterClass } from './character-classes.js';
import type { CanonicalMessage, MediaPart } from './messages.js';
import { jsonText, messageText } from './message-text.js';
import type { TokenEstimator, TokenizerFamily, ToolSchema } from './token-estimator.js';

/** Tokens per character of a class, and per run of it (a run starts where the class changes; see `startsRun`). */
export interface ClassWeights {
  readonly character: number;
  readonly run: number;
}

/** What the conservative estimator charges: per class, plus extra weights of some class pairs. */
export interface EstimatorProfile {
  readonly classes: Readonly<Record<Exclude<CharacterClass, 'start'>, ClassWeights>>;
  /**
   * Extra tokens per character of `current` after `previous`, keyed `"previous current"`
   * (fitted among ASCII, Latin, Common, Han and kana classes): all capitals,
   * capitalised words and digits inside words cost more.
   */
  readonly pairs: Readonly<Record<string, number>>;
}

/** Per class `[character, run]`, and extra weights of `"previous current"` pairs. */
function profile(classes: Record<Exclude<CharacterClass, 'start'>, readonly [number, number]>, pairs: Record<string, number>): EstimatorProfile {
  const weights = Object.fromEntries(Object.entries(classes).map(([name, [character, run]]) => [name, Object.freeze({ character, run })]));
  return Object.freeze({ classes: Object.freeze(weights) as EstimatorProfile['classes'], pairs: Object.freeze({ ...pairs }) });
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
 * the larger of the o200k and cl100k counts of each text. (The larger weight
 * of the two profiles, class by class, was the rule before; with pair weights
 * it adds the two fits' different ways of pricing a word: 19 tokens for
 * "measure sample 3 twice and compare", against 15 and 16, exact 7.)
 *
 * One relaxation, a choice: a 200+ character item of ICU text that is mostly
 * Latin letters (lists of rare proper names in Uzbek, Ewe, Akan, Toki Pona:
 * about 3 characters per token) is held to 0.8 of its exact count, not 1.0
 * (its conversation still to 1.01). Character classes cannot tell those names
 * from English words; holding them to 1.0 costs English prose a 64-76% median
 * over-count instead of 34-48%.
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
      lower: [0.2003, 0.0492],
      digit: [0.3334, 0],
      punctuation: [0.12, 0],
      space: [0.008, 0],
      break: [0.06, 0],
      commonPunctuation: [0.3, 0],
      commonSymbol: [0.5263, 0],
      commonOther: [0.5883, 0],
      combining: [0.3, 0],
      latin: [0.3, 1.02],
      greek: [0.9501, 0],
      cyrillic: [1.01, 0.2987],
      armenian: [0.9653, 0.3651],
      hebrew: [0.5215, 1.0725],
      arabic: [0.5684, 2],
      devanagari: [0.4144, 1.4191],
      bengali: [0.6878, 0.5647],
      gurmukhi: [0.8671, 0.3332],
      gujarati: [0.5696, 1.3381],
      oriya: [1.1464, 0.6485],
      tamil: [0.642, 0.9577],
      telugu: [0.4708, 2],
      kannada: [0.4898, 2],
      malayalam: [0.571, 1.3462],
      sinhala: [0.8517, 0],
      thai: [0.4862, 2],
      lao: [2.0201, 0.4213],
      tibetan: [1.4751, 1.8871],
      myanmar: [1.4083, 0],
      khmer: [0.9349, 0],
      georgian: [2.9274, 1.5363],
      ethiopic: [2.0522, 0.7895],
      han: [0.3, 0],
      kana: [0.3, 0.1829],
      hangul: [1.2659, 0],
      other: [3, 1.4967],
      highSurrogate: [2, 0.299],
      lowSurrogate: [2, 0],
    },
    {
      'start upper': 0.3941,
      'start lower': 2,
      'start digit': 2,
      'start punctuation': 0.3768,
      'start space': 2,
      'start latin': 2,
      'start han': 1.3809,
      'upper upper': 0.5745,
      'upper lower': 0.8057,
      'upper space': 0.0347,
      'upper break': 0.0115,
      'upper latin': 0.9488,
      'upper combining': 2,
      'lower upper': 1.001,
      'lower lower': 0.1122,
      'lower digit': 2,
      'lower punctuation': 0.3468,
      'lower break': 1.2904,
      'lower latin': 0.4505,
      'lower commonOther': 2,
      'lower commonPunctuation': 0.6269,
      'lower combining': 2,
      'digit upper': 1.3795,
      'digit lower': 1.9062,
      'digit digit': 0.0021,
      'digit space': 1.8277,
      'digit break': 2,
      'digit commonPunctuation': 0.9237,
      'digit commonSymbol': 2,
      'punctuation digit': 1.1108,
      'punctuation punctuation': 0.5462,
      'punctuation space': 0.3004,
      'punctuation latin': 2,
      'punctuation han': 0.788,
      'punctuation kana': 0.1701,
      'space digit': 1.8521,
      'space punctuation': 0.1951,
      'space space': 0.001,
      'space break': 0.2247,
      'space commonOther': 2,
      'space combining': 2,
      'space han': 1.1685,
      'space commonSymbol': 2,
      'break upper': 0.9313,
      'break punctuation': 2,
      'break space': 2,
      'break break': 0.0069,
      'break han': 1.7739,
      'latin upper': 2,
      'latin lower': 1.8847,
      'latin space': 0.4152,
      'latin latin': 0.7085,
      'latin combining': 1.2172,
      'commonOther lower': 2,
      'commonOther commonOther': 2,
      'commonOther commonPunctuation': 2,
      'commonPunctuation upper': 1.9394,
      'commonPunctuation digit': 0.1902,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 1.4808,
      'commonPunctuation kana': 1.0029,
      'combining upper': 2,
      'combining lower': 2,
      'combining digit': 0.366,
      'han punctuation': 1.1547,
      'han space': 1.4244,
      'han break': 2,
      'han commonPunctuation': 0.5212,
      'han han': 0.7384,
      'han kana': 0.6676,
      'kana punctuation': 2,
      'kana space': 0.4314,
      'kana commonPunctuation': 0.4168,
      'kana han': 0.485,
      'kana kana': 0.6004,
      'commonSymbol punctuation': 2,
      'commonSymbol space': 2,
      'commonSymbol kana': 2,
      'commonSymbol commonSymbol': 1.7821,
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
      commonSymbol: [2.7156, 2],
      commonOther: [2.049, 0],
      combining: [0.3, 0],
      latin: [1.0101, 0.205],
      greek: [2.0083, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.0615, 1.0074],
      hebrew: [1.4052, 0],
      arabic: [1.5664, 2],
      devanagari: [1.2018, 2],
      bengali: [1.4528, 1.2548],
      gurmukhi: [2.1163, 0],
      gujarati: [2.0989, 0],
      oriya: [3, 0.3885],
      tamil: [1.4704, 1.3559],
      telugu: [1.9887, 0.6287],
      kannada: [2.0811, 0],
      malayalam: [1.7584, 2],
      sinhala: [2.152, 0.5629],
      thai: [0.9904, 2],
      lao: [2.0652, 2],
      tibetan: [2.1335, 0.8398],
      myanmar: [2.5638, 0],
      khmer: [1.8902, 0],
      georgian: [2.9194, 0.6616],
      ethiopic: [3, 0.563],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.6816, 0],
      other: [3, 0.83],
      highSurrogate: [2, 0.1841],
      lowSurrogate: [2, 0.1154],
    },
    {
      'start lower': 2,
      'start digit': 1.2739,
      'start space': 2,
      'start han': 1.3967,
      'upper upper': 0.5881,
      'upper lower': 0.8252,
      'upper digit': 0.1342,
      'upper latin': 0.5373,
      'upper combining': 2,
      'lower upper': 0.4942,
      'lower lower': 0.2585,
      'lower digit': 2,
      'lower punctuation': 0.42,
      'lower break': 1.8753,
      'lower latin': 2,
      'lower commonOther': 2,
      'lower commonPunctuation': 1.4904,
      'lower combining': 2,
      'lower han': 0.176,
      'digit upper': 1.1556,
      'digit digit': 0.0025,
      'digit space': 2,
      'digit break': 2,
      'digit commonSymbol': 2,
      'punctuation digit': 1.4541,
      'punctuation punctuation': 0.5396,
      'punctuation space': 0.2962,
      'punctuation break': 0.0072,
      'punctuation latin': 2,
      'punctuation han': 0.7396,
      'space upper': 0.118,
      'space lower': 0.0364,
      'space digit': 1.9824,
      'space space': 0.0013,
      'space break': 0.4598,
      'space commonOther': 2,
      'space combining': 2,
      'space han': 2,
      'break upper': 0.3751,
      'break punctuation': 2,
      'break space': 2,
      'break break': 0.0041,
      'break han': 1.6072,
      'latin upper': 2,
      'latin lower': 1.3114,
      'latin punctuation': 2,
      'latin commonPunctuation': 2,
      'latin combining': 1.1988,
      'commonOther lower': 2,
      'commonOther commonOther': 2,
      'commonOther commonPunctuation': 2,
      'commonPunctuation punctuation': 0.7629,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 0.7133,
      'commonPunctuation kana': 1.3833,
      'combining upper': 2,
      'combining lower': 0.9332,
      'combining digit': 1.2315,
      'combining punctuation': 0.7763,
      'combining combining': 1.3085,
      'han punctuation': 0.7536,
      'han space': 2,
      'han break': 2,
      'han commonPunctuation': 1.2265,
      'han han': 1.4399,
      'han kana': 1.998,
      'kana space': 2,
      'kana han': 1.7334,
      'kana kana': 0.6058,
      'commonSymbol upper': 1.0002,
      'commonSymbol punctuation': 2,
      'commonSymbol space': 0.413,
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
      commonSymbol: [2.7156, 2],
      commonOther: [2.1326, 0],
      combining: [0.3, 0],
      latin: [1.0101, 0.142],
      greek: [2.0085, 0],
      cyrillic: [1.1717, 0.9448],
      armenian: [2.0633, 1.0069],
      hebrew: [1.4066, 0],
      arabic: [1.5601, 2],
      devanagari: [1.2024, 2],
      bengali: [1.5996, 0.6287],
      gurmukhi: [2.1606, 0],
      gujarati: [2.1353, 0],
      oriya: [3, 0.4029],
      tamil: [1.4515, 1.7534],
      telugu: [2.0848, 0.1708],
      kannada: [2.1161, 0],
      malayalam: [1.7602, 2],
      sinhala: [2.1459, 0.6166],
      thai: [1.0395, 2],
      lao: [2.0671, 2],
      tibetan: [2.1339, 0.8368],
      myanmar: [2.5638, 0],
      khmer: [1.8899, 0],
      georgian: [2.9316, 1.5029],
      ethiopic: [3, 0.8079],
      han: [0.3, 0],
      kana: [0.3, 0],
      hangul: [1.7444, 0],
      other: [3, 1.5142],
      highSurrogate: [2, 0.1865],
      lowSurrogate: [2, 0.1146],
    },
    {
      'start upper': 0.1263,
      'start lower': 2,
      'start digit': 1.1992,
      'start space': 2,
      'start han': 1.7493,
      'upper upper': 0.5709,
      'upper lower': 0.7468,
      'upper digit': 0.1041,
      'upper punctuation': 0.057,
      'upper latin': 0.4862,
      'upper combining': 2,
      'lower upper': 0.545,
      'lower lower': 0.2659,
      'lower digit': 2,
      'lower punctuation': 0.4313,
      'lower break': 2,
      'lower latin': 2,
      'lower commonOther': 2,
      'lower commonPunctuation': 2,
      'lower combining': 2,
      'lower han': 0.4279,
      'lower kana': 0.1755,
      'digit upper': 1.0297,
      'digit lower': 0.1874,
      'digit digit': 0.0027,
      'digit space': 1.5389,
      'digit break': 2,
      'digit commonSymbol': 2,
      'punctuation digit': 1.8166,
      'punctuation punctuation': 0.5466,
      'punctuation space': 0.2809,
      'punctuation latin': 2,
      'punctuation han': 1.0259,
      'space upper': 0.1709,
      'space digit': 2,
      'space space': 0.0014,
      'space break': 0.5712,
      'space commonOther': 2,
      'space combining': 2,
      'space han': 1.9155,
      'break upper': 0.5478,
      'break punctuation': 1.6481,
      'break space': 2,
      'break break': 0.0063,
      'break han': 1.9105,
      'latin upper': 2,
      'latin lower': 1.2903,
      'latin punctuation': 2,
      'latin commonPunctuation': 2,
      'latin combining': 1.2572,
      'commonOther lower': 2,
      'commonOther commonOther': 2,
      'commonOther commonPunctuation': 2,
      'commonPunctuation upper': 0.0897,
      'commonPunctuation lower': 0.2122,
      'commonPunctuation punctuation': 0.8859,
      'commonPunctuation latin': 2,
      'commonPunctuation han': 1.0008,
      'commonPunctuation kana': 1.6872,
      'combining upper': 2,
      'combining lower': 0.9332,
      'combining digit': 1.2341,
      'combining punctuation': 0.7709,
      'combining combining': 1.3085,
      'combining han': 1.5399,
      'han punctuation': 0.3933,
      'han space': 2,
      'han break': 2,
      'han commonPunctuation': 0.9213,
      'han han': 1.4385,
      'han kana': 2,
      'kana space': 2,
      'kana han': 1.7526,
      'kana kana': 0.5943,
      'commonSymbol punctuation': 2,
      'commonSymbol space': 0.6414,
    },
    ),
});

/** The weight of every (previous, current) class pair: what `weighText` sums. */
export function pairWeightsOf(profile: EstimatorProfile): Float64Array {
  const table = new Float64Array(PAIR_TABLE_SIZE);
  for (const [previousNumber, previous] of CHARACTER_CLASSES.entries()) {
    for (const [currentNumber, current] of CHARACTER_CLASSES.entries()) {
      if (current === 'start') continue;
      const weights = profile.classes[current];
      let weight = weights.character + (startsRun(previous, current) ? weights.run : 0);
      weight += profile.pairs[`${previous} ${current}`] ?? 0;
      table[(previousNumber << CLASS_BITS) | currentNumber] = weight;
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
