import { CHARACTER_KINDS, HINDI_LETTERS, KIND_COUNT, PAIR_TABLE_SIZE, RUSSIAN_LETTERS, SMALL_LETTERS, UNCOMMON_KINDS, classOfKind, isHindiLetter, isRussianLetter, isSmallLetter, pairTableOf, startsRun, weighText, type CharacterClass, type PairTable, type SmallLetter, type UncommonKind } from './character-classes.js';
import { BoundedCache } from './bounded-cache.js';
import { ConfigurationError } from './errors/configuration-error.js';
import type { CanonicalMessage, MediaPart } from './messages.js';
import { jsonText, messageText } from './message-text.js';
import { FITTED_PROFILES } from './estimator-profiles.generated.js';
import type { ClassWeights, EstimatorProfile, FittedProfile, KindWeights } from './estimator-profile.js';
import { TOKENIZER_FAMILIES, type TokenEstimator, type TokenizerFamily, type ToolSchema } from './token-estimator.js';

/** A fitted profile, frozen, with its class weights named. */
function profile(fitted: FittedProfile): EstimatorProfile {
  const weights = Object.fromEntries(Object.entries(fitted.classes).map(([name, [character, run]]) => [name, Object.freeze({ character, run })]));
  const letterPairs = Object.fromEntries(Object.entries(fitted.letterPairs).map(([letter, row]) => [letter, Object.freeze([...row])]));
  const russianLetterPairs = Object.fromEntries(Object.entries(fitted.russianLetterPairs).map(([letter, row]) => [letter, Object.freeze([...row])]));
  const hindiLetterPairs = Object.fromEntries(Object.entries(fitted.hindiLetterPairs).map(([letter, row]) => [letter, Object.freeze([...row])]));
  return Object.freeze({
    classes: Object.freeze(weights) as EstimatorProfile['classes'],
    pairs: Object.freeze({ ...fitted.pairs }),
    letterPairs: Object.freeze(letterPairs) as KindWeights['letterPairs'],
    wordStarts: Object.freeze([...fitted.wordStarts]),
    wordEnds: Object.freeze([...fitted.wordEnds]),
    russianLetterPairs: Object.freeze(russianLetterPairs) as KindWeights['russianLetterPairs'],
    russianWordStarts: Object.freeze([...fitted.russianWordStarts]),
    russianWordEnds: Object.freeze([...fitted.russianWordEnds]),
    hindiLetterPairs: Object.freeze(hindiLetterPairs) as KindWeights['hindiLetterPairs'],
    hindiWordStarts: Object.freeze([...fitted.hindiWordStarts]),
    hindiWordEnds: Object.freeze([...fitted.hindiWordEnds]),
    uncommon: Object.freeze({ ...fitted.uncommon }),
    capitals: Object.freeze({ ...fitted.capitals }),
    repeats: Object.freeze({ ...fitted.repeats }),
    utf8Cap: Object.freeze({ ...fitted.utf8Cap }),
  });
}

/**
 * Per-family profiles, fitted as a linear program (HiGHS, by
 * `packages/context/estimator-fit/`), rounded up to four decimals and
 * generated into `estimator-profiles.generated.ts`. Each family is fitted
 * to its real tokenizer (development dependencies of the fit and the tests
 * only: gpt-tokenizer for OpenAI's encodings, the tokenizer.json files of
 * Qwen 3, DeepSeek V3, Llama 3.1, Llama 2 and Gemma 3); `claude` to 1.2
 * times the tokenizer Anthropic published before Claude 3 (current Claude
 * tokenizers are not public: a margin, to be corrected by usage feedback);
 * `unknown` to the largest count of any of them, so it bounds every family.
 * Constraints: no text of 200+ characters and no whole conversation
 * under-counted on the shared real histories (alpaca zh/en, glaive zh/en,
 * tau-bench, SWE-agent, reason-tool-use) and on the generated corpora of
 * `@strata/testing`'s estimator corpus (ICU text in every locale, every script mixed with
 * Japanese, Chinese, English and Russian, all capitals, base64 and hex,
 * minified code, dense JSON of tool calls, emoji sequences, long runs of
 * every small letter, random letter strings, terminal output with ANSI
 * escapes, tabs and CRLF, decomposed and half-width text, encoding tables
 * of every script, LaTeX, SQL, CSV, logs, stack traces, hex dumps), on
 * prose written for the corpus in Russian, Arabic, Hindi, Korean, Japanese
 * and Thai (two paragraphs of three: the third is held out) and on the
 * machine's gettext catalogs (program messages translated into about 200
 * languages, read from /usr/share/locale); conversations of the generated
 * corpora with 1% to spare. Fitted on half of the conversations, the other
 * half has 0.25% of its gettext items under-counted (worst 0.89 of the
 * count): text unlike any corpus can still be, by a little. Objective: the
 * mean over-count per conversation of each shared corpus and each prose
 * corpus, the Chinese ones weighted up, and with a small weight that of
 * every other corpus.
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
 * the scripts beyond Latin, Cyrillic and Han (Greek, kana and Hangul
 * among them) is held to 1.05 times its count: one weight per character
 * of such a script is fitted on the little ICU and gettext text there is
 * of it, and natural prose ran 5% above it (Lao on cl100k). cl100k's margin
 * is 1.08 (with 1.05, the Lao paragraph of the estimator's test ran to
 * 0.996 of its count) and unknown's 1.1, for kana and Hangul too (the
 * largest of nine counts varies more: a held-out Korean paragraph and the
 * test's polytonic Greek ran to 0.99 of it with 1.05). Han characters
 * outside GB 2312 level 1, Hangul syllables outside KS X 1001, Cyrillic
 * beyond the Russian alphabet and Arabic beyond its basic letters carry an
 * extra weight (`uncommon`), and so do capital letters of Latin beyond
 * ASCII, Greek, Cyrillic and Armenian (`capitals`): without it, one weight
 * per Cyrillic letter had to price Russian in capitals, and charged
 * Russian prose four times its o200k count.
 *
 * Han and Hangul are priced by frequency class (`frequentHan`,
 * `frequentHangul`: the characters that merge into words in the open
 * vocabularies), and a character repeating the one before it carries a
 * weight of its own (`repeats`). Before both, one weight per Han character
 * had to cover Chinese names, program messages and `中` written 4,000
 * times over, and the median over-count of alpaca zh was 55% (qwen), 66%
 * (deepseek) and 48% (gemma); it is now at most 30% for every family (see
 * the estimator's test for each corpus). Small Russian letters are priced
 * by letter pair, word start and word end as small ASCII letters are, and
 * text that is more than 30% Cyrillic is held to 1.1 times its count (the
 * letter weights fit their text closely; held-out Russian paragraphs ran
 * to 0.95 of their count without the margin): that took the median
 * over-count of Russian prose from 98-169% to 8-26%.
 * Hindi letters (`HINDI_LETTERS`: consonants, vowel signs, virama, anusvara,
 * candrabindu, nukta) are priced the same way, by letter pair, word start and
 * word end, and text that is more than 30% Devanagari is held to 1.1 times
 * its count: with one weight per Devanagari character, which must also price
 * the names and program messages of Marathi, Nepali, Konkani, Maithili and
 * Bodo (ICU, gettext; 1.3-1.6 times Hindi prose's cost per character), the
 * median over-count of Hindi prose was 55% (o200k) and 62% (gemma); it is
 * now 11% for both (o200k and gemma refitted with the Hindi letters; the
 * other families keep their fit, whose Hindi weights are 0, and were at most
 * 28% already). o200k and llama3 are refitted with translated sentences of
 * the machine's catalogs in the six languages of issue 22: on prose no fit
 * sees (estimator-fit/held-out-prose.mjs, probe.mjs), o200k's medians went
 * Russian 36.1% -> 17.5%, Korean 14.3% -> 21.4%, Hindi 24.8% -> 26.6%, and its
 * two under-counted Japanese paragraphs (0.937, 0.986) are covered; llama3's
 * one (0.972) too. cl100k, gemma and llama2 are refitted likewise, with
 * margins of their own (estimator-fit/fit-profile.py): no profile
 * under-counts a paragraph of the probe (llama2's last two, 0.994 and 0.965,
 * were Japanese with kanji outside its vocabulary, 3 byte tokens each).
 * Text that is more than 30% Han is held to a margin of its own where the
 * Chinese medians leave room for it (llama3 and gemma 1.15): fitted on half
 * of the conversations without it, 12 of 500 unseen alpaca zh conversations
 * were under-counted for each (worst items 0.955 and 0.924); with it none
 * are, and their alpaca zh medians are 33% and 40% (estimator-fit/fit-profile.py).
 *
 * Floors per character keep unseen text over-counted: 1/3 per digit where
 * the tokenizer splits digits in threes (OpenAI's, DeepSeek, Llama 3), 1
 * where it splits them one by one (Qwen, Gemma, Llama 2, and so `unknown`), 0.11 per ASCII letter, 0.3 per character
 * of any other script. Scripts without a class (`other`) and surrogate halves
 * are charged their UTF-8 bytes per character (times `utf8Cap.perByte`), the
 * most a byte-level BPE emits, and ASCII controls (`control`: ESC, NUL, ...) one token each; only
 * their run weights are fitted (a space beside them is a token of its own).
 * So are Common characters beyond ASCII (symbols, punctuation, fractions)
 * except the few every reference tokenizer holds as one token
 * (`common-characters.generated.ts`), and characters whose NFC or NFKC form
 * has more bytes than they do (`expanding`, `expandingFar`): those cost a
 * tokenizer that normalises first (Qwen: NFC; the public Claude tokenizer:
 * NFKC) the bytes of the normal form, up to 33 for U+FDFA, and their bytes
 * in the UTF-8 cap are the normal form's. Every character kind is also
 * fitted alone in runs (dump-items.mjs, `KIND_RUNS`), so no character, however
 * rare, costs more alone than it is charged. The 16 common Han characters some
 * tokenizer splits into more tokens than 99% of their class (a run of 鞠: 600
 * o200k tokens, charged 405 as `han`) are priced as uncommon Han
 * (`split-han.generated.ts`; moved after this fit, which only raises their
 * price: the tests hold every profile on runs of every character).
 */
export const ESTIMATOR_PROFILES: Readonly<Record<TokenizerFamily, EstimatorProfile>> = Object.freeze(
  Object.fromEntries(TOKENIZER_FAMILIES.map((family) => [family, profile(FITTED_PROFILES[family])])) as Record<TokenizerFamily, EstimatorProfile>,
);

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
      if (isRussianLetter(previousKind) && isRussianLetter(currentKind)) weight += profile.russianLetterPairs[previousKind][RUSSIAN_LETTERS.indexOf(currentKind)]!;
      if (isRussianLetter(currentKind) && previous !== 'cyrillic') weight += profile.russianWordStarts[RUSSIAN_LETTERS.indexOf(currentKind)]!;
      if (isRussianLetter(previousKind) && current !== 'cyrillic') weight += profile.russianWordEnds[RUSSIAN_LETTERS.indexOf(previousKind)]!;
      if (isHindiLetter(previousKind) && isHindiLetter(currentKind)) weight += profile.hindiLetterPairs[previousKind][HINDI_LETTERS.indexOf(currentKind)]!;
      if (isHindiLetter(currentKind) && previous !== 'devanagari') weight += profile.hindiWordStarts[HINDI_LETTERS.indexOf(currentKind)]!;
      if (isHindiLetter(previousKind) && current !== 'devanagari') weight += profile.hindiWordEnds[HINDI_LETTERS.indexOf(previousKind)]!;
      if (Object.hasOwn(UNCOMMON_KINDS, currentKind)) weight += profile.uncommon[UNCOMMON_KINDS[currentKind as UncommonKind]];
      if (currentKind === 'capitalLatin') weight += profile.capitals.latin;
      if (currentKind === 'capitalGreek') weight += profile.capitals.greek;
      if (currentKind === 'capitalCyrillic') weight += profile.capitals.cyrillic;
      if (currentKind === 'capitalArmenian') weight += profile.capitals.armenian;
      table[previousNumber * KIND_COUNT + currentNumber] = weight;
    }
  }
  return table;
}

/** The repeat weight of every kind (see `KindWeights.repeats`): what `weighText` adds for a unit equal to the one before it. */
export function repeatWeightsOf(profile: EstimatorProfile): Float64Array {
  return Float64Array.from(CHARACTER_KINDS, (kind) => profile.repeats[classOfKind(kind)] ?? 0);
}

const PAIR_TABLES = new WeakMap<EstimatorProfile, PairTable>();

/** The profile's pair table, built once per profile. */
function pairTableFor(profile: EstimatorProfile): PairTable {
  let table = PAIR_TABLES.get(profile);
  if (table === undefined) {
    table = pairTableOf(pairWeightsOf(profile), repeatWeightsOf(profile));
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
 * Counts `text` with the profile, never above the profile's UTF-8 cap
 * (`utf8Cap`: the text's byte count for a byte-level BPE).
 */
export function estimateTextTokens(text: string, profile: EstimatorProfile): number {
  return tokensOf(text, pairTableFor(profile), profile.utf8Cap);
}

function tokensOf(text: string, table: PairTable, cap: EstimatorProfile['utf8Cap']): number {
  const { weight, utf8Bytes } = weighText(text, table);
  return Math.min(Math.ceil(weight), Math.ceil(utf8Bytes * cap.perByte) + cap.extra);
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

/** What `countLongTextOnce` keeps: texts of at least this many characters, this many of them, weighing this much at most. */
const LONG_TEXT_MIN_CHARS = 256;
const LONG_TEXTS_KEPT = 64;
const LONG_TEXTS_KEPT_BYTES = 4 * 1024 * 1024;

/**
 * How many message counts one generation of `CachingTokenEstimator`'s cache
 * holds: it keeps the counts of this many to twice this many of the messages
 * it counted last, whatever the history's length.
 */
const MESSAGE_COUNTS_PER_GENERATION = 16_384;

/**
 * Wraps a text counter with per-message caching: messages are immutable, so
 * a turn that appends one message counts only that message. The cache holds
 * the messages counted or asked for lately (two generations of
 * `MESSAGE_COUNTS_PER_GENERATION`: a hit in the older one moves the count to
 * the newer, and the older is let go when the newer fills), not every
 * message of a long run: the assembler keeps a history's counts by position
 * and asks again only for what it has not counted, so a count per message of
 * a 100,000-message history would be memory kept for nothing. Media are
 * charged by `estimateMediaTokens`, for exact and conservative counters alike.
 */
export abstract class CachingTokenEstimator implements TokenEstimator {
  abstract readonly family: TokenizerFamily;
  abstract readonly exact: boolean;
  private newerCounts = new WeakMap<CanonicalMessage, number>();
  private olderCounts = new WeakMap<CanonicalMessage, number>();
  private newerSize = 0;

  abstract countText(text: string): number;

  private readonly longTexts = new BoundedCache<string, number>(LONG_TEXTS_KEPT, { maxBytes: LONG_TEXTS_KEPT_BYTES, bytesOf: (text) => 2 * text.length });

  /**
   * `count(text)`, kept for a long text: long texts come back call after
   * call on new message objects (the rendered system prompt, a tool's fixed
   * instructions; a stateless server sees every request fresh), and each is
   * counted once while it keeps coming. A shorter text is counted each time
   * (hashing it costs about what counting it does).
   */
  protected countLongTextOnce(text: string, count: (text: string) => number): number {
    if (text.length < LONG_TEXT_MIN_CHARS) return count(text);
    let tokens = this.longTexts.get(text);
    if (tokens === undefined) this.longTexts.set(text, (tokens = count(text)));
    return tokens;
  }

  countMessage(message: CanonicalMessage): number {
    const cached = this.newerCounts.get(message);
    if (cached !== undefined) return cached;
    const older = this.olderCounts.get(message);
    if (older !== undefined) {
      this.remember(message, older);
      return older;
    }
    const count = countMessageUncached(this, message);
    this.remember(message, count);
    return count;
  }

  private remember(message: CanonicalMessage, count: number): void {
    if (this.newerSize >= MESSAGE_COUNTS_PER_GENERATION) {
      this.olderCounts = this.newerCounts;
      this.newerCounts = new WeakMap();
      this.newerSize = 0;
    }
    this.newerCounts.set(message, count);
    this.newerSize += 1;
  }

  countTool(tool: ToolSchema): number {
    return this.countText(toolSchemaText(tool)) + TOOL_SCHEMA_OVERHEAD_TOKENS;
  }
}

/**
 * A caching counter's `countMessage` without its cache, neither read nor
 * written: for a caller that keeps its own counts by position (the history
 * window's index in trimHistory), for whom a count per message object would
 * be memory and work kept for nothing. Internal to the package.
 */
export function countMessageUncached(counter: CachingTokenEstimator, message: CanonicalMessage): number {
  const media = message.role === 'user' || message.role === 'tool' ? message.media : undefined;
  return counter.countText(messageText(message)) + messageOverheadTokens(message) + estimateMediaTokens(media);
}

/**
 * The fast default: counts by character class and deliberately over-estimates
 * mixed Chinese/English text, so a budget it approves fits the real tokenizer.
 */
export class ConservativeTokenEstimator extends CachingTokenEstimator {
  readonly family: TokenizerFamily;
  readonly exact = false;
  private readonly table: PairTable;
  private readonly cap: EstimatorProfile['utf8Cap'];

  constructor(options: { family?: TokenizerFamily } = {}) {
    super();
    const family = options?.family ?? 'unknown';
    if (!Object.hasOwn(ESTIMATOR_PROFILES, family)) {
      throw new ConfigurationError({ setting: 'family', message: `ConservativeTokenEstimator family must be one of ${Object.keys(ESTIMATOR_PROFILES).join(', ')}, got ${JSON.stringify(family)}` });
    }
    this.family = family;
    this.table = pairTableFor(ESTIMATOR_PROFILES[family]);
    this.cap = ESTIMATOR_PROFILES[family].utf8Cap;
  }

  countText(text: string): number {
    // Counted each time: weighing a text costs about what hashing it for a look-up would.
    return tokensOf(text, this.table, this.cap);
  }
}
