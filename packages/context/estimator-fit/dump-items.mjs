// Dumps every corpus item the estimator profiles are fitted on: its kind-pair counts
// and exact o200k / cl100k counts. Run after `npx tsc -b`: node dump-items.mjs items.json
// (../shared is read in place; nothing is copied).
import { createRequire } from 'node:module';
import { writeFileSync, readFileSync } from 'node:fs';
const require = createRequire(new URL('../package.json', import.meta.url));
const o200k = (await import(require.resolve('gpt-tokenizer/encoding/o200k_base'))).default;
const cl100k = (await import(require.resolve('gpt-tokenizer/encoding/cl100k_base'))).default;
const { countKindPairs } = await import('../dist/character-classes.js');
const { icuCorpus, mixedScriptCorpus, stressCorpus, gettextCorpus, readGettextCatalogs } = await import('../dist/estimator-corpus.js');
const ctx = await import('../dist/index.js');
process.env.STRATA_SHARED_DIR ??= new URL('../../../../shared', import.meta.url).pathname;
const testing = await import('@strata/testing');
const opts = { disallowedSpecial: new Set() };
const items = [];
const shared = testing.loadAllSharedConversations();
for (const c of shared) {
  const corpus = c.source.startsWith('swe-agent') ? 'swe-agent' : c.source;
  for (const m of c.messages) items.push({ corpus, conversation: `${c.source}#${c.index}`, text: ctx.messageText(m) });
}
const lines = readFileSync(`${process.env.STRATA_SHARED_DIR}/data/llama-factory/reason_tool_use_demo_50.jsonl`, 'utf8').split('\n').filter(Boolean);
lines.forEach((line, index) => { for (const m of JSON.parse(line).messages) items.push({ corpus: 'reason_tool_use', conversation: `r#${index}`, text: m.content.map((p) => p.value).join('\n') }); });
const prose = testing.loadAlpacaConversations('alpaca_en_demo.json').slice(0, 200).map((c) => c.messages.map(ctx.messageText).join('\n'));
const code = Object.values(ctx).filter((v) => typeof v === 'function').map(String);
items.push(...icuCorpus(), ...mixedScriptCorpus(), ...stressCorpus({ prose, codeSources: code }), ...gettextCorpus(readGettextCatalogs()));
const out = items.map((i) => ({ corpus: i.corpus, conversation: i.conversation, len: i.text.length, o: o200k.countTokens(i.text, opts), c: cl100k.countTokens(i.text, opts), bytes: Buffer.byteLength(i.text), pairs: Object.fromEntries(countKindPairs(i.text)) }));
writeFileSync(process.argv[2] ?? 'items.json', JSON.stringify(out));
console.log(out.length);
