import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataFormatTexts } from './estimator-data-formats.js';

// Test corpora for the conservative estimator, made at run time: natural text
// in every locale the engine's ICU data knows (no download, nothing copied),
// text mixing scripts, and the text shapes that break character-based guesses
// (all capitals, base64, minified code, emoji sequences, long runs). Used by
// the estimator's tests, its fit (packages/context/estimator-fit) and the benchmark.
// Lives here, outside the published pure package, because it reads files.

/** One text, the corpus it belongs to, and the conversation it is part of (its items are summed together). */
export interface CorpusItem {
  readonly corpus: string;
  readonly conversation: string;
  readonly text: string;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Items of about this many characters (at least 200, so each is a checked item). */
const ITEM_CHARACTERS = 400;

let cachedLanguageCodes: string[] | undefined;
let cachedRegionCodes: string[] | undefined;

/** Two- and three-letter language codes that ICU names in English. */
function languageCodes(): string[] {
  if (cachedLanguageCodes) return cachedLanguageCodes;
  const english = new Intl.DisplayNames('en', { type: 'language', fallback: 'none' });
  const codes: string[] = [];
  for (const first of LETTERS) {
    for (const second of LETTERS) {
      codes.push(first + second);
      for (const third of LETTERS) codes.push(first + second + third);
    }
  }
  cachedLanguageCodes = codes.filter((code) => english.of(code) !== undefined).sort();
  return cachedLanguageCodes;
}

function regionCodes(): string[] {
  if (cachedRegionCodes) return cachedRegionCodes;
  const english = new Intl.DisplayNames('en', { type: 'region', fallback: 'none' });
  const codes: string[] = [];
  for (const first of LETTERS) for (const second of LETTERS) codes.push((first + second).toUpperCase());
  cachedRegionCodes = codes.filter((code) => english.of(code) !== undefined);
  return cachedRegionCodes;
}

let cachedLocales: string[] | undefined;

/** Every language with date-format data in this engine's ICU (about 250 on Node 20), in tag order. */
export function icuLocales(): string[] {
  cachedLocales ??= Intl.DateTimeFormat.supportedLocalesOf(languageCodes(), { localeMatcher: 'lookup' }).sort();
  return cachedLocales;
}

const phraseCache = new Map<string, string[][]>();

/** Natural phrases of one locale: names of languages, regions, currencies, units; dates; relative times. */
export function localePhrases(locale: string): string[][] {
  const cached = phraseCache.get(locale);
  if (cached) return cached;
  const named = (type: 'language' | 'region' | 'currency', codes: readonly string[]) => {
    const names = new Intl.DisplayNames(locale, { type, fallback: 'none' });
    return [...new Set(codes.map((code) => names.of(code)).filter((name): name is string => name !== undefined))];
  };
  const dates: string[] = [];
  const full = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'long', timeZone: 'UTC' });
  const zoned = new Intl.DateTimeFormat(locale, { month: 'long', day: 'numeric', weekday: 'long', hour: 'numeric', timeZoneName: 'long', timeZone: 'America/New_York' });
  for (let month = 0; month < 12; month += 1) {
    const date = new Date(Date.UTC(2024, month, 1 + month * 2, month, month * 5));
    dates.push(full.format(date), zoned.format(date));
  }
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'long' });
  const relativeTimes: string[] = [];
  for (const unit of ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second'] as const) {
    for (const value of [-3, -1, 0, 1, 2, 25]) relativeTimes.push(relative.format(value, unit));
  }
  const units = Intl.supportedValuesOf('unit').filter((_, index) => index % 3 === 0).map((unit) => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(7));
  // Every third language and currency: a few hundred names per locale is enough and keeps the corpus quick to make.
  const phrases = [
    named('language', languageCodes().filter((_, index) => index % 3 === 0)),
    named('region', regionCodes()),
    named('currency', Intl.supportedValuesOf('currency').filter((_, index) => index % 3 === 0)),
    dates,
    relativeTimes,
    units,
  ];
  phraseCache.set(locale, phrases);
  return phrases;
}

/** Phrases joined as the locale lists them, cut into items of about ITEM_CHARACTERS characters. */
function itemsOf(phrases: readonly string[], join: (chunk: string[]) => string): string[] {
  const items: string[] = [];
  let chunk: string[] = [];
  let length = 0;
  for (const phrase of phrases) {
    chunk.push(phrase);
    length += phrase.length + 2;
    if (length >= ITEM_CHARACTERS) {
      items.push(join(chunk));
      chunk = [];
      length = 0;
    }
  }
  if (chunk.length > 0) items.push(join(chunk));
  return items;
}

function listJoiner(locale: string): (chunk: string[]) => string {
  const list = new Intl.ListFormat(locale, { type: 'unit', style: 'long' });
  return (chunk) => list.format(chunk);
}

/** Natural text in every ICU locale: one conversation per locale, items of about 400 characters. */
export function icuCorpus(): CorpusItem[] {
  const items: CorpusItem[] = [];
  for (const locale of icuLocales()) {
    const join = listJoiner(locale);
    for (const phrases of localePhrases(locale)) {
      for (const text of itemsOf(phrases, join)) items.push({ corpus: 'icu', conversation: locale, text });
    }
  }
  return items;
}

/** One locale per script (the first, in tag order), keyed by script. */
function localesByScript(): Map<string, string> {
  const byScript = new Map<string, string>();
  for (const locale of icuLocales()) {
    const script = new Intl.Locale(locale).maximize().script!;
    if (!byScript.has(script)) byScript.set(script, locale);
  }
  return byScript;
}

/** Interleaves the phrases of several locales, with a space or with nothing between them. */
function interleave(lists: readonly string[][], separator: string): string[] {
  const mixed: string[] = [];
  const longest = Math.max(...lists.map((list) => list.length));
  for (let index = 0; index < longest; index += 1) {
    const phrase = lists.map((list) => list[index]).filter((value) => value !== undefined).join(separator);
    if (phrase) mixed.push(phrase);
  }
  return mixed;
}

/** Every script's language names mixed with Japanese and Chinese, with English, and with Russian; spaced and unspaced. */
export function mixedScriptCorpus(): CorpusItem[] {
  const items: CorpusItem[] = [];
  const names = (locale: string) => localePhrases(locale)[0]!;
  const partners: ReadonlyArray<readonly string[]> = [['ja', 'zh'], ['en'], ['ru'], ['zh']];
  for (const locale of localesByScript().values()) {
    for (const others of partners) {
      if (others.includes(locale)) continue;
      const lists = [names(locale), ...others.map(names)];
      for (const separator of [' ', '']) {
        const conversation = `${[locale, ...others].join('+')}${separator ? ' spaced' : ''}`;
        for (const text of itemsOf(interleave(lists, separator), (chunk) => chunk.join(separator || '、'))) {
          items.push({ corpus: 'mixed-script', conversation, text });
        }
      }
    }
  }
  return items;
}

/** A small deterministic generator (mulberry32), so generated corpora are the same on every run. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBytes(random: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index += 1) bytes[index] = Math.floor(random() * 256);
  return bytes;
}

/** Roughly what a minifier does: comments and spacing gone, local names shortened. */
export function minify(source: string): string {
  const names = new Map<string, string>();
  const shortName = (name: string) => {
    let short = names.get(name);
    if (short === undefined) {
      const index = names.size;
      short = (index >= 26 ? LETTERS[Math.floor(index / 26) % 26]! : '') + LETTERS[index % 26]!;
      names.set(name, short);
    }
    return short;
  };
  const keywords = new Set(['function', 'return', 'const', 'let', 'var', 'if', 'else', 'for', 'while', 'new', 'this', 'of', 'in', 'typeof', 'true', 'false', 'null', 'undefined', 'class', 'extends', 'super', 'throw', 'try', 'catch', 'break', 'continue', 'async', 'await', 'yield', 'static', 'get', 'set', 'instanceof', 'void', 'delete', 'switch', 'case', 'default', 'do']);
  return source
    .replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '')
    .replace(/(?<![.\w$'"`])[A-Za-z_$][\w$]{2,}\b(?!\s*:)/g, (name) => (keywords.has(name) ? name : shortName(name)))
    .replace(/\s+/g, ' ')
    .replace(/ ?([{}()[\];,=<>+\-*/:?&|!.]) ?/g, '$1');
}

/**
 * Text shapes outside prose: all capitals (every cased ICU locale and the
 * given prose, upper-cased), base64 and hex of random bytes and of UTF-8
 * text, minified code (from `codeSources`), dense JSON of tool calls and numbers, emoji sequences (skin tones, ZWJ
 * families, flags, keycaps, tag sequences), combining marks, full-width and
 * mathematical letters, long runs of one character (every small letter among
 * them), random strings and words of small letters, terminal output
 * (`terminalItems`), legacy text forms (`legacyFormItems`) and code and data
 * files (`dataFormatTexts`: encoding tables, LaTeX, SQL, CSV, logs, stack
 * traces, hex dumps).
 */
export function stressCorpus(options: { prose?: readonly string[]; codeSources?: readonly string[] } = {}): CorpusItem[] {
  const items: CorpusItem[] = [];
  const add: AddItems = (corpus, conversation, texts) => {
    for (const text of texts) if (text.length > 0) items.push({ corpus, conversation, text });
  };
  const random = randomSource(14);

  for (const locale of icuLocales()) {
    const phrases = localePhrases(locale).flat();
    const upper = phrases.map((phrase) => phrase.toLocaleUpperCase(locale));
    if (upper.join('') !== phrases.join('')) add('all-capitals', locale, itemsOf(upper, (chunk) => chunk.join(' ')));
  }
  add('all-capitals', 'prose', (options.prose ?? []).map((text) => text.toUpperCase()));

  for (const length of [48, 300, 1_500, 6_000]) {
    const bytes = randomBytes(random, length);
    add('base64', 'random bytes', [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), bytes.toString('base64').replace(/.{76}/g, '$&\n')]);
  }
  const utf8 = Buffer.from(icuCorpusSample(), 'utf8');
  add('base64', 'utf-8 text', [utf8.toString('base64').replace(/.{76}/g, '$&\n'), utf8.toString('hex')]);
  const uuids = Array.from({ length: 40 }, () => randomBytes(random, 16).toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'));
  add('base64', 'identifiers', [uuids.join(', '), uuids.map((uuid) => uuid.toUpperCase()).join('\n')]);

  add('minified-code', 'sources', (options.codeSources ?? []).map(minify));

  // Dense JSON of agent tool calls: short names and keys, small numbers, one call per line.
  const callLines = (name: string, key: string) => Array.from({ length: 120 }, (_, index) => `${name} {"${key}":${index}}`).join('\n');
  add('json', 'tool calls', [callLines('lookup', 'page'), callLines('read_file', 'line'), callLines('search', 'id'), callLines('get_weather', 'offset')]);
  add('json', 'numbers', [JSON.stringify(range(0, 999)), JSON.stringify(Array.from({ length: 100 }, (_, index) => ({ id: index, page: index % 7, ok: index % 2 === 0, score: index / 8 })))]);

  const pictographs = [...String.fromCodePoint(...range(0x1f300, 0x1faff)).matchAll(/\p{Extended_Pictographic}/gu)].map((match) => match[0]);
  const tones = range(0x1f3fb, 0x1f3ff).map((code) => String.fromCodePoint(code));
  const people = ['\u{1F468}', '\u{1F469}', '\u{1F467}', '\u{1F466}', '\u{1F9D1}'];
  const families = Array.from({ length: 60 }, (_, index) => [people[index % 5], people[(index + 1) % 5], people[(index * 3) % 5]].join('\u200d'));
  const toned = pictographs.slice(0, 200).map((emoji, index) => emoji + tones[index % 5]);
  const flags = regionCodes().map((code) => String.fromCodePoint(...[...code].map((letter) => 0x1f1e6 + letter.charCodeAt(0) - 65)));
  const keycaps = [...'0123456789#*'].map((key) => `${key}\ufe0f\u20e3`);
  const tagged = ['gbeng', 'gbsct', 'gbwls', 'usca', 'ustx'].map((tag) => `\u{1F3F4}${String.fromCodePoint(...[...tag].map((letter) => 0xe0000 + letter.charCodeAt(0)))}\u{E007F}`);
  for (const [name, sequence] of [['pictographs', pictographs], ['skin tones', toned], ['families', families], ['flags', flags], ['keycaps and tags', [...keycaps, ...tagged, ...keycaps]]] as const) {
    add('emoji', name, itemsOf(sequence, (chunk) => chunk.join('')));
    add('emoji', `${name} in text`, itemsOf(sequence.map((emoji, index) => `${emoji} item ${index}`), (chunk) => chunk.join(', ')));
  }

  const stacked = Array.from({ length: 300 }, (_, index) => LETTERS[index % 26]! + COMBINING_MARKS[index % COMBINING_MARKS.length]! + COMBINING_MARKS[(index * 7) % COMBINING_MARKS.length]!);
  add('symbols', 'combining marks', itemsOf(stacked, (chunk) => chunk.join('')));
  const fullWidth = 'Ｆｕｌｌ－ｗｉｄｔｈ ｔｅｘｔ，ＡＢＣ １２３！ '.repeat(20);
  const mathematical = String.fromCodePoint(...range(0x1d400, 0x1d6a3).filter((code) => /\p{L}/u.test(String.fromCodePoint(code))));
  add('symbols', 'letter forms', [fullWidth, mathematical, String.fromCharCode(...range(0x2500, 0x257f)).repeat(3), String.fromCharCode(...range(0x2190, 0x23ff))]);
  for (const character of [...LETTERS, 'Z', '0', ' ', '\n', '\t', '-', '=', '.', '中', 'é', 'Я', '\u{1F600}', 'ລ']) {
    add('runs', JSON.stringify(character), [character.repeat(250), character.repeat(4_000), `${character.repeat(300)} x ${character.repeat(7)}`]);
  }
  addScriptRuns(add);
  const randomLetters = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  add('runs', 'random characters', [randomLetters(`${LETTERS}${LETTERS.toUpperCase()}0123456789`, 2_000), randomLetters('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', 1_000)]);
  // Small letters priced by letter pair: text no language writes, in runs and in random words, vowels or none.
  const randomWords = (alphabet: string) => Array.from({ length: 300 }, () => randomLetters(alphabet, 2 + Math.floor(random() * 9))).join(' ');
  add('runs', 'random small letters', [randomLetters(LETTERS, 2_000), randomWords(LETTERS), randomWords('bcdfghjklmnpqrstvwxz'), randomWords('aeiouy')]);
  // Strings over small alphabets: DNA in both cases, bits.
  add('runs', 'small alphabets', [randomLetters('ACGT', 2_000), randomLetters('acgt', 2_000), randomLetters('01', 2_000), randomLetters('ACGTN', 400).replace(/.{60}/g, '$&\n')]);
  addTerminalItems(add, random, options.prose ?? [], options.codeSources ?? []);
  addLegacyFormItems(add, random, options.prose ?? []);
  const words = (options.prose ?? []).join(' ').match(/[a-z]{3,}/g) ?? ['value', 'state', 'parse'];
  for (const { conversation, texts } of dataFormatTexts(randomSource(22), words.slice(0, 2_000))) add('data-formats', conversation, texts);
  return items;
}

/** The scripts of `scriptCharacters`: every script with a class of its own in the estimator, and Common. */
const RUN_SCRIPTS = ['Common', 'Latin', 'Greek', 'Cyrillic', 'Armenian', 'Hebrew', 'Arabic', 'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao', 'Tibetan', 'Myanmar', 'Khmer', 'Georgian', 'Ethiopic', 'Han', 'Hiragana', 'Katakana', 'Hangul'];

/**
 * The letters, digits, punctuation and symbols of the BMP beyond ASCII of
 * each script with a class of its own in the estimator and of Common, in
 * code point order, by script.
 */
export function scriptCharacters(): Map<string, string[]> {
  // The BMP beyond ASCII in one string (surrogates as NUL, which no pattern below matches), matched once per script.
  const bmp = range(0x80, 0xffff).map((code) => (code >= 0xd800 && code <= 0xdfff ? '\u0000' : String.fromCharCode(code))).join('');
  return new Map(RUN_SCRIPTS.map((script) => [script, bmp.match(new RegExp(`[\\p{Script=${script}}&&[\\p{L}\\p{N}\\p{P}\\p{S}]]`, 'gv')) ?? []]));
}

/**
 * The UTF-8 bytes of `text` with each character of the BMP counted by the
 * longest of itself, its NFC and its NFKC form: what a byte-level tokenizer
 * that normalises first (Qwen NFC, the public Claude tokenizer NFKC) can
 * emit at most, and so the estimator's UTF-8 cap.
 */
export function normalizedUtf8Bytes(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const own = Buffer.byteLength(character, 'utf8');
    bytes += character.length > 1 ? own : Math.max(own, Buffer.byteLength(character.normalize('NFC'), 'utf8'), Buffer.byteLength(character.normalize('NFKC'), 'utf8'));
  }
  return bytes;
}

/**
 * A run of each character of every script of `scriptCharacters`, 200 of it
 * (corpus `runs`; about `RUNS_PER_SCRIPT` characters, spread over their code
 * points, of the scripts that have more), and blocks of 16 neighbouring Common characters, repeated
 * to some 200 characters (corpus `blocks`). Runs of a few characters were
 * all a fit saw before, and a run of one no tokenizer merges with itself
 * cost up to ten times what its class's repeat weight charged. Blocks of
 * the scripts' letters are left out: no language writes them, and a fit
 * held to them charged Hindi prose six times its count.
 */
const RUNS_PER_SCRIPT = 400;

function addScriptRuns(add: AddItems): void {
  for (const [script, characters] of scriptCharacters()) {
    const step = Math.max(1, Math.floor(characters.length / RUNS_PER_SCRIPT));
    for (let index = 0; index < characters.length; index += step) add('runs', `${script} ${JSON.stringify(characters[index])}`, [characters[index]!.repeat(200)]);
    if (script !== 'Common') continue;
    for (let index = 0; index + 16 <= characters.length; index += 16) add('blocks', `${script} ${index}`, [characters.slice(index, index + 16).join('').repeat(13)]);
  }
}

/** Adds the non-empty texts as items of one corpus and conversation. */
type AddItems = (corpus: string, conversation: string, texts: readonly string[]) => void;

/** The combining diacritical marks, U+0300 to U+036F. */
const COMBINING_MARKS = range(0x300, 0x36f).map((code) => String.fromCharCode(code));

/**
 * What terminals and files put in tool outputs: test-runner output coloured
 * with ANSI escapes, progress bars redrawn with carriage returns, CRLF line
 * ends, short lines of words, code identifiers in every case style,
 * tab-indented code, tab-separated tables, NUL-separated paths, form feeds.
 */
function addTerminalItems(addItems: AddItems, random: () => number, prose: readonly string[], codeSources: readonly string[]): void {
  const add = (conversation: string, texts: readonly string[]) => addItems('terminal', conversation, texts);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const words = (prose.join(' ').match(/[a-z]{3,}/g) ?? ['value', 'state', 'parse']).slice(0, 2_000);
  const path = () => `src/${pick(words)}/${pick(words)}${pick(['.test.ts', '.ts', '.js', '.py', '.go'])}`;
  const escape = (codes: string) => `\u001b[${codes}m`;
  const colours = ['0', '1', '2', '22', '31', '32', '33', '36', '39', '90', '1;31', '38;5;208', '4'];
  const coloured = (count: number) =>
    Array.from({ length: count }, (_, index) => {
      const passed = random() > 0.2;
      const line = `${escape(passed ? '32' : '31')}${passed ? '✓' : '✗'}${escape('39')} ${pick(words)} ${pick(words)} ${escape('90')}(${Math.floor(random() * 900)}ms)${escape('0')}`;
      return index % 5 === 0 ? `${escape('1')}${escape(pick(colours))} ${passed ? 'PASS' : 'FAIL'} ${escape('22')}${path()}` : line;
    }).join('\n');
  add('ansi colours', [coloured(20), coloured(60), coloured(200)]);
  const spinner = (count: number) => Array.from({ length: count }, (_, index) => `\u001b[2K\u001b[1G${'⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[index % 10]} ${pick(words)} ${index}/${count}`).join('');
  add('ansi redraw', [spinner(30), spinner(120)]);
  const bar = (count: number) => Array.from({ length: count }, (_, index) => `\r[${'#'.repeat(index % 40)}${' '.repeat(40 - (index % 40))}] ${(index * 2.5).toFixed(1)}% ${Math.floor(random() * 9_999)} kB/s`).join('');
  add('carriage returns', [bar(20), bar(80)]);
  add('crlf', prose.slice(0, 40).map((text) => text.replace(/\n/g, '\r\n')));
  add('crlf code', codeSources.slice(0, 30).map((source) => source.replace(/\n/g, '\r\n')));
  add('tab-indented code', codeSources.slice(0, 60).map((source) => source.replace(/^( {2})+/gm, (indent) => '\t'.repeat(indent.length / 2))));
  const table = (rows: number) =>
    Array.from({ length: rows }, (_, index) => [index, pick(words), (random() * 1_000).toFixed(2), random() > 0.5 ? 'true' : 'false', pick(words).toUpperCase()].join('\t')).join('\n');
  add('tab-separated', [table(15), table(60), table(300)]);
  const lines = (separator: string) =>
    words.slice(0, 600).reduce<string[][]>((rows, word) => {
      const row = rows.at(-1);
      if (row && row.length < 2 + ((rows.length * 7) % 5)) row.push(word);
      else rows.push([word]);
      return rows;
    }, []).map((row) => row.join(' ')).join(separator);
  add('short lines', [lines('\n'), lines('\r\n')]);
  for (let style = 0; style < IDENTIFIER_STYLES; style += 1) {
    const names = Array.from({ length: 120 }, () => identifierOf(Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(words)), style));
    add('identifiers', [names.join('.'), names.join(', '), names.join('\n')]);
  }
  addShortWordIdentifiers(add);
  add('nul-separated', [Array.from({ length: 40 }, path).join('\u0000'), Array.from({ length: 200 }, path).join('\u0000')]);
  add('form feeds', [prose.slice(0, 8).join('\f\n'), prose.slice(8, 20).join('\n\u000b')]);
}

/**
 * Identifiers made of a few short words a vocabulary holds whole (each word
 * one token, `stateValue, valueParseValue, ...`): denser in tokens than
 * identifiers of prose words, and an o200k count ran 7% over the estimate
 * on a comma-separated list of them. Their own random source, so the items
 * before and after them stay as they were.
 */
function addShortWordIdentifiers(add: (conversation: string, texts: readonly string[]) => void): void {
  const random = randomSource(24);
  for (const [name, words] of [
    ['three words', ['value', 'state', 'parse']],
    ['code words', ['get', 'set', 'value', 'name', 'user', 'id', 'list', 'item', 'data', 'type', 'key', 'count', 'index', 'next', 'node', 'file']],
  ] as const) {
    const pick = () => words[Math.floor(random() * words.length)]!;
    for (let style = 0; style < IDENTIFIER_STYLES; style += 1) {
      const names = Array.from({ length: 120 }, () => identifierOf(Array.from({ length: 2 + Math.floor(random() * 3) }, pick), style));
      add(`identifiers of ${name}`, [names.join('.'), names.join(', '), names.join('\n'), names.join(' ')]);
    }
  }
}

/** The case styles of `identifierOf`: camelCase, PascalCase, snake_case, UPPER_SNAKE. */
const IDENTIFIER_STYLES = 4;

/** An identifier of `parts` in case style `style` (0 to `IDENTIFIER_STYLES` - 1). */
function identifierOf(parts: readonly string[], style: number): string {
  const capitalised = (word: string) => word[0]!.toUpperCase() + word.slice(1);
  if (style === 0) return parts[0]! + parts.slice(1).map(capitalised).join('');
  if (style === 1) return parts.map(capitalised).join('');
  if (style === 2) return parts.join('_');
  return parts.join('_').toUpperCase();
}

/**
 * Text in forms older systems write: Korean and Vietnamese decomposed (NFD,
 * as macOS file names hold them), half-width katakana, full-width Latin
 * prose and numbers, polytonic Greek, and letters under stacks of combining
 * marks.
 */
function addLegacyFormItems(addItems: AddItems, random: () => number, prose: readonly string[]): void {
  const add = (conversation: string, texts: readonly string[]) => addItems('legacy-forms', conversation, texts);
  for (const locale of ['ko', 'vi']) {
    const phrases = localePhrases(locale).flat().map((phrase) => phrase.normalize('NFD'));
    add(`${locale} decomposed`, itemsOf(phrases, (chunk) => chunk.join(' ')));
  }
  // Half-width katakana: the inverse of what NFKC does to U+FF66..U+FF9F.
  const halfWidth = new Map<string, string>();
  for (let code = 0xff66; code <= 0xff9d; code += 1) halfWidth.set(String.fromCharCode(code).normalize('NFKC'), String.fromCharCode(code));
  const katakana = localePhrases('ja').flat().filter((phrase) => /^[\p{Script=Katakana}ー・\s]+$/u.test(phrase));
  add('half-width katakana', itemsOf(katakana.map((phrase) => [...phrase].map((character) => halfWidth.get(character) ?? character).join('')), (chunk) => chunk.join(' ')));
  const toFullWidth = (text: string) => text.replace(/[!-~]/g, (character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0));
  add('full-width prose', [...prose.slice(0, 20).map(toFullWidth), ...prose.slice(20, 30).map((text) => toFullWidth(text.toUpperCase()))]);
  add('full-width numbers', [Array.from({ length: 80 }, () => toFullWidth(`No.${Math.floor(random() * 99_999)} ${(random() * 100).toFixed(2)}%`)).join('、')]);
  // Polytonic Greek (Greek Extended, which the encoders split into bytes): modern Greek phrases given
  // breathings and accents as older texts write them.
  const breathing = (word: string) => word.replace(/^([αεηιουωΑΕΗΙΟΥΩ])/u, (vowel) => `${vowel}${random() > 0.5 ? '\u0313' : '\u0314'}`);
  const accent = () => ['\u0301', '\u0300', '\u0342'][Math.floor(random() * 3)]!; // acute, grave, circumflex
  const subscript = (word: string) => (random() > 0.8 ? word.replace(/([αηω])$/u, '$1\u0345') : word); // iota subscript
  const polytonic = (phrase: string) => phrase.normalize('NFD').replace(/\u0301/g, accent).split(' ').map((word) => subscript(breathing(word))).join(' ').normalize('NFC');
  add('polytonic greek', itemsOf(localePhrases('el').flat().map(polytonic), (chunk) => chunk.join(' ')));
  // And running polytonic prose: short words with breathings, accents and iota subscripts (written for this corpus).
  const ancient = [
    'ὁ γεωργὸς ἕωθεν εἰς τὸν ἀγρὸν ἔρχεται, καὶ οἱ παῖδες αὐτῷ ἕπονται.',
    'ἐν τῇ πόλει πολλοὶ ἄνθρωποι ἦσαν, καὶ ἡ ἀγορὰ μεστὴ ἦν σίτου καὶ οἴνου.',
    'ὅτε δὲ ἡ ναῦς εἰς τὸν λιμένα ἀφίκετο, οἱ ναῦται τὰ ἱστία ἔλυσαν.',
    'ὁ διδάσκαλος τοῖς μαθηταῖς τὴν ὁδὸν δείκνυσι καὶ περὶ τῆς ἀρετῆς λέγει.',
    'ἡ θάλαττα ἤρεμος ἦν, καὶ ὁ ἥλιος ἐπὶ τὰ ὄρη ἔλαμπεν.',
    'οὐκ ἔστιν οὐδὲν κρεῖττον φίλου ἀληθινοῦ ἐν ταῖς χαλεπαῖς ἡμέραις.',
  ];
  add('polytonic greek prose', [ancient.join(' '), [...ancient.slice(2), ...ancient.slice(0, 2)].join(' ')]);
  const stacked = (text: string) => [...text].map((character) => (/\p{L}/u.test(character) ? character + Array.from({ length: 1 + Math.floor(random() * 6) }, () => COMBINING_MARKS[Math.floor(random() * COMBINING_MARKS.length)]).join('') : character)).join('');
  add('stacked marks', prose.slice(0, 10).map((text) => stacked(text.slice(0, 300))));
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, index) => first + index);
}

/** A few thousand characters of ICU text in many scripts (for base64 and hex of real UTF-8). */
function icuCorpusSample(): string {
  return [...localesByScript().values()].map((locale) => localePhrases(locale)[1]!.slice(0, 6).join(' ')).join('\n');
}

/** Where Debian installs compiled gettext catalogs (`<locale>/LC_MESSAGES/<domain>.mo`). */
export const GETTEXT_ROOT = '/usr/share/locale';

/**
 * The translated messages of one compiled gettext catalog (`.mo`): the
 * header, then a table of (length, offset) pairs whose strings are the
 * translations; plural forms are NUL-separated. Read by hand: only the
 * translation table is needed, which a parser library would not shorten.
 */
export function gettextMessages(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 20) return [];
  const magic = view.getUint32(0, true);
  const little = magic === 0x950412de;
  if (!little && magic !== 0xde120495) return [];
  const count = view.getUint32(8, little);
  const table = view.getUint32(16, little);
  const decoder = new TextDecoder();
  const messages: string[] = [];
  for (let index = 0; index < count && table + index * 8 + 8 <= bytes.byteLength; index += 1) {
    const length = view.getUint32(table + index * 8, little);
    const offset = view.getUint32(table + index * 8 + 4, little);
    if (offset + length > bytes.byteLength) continue;
    const text = decoder.decode(bytes.subarray(offset, offset + length));
    if (text.length > 0 && !text.startsWith('Project-Id-Version')) messages.push(...text.split('\0'));
  }
  return messages;
}

/** One compiled catalog: its locale folder, its domain (the file name) and its bytes. */
export interface GettextCatalog {
  readonly locale: string;
  readonly domain: string;
  readonly bytes: Uint8Array;
}

/** Every catalog under `root` (`<locale>/LC_MESSAGES/<domain>.mo`), read in place; none where the folder is absent. */
export function readGettextCatalogs(root = GETTEXT_ROOT): GettextCatalog[] {
  const catalogs: GettextCatalog[] = [];
  if (!existsSync(root)) return catalogs;
  for (const locale of readdirSync(root).sort()) {
    const folder = join(root, locale, 'LC_MESSAGES');
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder).sort()) {
      // ISO code lists are names, which the ICU corpus already has.
      if (file.endsWith('.mo') && !file.startsWith('iso_')) catalogs.push({ locale, domain: file.slice(0, -3), bytes: readFileSync(join(folder, file)) });
    }
  }
  return catalogs;
}

/**
 * Natural translated prose in every language with a catalog (program
 * messages: sentences, help text with aligned columns, format strings): at
 * most `perCatalog` items of about 400 characters from each catalog, spread
 * over it. One conversation per catalog.
 */
export function gettextCorpus(catalogs: readonly GettextCatalog[], perCatalog = 6): CorpusItem[] {
  const items: CorpusItem[] = [];
  for (const { locale, domain, bytes } of catalogs) {
    const runs = itemsOf(gettextMessages(bytes), (chunk) => chunk.join('\n'));
    const step = Math.max(1, Math.floor(runs.length / perCatalog));
    for (let index = 0; index < runs.length && index < perCatalog * step; index += step) {
      items.push({ corpus: 'gettext', conversation: `${locale}/${domain}`, text: runs[index]! });
    }
  }
  return items;
}
