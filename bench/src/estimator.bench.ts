// Estimator throughput against gpt-tokenizer's countTokens on first-sight text
// (its merge cache cleared before each pass, as with new tool output).
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { ConservativeTokenEstimator, messageText } from '@strata/context';
import { loadAlpacaConversations, loadTauBenchConversations } from '@strata/testing';
import { median, table } from './measure.js';

const PASSES = 9;

function corpus(name: 'alpaca_en_demo.json' | 'alpaca_zh_demo.json'): string[] | undefined {
  return loadAlpacaConversations(name)?.flatMap((conversation) => conversation.messages.map(messageText));
}

function megabytesPerSecond(texts: readonly string[], count: (text: string) => number, before?: () => void): number {
  const bytes = texts.reduce((total, text) => total + Buffer.byteLength(text), 0);
  const seconds: number[] = [];
  for (let pass = 0; pass < PASSES; pass += 1) {
    before?.();
    const start = performance.now();
    let sink = 0;
    for (const text of texts) sink += count(text);
    seconds.push((performance.now() - start) / 1000);
    if (sink < 0) throw new Error('unreachable');
  }
  return bytes / 1e6 / median(seconds);
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
    for (const [family, encoder] of [['o200k', o200k], ['cl100k', cl100k]] as const) {
      const estimator = new ConservativeTokenEstimator({ family });
      const ours = megabytesPerSecond(texts, (text) => estimator.countText(text));
      const peerCold = megabytesPerSecond(texts, (text) => encoder.countTokens(text), () => encoder.clearMergeCache());
      const peerWarm = megabytesPerSecond(texts, (text) => encoder.countTokens(text));
      rows.push({
        text: name,
        family,
        'strata MB/s': ours.toFixed(1),
        'gpt-tokenizer first-sight MB/s': peerCold.toFixed(2),
        'gpt-tokenizer warm MB/s': peerWarm.toFixed(2),
        'speed-up (first sight)': `${(ours / peerCold).toFixed(1)}x`,
        'speed-up (warm)': `${(ours / peerWarm).toFixed(1)}x`,
      });
    }
  }
  table(rows);
}
