// Estimator throughput against gpt-tokenizer's countTokens on first-sight text
// (its merge cache cleared before each pass, as with new tool output). Rounds
// alternate between the two, and each side's figure is its fastest pass: on a
// shared machine the fastest pass is the one least disturbed by other
// processes and by the other side's garbage collection.
// Accuracy on every corpus is asserted and printed by the estimator's tests.
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { ConservativeTokenEstimator, messageText } from '@strata/context';
import { loadAlpacaConversations, loadTauBenchConversations } from '@strata/testing';
import { table } from './measure.js';

const ROUNDS = 5;
const PASSES_PER_ROUND = 3;
/** The speed-up on first sight the estimator must keep (issue 14). */
const FIRST_SIGHT_TARGET = 20;

function corpus(name: 'alpaca_en_demo.json' | 'alpaca_zh_demo.json'): string[] | undefined {
  return loadAlpacaConversations(name)?.flatMap((conversation) => conversation.messages.map(messageText));
}

/** Seconds of one pass of `count` over `texts`. */
function seconds(texts: readonly string[], count: (text: string) => number): number {
  const start = performance.now();
  let sink = 0;
  for (const text of texts) sink += count(text);
  if (sink < 0) throw new Error('unreachable');
  return (performance.now() - start) / 1000;
}

export async function run(): Promise<void> {
  const english = corpus('alpaca_en_demo.json');
  const chinese = corpus('alpaca_zh_demo.json');
  const toolOutput = loadTauBenchConversations()?.flatMap((conversation) => conversation.messages.filter((message) => message.role === 'tool').map(messageText));
  if (!english || !chinese || !toolOutput) {
    console.log('skipped: ../shared is absent');
    return;
  }
  const rows = [];
  for (const [name, texts] of [['English prose (alpaca en)', english], ['Chinese prose (alpaca zh)', chinese], ['JSON tool output (tau-bench)', toolOutput]] as const) {
    const megabytes = texts.reduce((total, text) => total + Buffer.byteLength(text), 0) / 1e6;
    for (const [family, encoder] of [['o200k', o200k], ['cl100k', cl100k]] as const) {
      const estimator = new ConservativeTokenEstimator({ family });
      let ours = Infinity;
      let peer = Infinity;
      for (let round = 0; round < ROUNDS; round += 1) {
        for (let pass = 0; pass < PASSES_PER_ROUND; pass += 1) ours = Math.min(ours, seconds(texts, (text) => estimator.countText(text)));
        for (let pass = 0; pass < PASSES_PER_ROUND; pass += 1) {
          encoder.clearMergeCache();
          peer = Math.min(peer, seconds(texts, (text) => encoder.countTokens(text)));
        }
      }
      const speedUp = peer / ours;
      rows.push({
        text: name,
        family,
        'strata MB/s': (megabytes / ours).toFixed(1),
        'gpt-tokenizer first-sight MB/s': (megabytes / peer).toFixed(2),
        'speed-up (first sight)': `${speedUp.toFixed(1)}x`,
        [`at least ${FIRST_SIGHT_TARGET}x`]: speedUp >= FIRST_SIGHT_TARGET ? 'yes' : 'no',
      });
    }
  }
  table(rows);
}
