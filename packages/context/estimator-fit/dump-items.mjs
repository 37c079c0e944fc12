// Dumps every corpus item the estimator profiles are fitted on: its kind-pair counts and
// its exact count by every reference tokenizer that is installed (see @strata/testing's
// REFERENCE_TOKENIZERS). Run after `npx tsc -b`: node dump-items.mjs items.json [previous.json]
// (../shared is read in place; nothing is copied). Each item keeps its text, so a dump after a
// change of the character classes or the corpora takes the counts of the texts a previous dump
// already counted (the tokenizers are most of the time) and counts only the new ones.
import { writeFileSync, readFileSync } from 'node:fs';
// ../shared beside the repository, unless STRATA_SHARED_DIR says where it is (a worktree elsewhere).
process.env.STRATA_SHARED_DIR ??= new URL('../../../../shared', import.meta.url).pathname;
const { CHARACTER_KINDS, PAIR_TABLE_SIZE, characterKindOf, countKindPairs, pairTableOf, weighText } = await import('../dist/character-classes.js');
const { KNOWN_COMMON_CHARACTERS } = await import('../dist/common-characters.generated.js');
const context = await import('../dist/index.js');
const testing = await import('@strata/testing');
const { gettextMessages } = await import('../../testing/dist/estimator-corpus.js');
const { counters, missing } = await testing.loadReferenceCounters();
if (missing.length > 0) console.error(`missing tokenizers: ${missing.join(', ')}`);
const items = [];
for (const conversation of testing.loadAllSharedConversations()) {
  const corpus = conversation.source.startsWith('swe-agent') ? 'swe-agent' : conversation.source;
  for (const message of conversation.messages) items.push({ corpus, conversation: `${conversation.source}#${conversation.index}`, text: context.messageText(message) });
}
const lines = readFileSync(`${process.env.STRATA_SHARED_DIR}/data/llama-factory/reason_tool_use_demo_50.jsonl`, 'utf8').split('\n').filter(Boolean);
lines.forEach((line, index) => {
  for (const message of JSON.parse(line).messages) items.push({ corpus: 'reason_tool_use', conversation: `reason_tool_use#${index}`, text: message.content.map((part) => part.value).join('\n') });
});
const prose = testing.loadAlpacaConversations('alpaca_en_demo.json').slice(0, 200).map((conversation) => conversation.messages.map(context.messageText).join('\n'));
const codeSources = Object.values(context).filter((value) => typeof value === 'function').map(String);
const catalogs = testing.readGettextCatalogs();
items.push(...testing.icuCorpus(), ...testing.mixedScriptCorpus(), ...testing.stressCorpus({ prose, codeSources }), ...testing.proseCorpus(), ...testing.gettextCorpus(catalogs), ...sentenceCorpus(catalogs), ...kindRuns());
/**
 * A run of 200 of each of up to KIND_RUNS characters of every kind beyond ASCII, spread over its code points, and
 * of every known Common character (corpus runs, conversations `kind ...`): the stress corpus's runs sample each
 * script, where the weights are per kind, so a small kind such as `han` (GB 2312 level 1 beyond the frequent
 * characters: a tenth of Han) was seen in some 30 runs, none of the characters o200k splits into bytes, and a run of
 * 鞠 was estimated at 405 of its 600 o200k tokens. A known Common character that does not merge with itself
 * (² x 200: 200 tokens) was estimated at 62 where the fit had not run it.
 */
function kindRuns() {
  const KIND_RUNS = 60;
  const byKind = new Map(CHARACTER_KINDS.map((kind) => [kind, []]));
  for (let code = 0x80; code < 0x10000; code += 1) {
    const character = String.fromCharCode(code);
    if ((code < 0xd800 || code > 0xdfff) && /[\p{L}\p{N}\p{P}\p{S}]/u.test(character)) byKind.get(characterKindOf(code)).push(character);
  }
  const out = [];
  const seen = new Set();
  const add = (kind, character) => {
    if (seen.has(character)) return;
    seen.add(character);
    out.push({ corpus: 'runs', conversation: `kind ${kind} ${JSON.stringify(character)}`, text: character.repeat(200) });
  };
  for (const [kind, characters] of byKind) {
    const step = Math.max(1, Math.floor(characters.length / KIND_RUNS));
    for (let index = 0; index < characters.length; index += step) add(kind, characters[index]);
  }
  for (const character of KNOWN_COMMON_CHARACTERS) add(characterKindOf(character.charCodeAt(0)), character);
  return out;
}
/**
 * Translated sentences of the catalogs in the six languages of the prose corpora (corpora sentences-<language>,
 * one conversation per catalog): the messages mostly in the language's script with at least SENTENCE_LETTERS of
 * its letters (help text, dialogs, errors: running text, not labels), joined into items of about 600 characters,
 * spread over the catalog: about SENTENCE_ITEMS per language over its catalogs, 2 to 16 per catalog (Russian has
 * some 80 catalogs here, Hindi some 12). Read in place from the machine's catalogs; nothing is copied.
 * The gettext corpus has a few runs of every catalog of every language, mostly short labels; prose fitted on
 * those alone was over-counted far more where the fit had not seen it (held-out Hindi 40-45% against 10%).
 */
function sentenceCorpus(catalogs) {
  const scripts = { hi: /[\u0900-\u097f]/gu, ru: /[\u0400-\u04ff]/gu, ar: /[\u0600-\u06ff]/gu, ko: /[\u1100-\u11ff\uac00-\ud7a3]/gu, ja: /[\u3040-\u30ff\u4e00-\u9fff]/gu, th: /[\u0e00-\u0e7f]/gu };
  const SENTENCE_LETTERS = 24, SENTENCE_ITEMS = 120, ITEM_LENGTH = 600;
  const catalogsOf = (locale) => catalogs.filter((catalog) => catalog.locale === locale).length;
  const out = [];
  for (const { locale, domain, bytes } of catalogs) {
    const script = scripts[locale];
    if (script === undefined) continue;
    const seen = new Set();
    const sentences = gettextMessages(bytes).map((text) => text.trim()).filter((text) => {
      const letters = text.match(script)?.length ?? 0;
      if (letters < SENTENCE_LETTERS || letters < 0.5 * text.replace(/\s/gu, '').length || seen.has(text)) return false;
      seen.add(text);
      return true;
    });
    const chunks = [];
    let chunk = '';
    for (const sentence of sentences) {
      chunk = chunk === '' ? sentence : `${chunk} ${sentence}`;
      if (chunk.length >= ITEM_LENGTH) { chunks.push(chunk); chunk = ''; }
    }
    const perCatalog = Math.min(16, Math.max(2, Math.ceil(SENTENCE_ITEMS / catalogsOf(locale))));
    const step = Math.max(1, Math.floor(chunks.length / perCatalog));
    for (let index = 0; index < chunks.length && index < perCatalog * step; index += step) out.push({ corpus: `sentences-${locale}`, conversation: `${locale}/${domain}`, text: chunks[index] });
  }
  return out;
}
const previous = new Map(process.argv[3] ? JSON.parse(readFileSync(process.argv[3], 'utf8')).map((item) => [item.text, item.counts]) : []);
const countsOf = (text) => {
  const known = previous.get(text);
  if (known !== undefined && Object.keys(counters).every((name) => Object.hasOwn(known, name))) return known;
  return Object.fromEntries(Object.entries(counters).map(([name, count]) => [name, count(text)]));
};
const bytesOnly = pairTableOf(new Float64Array(PAIR_TABLE_SIZE));
const out = items.map((item) => ({
  corpus: item.corpus,
  conversation: item.conversation,
  text: item.text,
  len: item.text.length,
  // The bytes of the estimator's UTF-8 cap: a character that normalisation expands counts its longer normal form.
  bytes: weighText(item.text, bytesOnly).utf8Bytes,
  counts: countsOf(item.text),
  pairs: Object.fromEntries(countKindPairs(item.text)),
}));
writeFileSync(process.argv[2] ?? 'items.json', JSON.stringify(out));
console.log(out.length);
