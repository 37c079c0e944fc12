// Measures the generated profiles on prose no fit saw (held-out-prose.mjs): per family and script, the median
// over-count of the paragraphs and every paragraph under-counted. Run after `npx tsc -b` (it reads the built
// estimator, so a refit is probed after generate-profiles.py and a build): node probe.mjs [family ...]
// Each family is measured against its own tokenizer, claude against the public Claude tokenizer and unknown
// against the largest count of every reference tokenizer, as the estimator's tests do. Exits 1 when a paragraph
// is under-counted or a median passes PROBE_LIMIT (0.4, issue 22's goal).
const { ConservativeTokenEstimator } = await import('../dist/index.js');
const testing = await import('@strata/testing');
const { heldOutProseCorpus } = await import('./held-out-prose.mjs');
const { counters, missing } = await testing.loadReferenceCounters();
if (missing.length > 0) console.error(`missing tokenizers: ${missing.join(', ')}`);
const LIMIT = Number(process.env.PROBE_LIMIT ?? '0.4');
const present = Object.values(counters);
const checks = [
  ...['o200k', 'cl100k', 'qwen', 'deepseek', 'llama3', 'llama2', 'gemma'].filter((family) => counters[family]).map((family) => ({ family, exact: counters[family] })),
  ...(counters.claudePublic ? [{ family: 'claude', exact: counters.claudePublic }] : []),
  { family: 'unknown', exact: (text) => Math.max(...present.map((count) => count(text))) },
].filter((check) => process.argv.length <= 2 || process.argv.slice(2).includes(check.family));
const items = heldOutProseCorpus();
let failed = false;
for (const { family, exact } of checks) {
  const estimator = new ConservativeTokenEstimator({ family });
  const byCorpus = new Map();
  const under = [];
  for (const item of items) {
    const estimated = estimator.countText(item.text);
    const count = exact(item.text);
    byCorpus.set(item.corpus, [...(byCorpus.get(item.corpus) ?? []), estimated / count - 1]);
    if (estimated < count) under.push(`${item.conversation} ${estimated} < ${count} (${(estimated / count).toFixed(3)})`);
  }
  const medians = [...byCorpus].map(([corpus, ratios]) => {
    const median = ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
    if (median > LIMIT) failed = true;
    return `${corpus.replace('held-out-', '')} ${(median * 100).toFixed(1)}%`;
  });
  if (under.length > 0) failed = true;
  console.log(`${family.padEnd(8)} ${medians.join('  ')}  under ${under.length}${under.length ? `: ${under.join('; ')}` : ''}`);
}
process.exit(failed ? 1 : 0);
