// Dumps every corpus item the estimator profiles are fitted on: its kind-pair counts and
// its exact count by every reference tokenizer that is installed (see @strata/testing's
// REFERENCE_TOKENIZERS). Run after `npx tsc -b`: node dump-items.mjs items.json [previous.json]
// (../shared is read in place; nothing is copied). Each item keeps its text, so a dump after a
// change of the character classes or the corpora takes the counts of the texts a previous dump
// already counted (the tokenizers are most of the time) and counts only the new ones.
import { writeFileSync, readFileSync } from 'node:fs';
// ../shared beside the repository, unless STRATA_SHARED_DIR says where it is (a worktree elsewhere).
process.env.STRATA_SHARED_DIR ??= new URL('../../../../shared', import.meta.url).pathname;
const { countKindPairs } = await import('../dist/character-classes.js');
const context = await import('../dist/index.js');
const testing = await import('@strata/testing');
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
items.push(...testing.icuCorpus(), ...testing.mixedScriptCorpus(), ...testing.stressCorpus({ prose, codeSources }), ...testing.proseCorpus(), ...testing.gettextCorpus(testing.readGettextCatalogs()));
const previous = new Map(process.argv[3] ? JSON.parse(readFileSync(process.argv[3], 'utf8')).map((item) => [item.text, item.counts]) : []);
const countsOf = (text) => {
  const known = previous.get(text);
  if (known !== undefined && Object.keys(counters).every((name) => Object.hasOwn(known, name))) return known;
  return Object.fromEntries(Object.entries(counters).map(([name, count]) => [name, count(text)]));
};
const out = items.map((item) => ({
  corpus: item.corpus,
  conversation: item.conversation,
  text: item.text,
  len: item.text.length,
  bytes: Buffer.byteLength(item.text),
  counts: countsOf(item.text),
  pairs: Object.fromEntries(countKindPairs(item.text)),
}));
writeFileSync(process.argv[2] ?? 'items.json', JSON.stringify(out));
console.log(out.length);
