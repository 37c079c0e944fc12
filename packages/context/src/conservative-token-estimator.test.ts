import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CachingTokenEstimator, ConservativeTokenEstimator, estimateTextTokens, ESTIMATOR_PROFILES } from './conservative-token-estimator.js';
import * as context from './index.js';
import { messageText } from './message-text.js';
import type { TokenizerFamily } from './token-estimator.js';
import { GETTEXT_ROOT, gettextCorpus, icuCorpus, loadAllSharedConversations, loadReferenceCounters, loadAlpacaConversations, mixedScriptCorpus, proseCorpus, readGettextCatalogs, normalizedUtf8Bytes, readSharedData, scriptCharacters, stressCorpus, type CorpusItem } from '@strata/testing';

// The real tokenizers (development dependencies, loaded by @strata/testing): each family's
// profile is checked against its own tokenizer, `claude` against the tokenizer Anthropic published
// before Claude 3 (its profile's margin comes on top), and `unknown` against the largest count of all.
const { counters, missing } = await loadReferenceCounters();
if (missing.length > 0) console.log(`# notice: reference tokenizers absent (${missing.join(', ')}); their families are not checked`);

const PUBLIC_FAMILIES = ['o200k', 'o200k_harmony', 'cl100k', 'qwen', 'deepseek', 'llama3', 'llama2', 'gemma'] as const satisfies readonly TokenizerFamily[];

interface Check {
  /** The profile checked. */
  readonly family: TokenizerFamily;
  /** What it must not under-count. */
  readonly against: string;
  readonly exact: (text: string) => number;
  /** True where the median over-count target (40% per shared corpus) applies: a family against its own tokenizer. */
  readonly ownTokenizer: boolean;
}

const present = Object.values(counters);
const CHECKS: readonly Check[] = [
  ...PUBLIC_FAMILIES.filter((family) => counters[family] !== undefined).map((family) => ({ family, against: family, exact: counters[family]!, ownTokenizer: true })),
  ...(counters.claudePublic === undefined ? [] : [{ family: 'claude' as const, against: 'the public Claude tokenizer', exact: counters.claudePublic, ownTokenizer: false }]),
  { family: 'unknown', against: 'every reference tokenizer', exact: (text: string) => Math.max(...present.map((count) => count(text))), ownTokenizer: false },
];

/** The shared real histories as corpus items, one conversation per history; undefined when ../shared is absent. */
function sharedItems(): CorpusItem[] | undefined {
  const conversations = loadAllSharedConversations();
  const reasoning = readSharedData('llama-factory/reason_tool_use_demo_50.jsonl');
  if (!conversations || reasoning === undefined) return undefined;
  const items: CorpusItem[] = [];
  for (const conversation of conversations) {
    const corpus = conversation.source.startsWith('swe-agent') ? 'swe-agent' : conversation.source;
    for (const message of conversation.messages) items.push({ corpus, conversation: `${conversation.source}#${conversation.index}`, text: messageText(message) });
  }
  reasoning.split('\n').filter(Boolean).forEach((line, index) => {
    const record = JSON.parse(line) as { messages: Array<{ content: Array<{ value: string }> }> };
    for (const message of record.messages) items.push({ corpus: 'reason_tool_use', conversation: `reason_tool_use#${index}`, text: message.content.map((part) => part.value).join('\n') });
  });
  return items;
}

interface Measurement {
  underItems: string[];
  underConversations: string[];
  medianByCorpus: Map<string, number>;
  /** The lowest estimate / exact of an item of 200+ characters. */
  worstItemRatio: number;
}

/** Items of 200+ characters and whole conversations the estimator under-counts, and the median over-count per corpus. */
function measure(items: readonly CorpusItem[], check: Check): Measurement {
  const estimator = new ConservativeTokenEstimator({ family: check.family });
  const underItems: string[] = [];
  let worstItemRatio = Infinity;
  const conversations = new Map<string, { corpus: string; estimated: number; exact: number }>();
  for (const item of items) {
    const estimated = estimator.countText(item.text);
    const exact = check.exact(item.text);
    if (item.text.length >= 200 && exact > 0) worstItemRatio = Math.min(worstItemRatio, estimated / exact);
    if (item.text.length >= 200 && estimated < exact) underItems.push(`${item.corpus} ${item.conversation}: ${estimated} < ${exact}`);
    const key = `${item.corpus} ${item.conversation}`;
    const sums = conversations.get(key) ?? { corpus: item.corpus, estimated: 0, exact: 0 };
    sums.estimated += estimated;
    sums.exact += exact;
    conversations.set(key, sums);
  }
  const underConversations: string[] = [];
  const overCounts = new Map<string, number[]>();
  for (const [key, { corpus, estimated, exact }] of conversations) {
    if (estimated < exact) underConversations.push(`${key}: ${estimated} < ${exact}`);
    if (exact > 0) overCounts.set(corpus, [...(overCounts.get(corpus) ?? []), estimated / exact - 1]);
  }
  const medianByCorpus = new Map([...overCounts].map(([corpus, values]) => [corpus, values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!]));
  return { underItems, underConversations, medianByCorpus, worstItemRatio };
}

function report(check: Check, measurement: Measurement): void {
  const medians = [...measurement.medianByCorpus].map(([corpus, median]) => `${corpus} ${(median * 100).toFixed(1)}%`).join('; ');
  console.log(`# ${check.family} against ${check.against}: median over-count per corpus: ${medians}`);
}

const shared = sharedItems();

for (const check of CHECKS) {
  test(`${check.family} profile never under-counts the shared real histories (${check.against})`, { skip: shared ? false : '../shared is absent' }, () => {
    const measurement = measure(shared!, check);
    report(check, measurement);
    assert.deepEqual(measurement.underItems, []);
    assert.deepEqual(measurement.underConversations, []);
    // Issues 14 and 22: at most 40% on each corpus with the family's own profile, Chinese included (before
    // the frequency classes of Han and the repeat weights: qwen 54.9% on alpaca zh, deepseek 65.7% and 46.3%, gemma 47.5%).
    if (check.ownTokenizer) {
      for (const [corpus, median] of measurement.medianByCorpus) assert.ok(median <= 0.4, `${corpus}: median over-count ${median}`);
    }
  });
}

const generated = (() => {
  const prose = loadAlpacaConversations('alpaca_en_demo.json')?.slice(0, 200).map((conversation) => conversation.messages.map(messageText).join('\n'));
  const codeSources = Object.values(context).filter((value) => typeof value === 'function').map(String);
  return [...icuCorpus(), ...mixedScriptCorpus(), ...stressCorpus({ prose, codeSources })];
})();

const prose = proseCorpus();

for (const check of CHECKS) {
  // The fit is fitted on two paragraphs of three of each language; every third is text it never saw.
  test(`${check.family} profile never under-counts prose in Russian, Arabic, Hindi, Korean, Japanese and Thai, and over-counts its median paragraph by at most 40% (${check.against})`, () => {
    const measurement = measure(prose, check);
    report(check, measurement);
    assert.deepEqual(measurement.underItems, []);
    assert.deepEqual(measurement.underConversations, []);
    if (check.ownTokenizer) {
      // Hindi with o200k and gemma passed 40% (55.4%, 61.7%) until Devanagari letters were priced by pair.
      for (const [corpus, median] of measurement.medianByCorpus) assert.ok(median <= 0.4, `${corpus}: median over-count ${median}`);
    }
  });
}

// The probe (estimator-fit/held-out-prose.mjs, measured by estimator-fit/probe.mjs): prose in the six scripts
// written for it, which no fit reads, so it measures how a profile carries over to running text it was not fitted
// on (held-out Hindi paragraphs were over-counted 40-45% at the median against ~10% on the paragraphs the fit saw).
// PROBE_GAPS: per profile and language, the highest median over-count measured after the last refit, rounded up;
// a refit that raises one fails here (the refit that held identifiers of short words to their margin raised some
// by up to 4 points: deepseek hi 8% -> 12%, gemma hi 31% -> 35%, claude hi 35% -> 38%; all within the 40% goal).
// No profile under-counts a paragraph: those that did were refitted with the catalog sentences and margins of their
// own (o200k's Korean/Japanese 1.12, llama3's 1.1, cl100k's Russian 1.18 and Korean/Japanese 1.12, gemma's
// Korean/Japanese 1.1, llama2's Russian 1.15 and Korean/Japanese 1.12: two of its Japanese paragraphs, with kanji
// outside its vocabulary at 3 byte tokens each, ran to 0.994 and 0.965 of its count).
const { heldOutProseCorpus } = (await import(new URL('../estimator-fit/held-out-prose.mjs', import.meta.url).href)) as { heldOutProseCorpus: () => CorpusItem[] };
const probe = heldOutProseCorpus();
const PROBE_GAPS: Readonly<Partial<Record<TokenizerFamily, Readonly<Record<string, number>>>>> = {
  o200k: { ru: 0.2, ar: 0.19, hi: 0.27, ko: 0.22, ja: 0.13, th: 0.16 },
  o200k_harmony: { ru: 0.2, ar: 0.19, hi: 0.27, ko: 0.22, ja: 0.13, th: 0.16 },
  cl100k: { ru: 0.17, ar: 0.16, hi: 0.15, ko: 0.14, ja: 0.1, th: 0.11 },
  qwen: { ru: 0.18, ar: 0.24, hi: 0.14, ko: 0.23, ja: 0.18, th: 0.2 },
  deepseek: { ru: 0.13, ar: 0.24, hi: 0.12, ko: 0.15, ja: 0.2, th: 0.18 },
  llama3: { ru: 0.17, ar: 0.35, hi: 0.15, ko: 0.21, ja: 0.15, th: 0.1 },
  llama2: { ru: 0.14, ar: 0.1, hi: 0.12, ko: 0.08, ja: 0.12, th: 0.05 },
  gemma: { ru: 0.25, ar: 0.15, hi: 0.35, ko: 0.3, ja: 0.25, th: 0.26 },
  claude: { ru: 0.32, ar: 0.35, hi: 0.38, ko: 0.27, ja: 0.33, th: 0.3 },
  unknown: { ru: 0.03, ar: 0.17, hi: 0.13, ko: 0.05, ja: 0.1, th: 0.13 },
};

for (const check of CHECKS) {
  test(`${check.family} profile under-counts no paragraph of the probe's prose, written for no fit, and over-counts its median paragraph per language within PROBE_GAPS (${check.against})`, () => {
    const measurement = measure(probe, check);
    report(check, measurement);
    assert.deepEqual(measurement.underItems, []);
    assert.deepEqual(measurement.underConversations, []);
    const gaps = PROBE_GAPS[check.family];
    assert.ok(gaps, `no PROBE_GAPS for ${check.family}`);
    for (const [corpus, median] of measurement.medianByCorpus) {
      const language = corpus.replace('held-out-', '');
      assert.ok(median <= gaps[language]!, `${language}: median over-count ${(median * 100).toFixed(1)}% above ${gaps[language]! * 100}%`);
      if (check.ownTokenizer) assert.ok(median <= 0.4, `${language}: median over-count ${median}`);
    }
  });
}

for (const check of CHECKS) {
  test(`${check.family} profile never under-counts ICU text in every script, mixed scripts, numbers, tables, logs, stack traces, SQL, LaTeX, encoding tables, hex, base64, minified code, emoji (${check.against})`, () => {
    const measurement = measure(generated, check);
    report(check, measurement);
    assert.deepEqual(measurement.underItems, []);
    assert.deepEqual(measurement.underConversations, []);
  });
}

// A run of every character of every script with a class and of Common (of Han and Hangul, every seventh), 200 of it
// (an item of the length); the fit saw runs of some 400 of each script that has more, so most Han, Hangul,
// Latin and Arabic characters here it never saw. And each block of 16 neighbouring Common characters, repeated to 208.
const characterRuns = [...scriptCharacters()].flatMap(([script, characters]) => [
  ...characters.filter((_, index) => characters.length < 10_000 || index % 7 === 3).map((character) => ({ script, text: character.repeat(200) })),
  ...(script === 'Common' ? characters.flatMap((_, index) => (index % 16 === 0 ? [{ script, text: characters.slice(index, index + 16).join('').repeat(13) }] : [])) : []),
]);

for (const check of CHECKS) {
  test(`${check.family} profile never under-counts a run of one character of every script with a class and of Common, or a block of neighbouring Common characters (${check.against})`, () => {
    const estimator = new ConservativeTokenEstimator({ family: check.family });
    const under = characterRuns.filter(({ text }) => estimator.countText(text) < check.exact(text)).map(({ script, text }) => `${script} ${JSON.stringify(text.slice(0, 16))}: ${estimator.countText(text)} < ${check.exact(text)}`);
    assert.deepEqual(under, []);
  });
}

test('the generated corpus holds code and data of every common kind', () => {
  const conversations = new Set(generated.map((item) => `${item.corpus} ${item.conversation}`));
  const kinds = ['minified-code sources', 'base64 random bytes', 'base64 utf-8 text', 'terminal tab-separated', 'terminal ansi colours', 'json tool calls', 'data-formats latex', 'data-formats sql', 'data-formats csv', 'data-formats logs', 'data-formats stack traces', 'data-formats hex dumps'];
  for (const kind of [...kinds, ...['hangul', 'han', 'kana', 'cyrillic', 'arabic', 'devanagari', 'thai', 'symbols'].map((script) => `data-formats encoding table ${script}`)]) assert.ok(conversations.has(kind), kind);
});

const gettext = gettextCorpus(readGettextCatalogs());
/**
 * The tokenizer.json tokenizers count about a megabyte a second: the
 * families they count (and `unknown`, which needs them all) are checked on
 * every third catalog, OpenAI's on all (gpt-tokenizer is faster).
 */
const gettextSample = (() => {
  const catalogs = [...new Set(gettext.map((item) => item.conversation))].filter((_, index) => index % 3 === 0);
  const sampled = new Set(catalogs);
  return gettext.filter((item) => sampled.has(item.conversation));
})();
const gettextFor = (check: Check) => (check.family === 'o200k' || check.family === 'o200k_harmony' || check.family === 'cl100k' ? gettext : gettextSample);

for (const check of CHECKS) {
  // The profiles are fitted on these catalogs, where nothing is under-counted. A machine with other
  // catalogs (other packages or versions) holds text the fit never saw: fitted on half of the catalogs,
  // the other half had 0.25% of items under-counted, the worst at 0.885 of its count (fit-profile.py,
  // HOLDOUT=1). The bounds below hold for unseen catalogs with room to spare.
  test(`${check.family} profile does not under-count translated program messages in every language the machine has catalogs for (${check.against})`, { skip: gettext.length > 0 ? false : `no gettext catalogs in ${GETTEXT_ROOT}` }, () => {
    const corpus = gettextFor(check);
    const measurement = measure(corpus, check);
    report(check, measurement);
    const items = corpus.filter((item) => item.text.length >= 200).length;
    const conversations = new Set(corpus.map((item) => item.conversation)).size;
    assert.ok(measurement.underItems.length <= items * 0.01, measurement.underItems.slice(0, 10).join('\n'));
    assert.ok(measurement.underConversations.length <= conversations * 0.01, measurement.underConversations.slice(0, 10).join('\n'));
    assert.ok(measurement.worstItemRatio >= 0.85, `worst item at ${measurement.worstItemRatio} of its exact count`);
  });
}

test('terminal output and legacy forms are not under-counted: ANSI colours, tabs, CRLF, controls, NFD Korean, half-width katakana', () => {
  const lines = Array.from({ length: 20 }, (_, index) => `\u001b[32m✓\u001b[0m test ${index} passes \u001b[90m(${index}ms)\u001b[0m`).join('\n');
  const table = Array.from({ length: 40 }, (_, index) => `${index}\tname_${index}\t${index * 3.5}\ttrue`).join('\n');
  const crlf = 'line one of the file\r\n'.repeat(30);
  const controls = '\u0001\u0002\u0003\u001b\u007f'.repeat(60);
  const korean = '한국어 파일 이름 '.repeat(30).normalize('NFD');
  const halfWidth = 'ｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿ'.repeat(20);
  for (const text of [lines, table, crlf, controls, korean, halfWidth]) {
    for (const check of CHECKS) assert.ok(new ConservativeTokenEstimator({ family: check.family }).countText(text) >= check.exact(text), `${check.family}: ${JSON.stringify(text.slice(0, 24))}`);
  }
});

test('digits that Qwen, Gemma and Llama 2 split one per token are covered by their profiles and by unknown (issue 22)', () => {
  const digits = '1234567890 9876543210 3.14159265358979';
  const log = Array.from({ length: 12 }, (_, index) => `2024-06-${String(index + 10)}T12:${index}4:56.789Z pid=${31_337 + index * 97} addr=0x7ffd${(index * 48_879).toString(16)} took ${index * 1.25}ms`).join('\n');
  for (const text of [digits, digits.repeat(6), log]) {
    for (const check of CHECKS) assert.ok(new ConservativeTokenEstimator({ family: check.family }).countText(text) >= check.exact(text), `${check.family}: ${JSON.stringify(text.slice(0, 24))}`);
  }
  if (counters.qwen) assert.equal(counters.qwen(digits), 38);
});

test('letter pairs price rare names above English words, and uncommon Han above common Han', () => {
  // Same classes and lengths, different letters: ICU's names of Akan and Ewe places against English words.
  const english = 'the people of this country have been working with their friends for years and years ';
  const names = 'kpandu dzodze hohoe kpeve nkwanta tsito akatsi anyako dzolokpuita wheta kpetoe ';
  const estimator = new ConservativeTokenEstimator({ family: 'o200k' });
  const perCharacter = (text: string) => estimator.countText(text.repeat(4)) / (text.length * 4);
  assert.ok(perCharacter(names) > perCharacter(english) * 1.3, `${perCharacter(names)} against ${perCharacter(english)}`);
  assert.ok(estimator.countText('龘'.repeat(100)) > estimator.countText('的'.repeat(100)));
});

test('scripts the old classes priced as "other" are no longer under-counted (issue 14 examples)', () => {
  const lao = 'ວັນພະຫັດ, 1 ມັງກອນ 1970 ພາສາລາວ ພາສາຍີ່ປຸ່ນ 日本語 中文 ';
  const gujarati = 'ગુજરાતી ભાષા 中文 ';
  const capitals = 'THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG AND KEEPS RUNNING ACROSS THE FIELD ';
  // Capitals beyond ASCII, which the encoders merge far less than small letters.
  const russian = 'МОСКВА ЯВЛЯЕТСЯ СТОЛИЦЕЙ РОССИИ И КРУПНЕЙШИМ ГОРОДОМ СТРАНЫ. ';
  const greek = 'Η ΕΛΛΑΔΑ ΕΙΝΑΙ ΧΩΡΑ ΤΗΣ ΝΟΤΙΟΑΝΑΤΟΛΙΚΗΣ ΕΥΡΩΠΗΣ ';
  const mtavruli = 'ᲡᲐᲥᲐᲠᲗᲕᲔᲚᲝ ᲛᲓᲔᲑᲐᲠᲔᲝᲑᲡ ';
  // Blocks the encoders split where the rest of their script merges: polytonic Greek, IPA.
  const polytonic = 'Ἐν ἀρχῇ ἦν ὁ λόγος, καὶ ὁ λόγος ἦν πρὸς τὸν θεόν. ';
  const ipa = 'ˈɪntərnæʃənəl fəˈnɛtɪk ˈælfəbɛt ʃʒŋθð ';
  // Lao prose, not names: it ran 5% over the Lao weight fitted on ICU text alone.
  const laoProse = 'ປະເທດລາວຕັ້ງຢູ່ໃນພາກພື້ນອາຊີຕາເວັນອອກສຽງໃຕ້. ນະຄອນຫຼວງວຽງຈັນແມ່ນເມືອງຫຼວງຂອງປະເທດ. ແມ່ນ້ຳຂອງໄຫຼຜ່ານປະເທດລາວຈາກທິດເໜືອຫາທິດໃຕ້. ';
  for (const text of [lao.repeat(8), gujarati.repeat(12), capitals.repeat(4), russian.repeat(4), greek.repeat(5), mtavruli.repeat(10), polytonic.repeat(5), ipa.repeat(6), laoProse.repeat(2)]) {
    for (const check of CHECKS) assert.ok(new ConservativeTokenEstimator({ family: check.family }).countText(text) >= check.exact(text), `${check.family}: ${text.slice(0, 20)}`);
  }
});

test("an estimate never exceeds the profile's UTF-8 cap (the byte count, of the longer normal form where normalisation expands a character, for a byte-level BPE) and is zero for empty text", () => {
  for (const family of Object.keys(ESTIMATOR_PROFILES) as TokenizerFamily[]) assert.equal(estimateTextTokens('', ESTIMATOR_PROFILES[family]), 0);
  for (const family of ['o200k', 'o200k_harmony', 'cl100k', 'qwen', 'deepseek', 'llama3'] as const) assert.deepEqual(ESTIMATOR_PROFILES[family].utf8Cap, { perByte: 1, extra: 0 });
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.constantFrom(...(Object.keys(ESTIMATOR_PROFILES) as TokenizerFamily[])), (text, family) => {
      const { perByte, extra } = ESTIMATOR_PROFILES[family].utf8Cap;
      const estimate = estimateTextTokens(text, ESTIMATOR_PROFILES[family]);
      assert.ok(estimate >= 0);
      assert.ok(estimate <= Math.ceil(normalizedUtf8Bytes(text) * perByte) + extra);
    }),
  );
});

test('counts are cached per message object', () => {
  let calls = 0;
  class Counting extends ConservativeTokenEstimator {
    override countText(text: string): number {
      calls += 1;
      return super.countText(text);
    }
  }
  const estimator = new Counting();
  const message = { role: 'user', content: '你好，world' } as const;
  const first = estimator.countMessage(message);
  assert.equal(estimator.countMessage(message), first);
  assert.equal(calls, 1);
  assert.ok(first > estimator.countText(message.content), 'message framing is charged');
});

test('an unknown tokenizer family is a ConfigurationError naming the setting', () => {
  for (const family of ['p50k', '', 'toString', '__proto__', 42, {}]) {
    assert.throws(
      () => new ConservativeTokenEstimator({ family: family as never }),
      (error: unknown) => context.ConfigurationError.isInstance(error) && error.setting === 'family',
    );
  }
});

test('countLongTextOnce counts a long text once while it keeps coming back on new messages, a short one every time, and forgets the least recent past 64', () => {
  const counted: string[] = [];
  class Counting extends CachingTokenEstimator {
    readonly family = 'unknown';
    readonly exact = true;
    countText(text: string): number {
      return this.countLongTextOnce(text, (long) => {
        counted.push(long);
        return long.length;
      });
    }
  }
  const estimator = new Counting();
  const prompt = 'policy '.repeat(100);
  const short = 'a short reply';
  for (let call = 0; call < 3; call += 1) {
    assert.equal(estimator.countText(prompt), prompt.length);
    assert.equal(estimator.countText(short), short.length);
  }
  assert.deepEqual(counted, [prompt, short, short, short]);
  counted.length = 0;
  // 64 other long texts push the prompt out (it was used before all of them); the newest of them stays.
  const others = Array.from({ length: 64 }, (_, index) => `${index} ${'x'.repeat(300)}`);
  for (const text of others) estimator.countText(text);
  estimator.countText(others.at(-1)!);
  estimator.countText(prompt);
  assert.deepEqual(counted, [...others, prompt]);
});

test('the per-message count cache keeps the messages counted lately, not every message of a long run: a count asked for again within 16,384 others is kept, one 32,768 others ago is counted again', () => {
  let counted = 0;
  class Counting extends CachingTokenEstimator {
    readonly family = 'unknown';
    readonly exact = false;
    countText(text: string): number {
      counted += 1;
      return text.length;
    }
  }
  const estimator = new Counting();
  const message = (index: number) => ({ role: 'user' as const, content: `message ${index}` });
  const first = message(-1);
  const kept = message(-2);
  estimator.countMessage(first);
  estimator.countMessage(kept);
  for (let index = 0; index < 16_384; index += 1) estimator.countMessage(message(index));
  // `kept` is asked for again (a hit moves it to the newer generation); `first` is not.
  counted = 0;
  assert.equal(estimator.countMessage(kept), estimator.countMessage(kept));
  assert.equal(counted, 0);
  for (let index = 0; index < 16_384; index += 1) estimator.countMessage(message(index));
  counted = 0;
  estimator.countMessage(kept);
  assert.equal(counted, 0, 'a message asked for within the last generation keeps its count');
  estimator.countMessage(first);
  assert.equal(counted, 1, 'a message not asked for over two generations is counted again');
});
