import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { ConservativeTokenEstimator, estimateTextTokens, ESTIMATOR_PROFILES } from './conservative-token-estimator.js';
import { messageText } from './message-text.js';
import { loadAllSharedConversations } from '@strata/testing';

const conversations = loadAllSharedConversations();
const exactCounters = { o200k: (text: string) => o200k.countTokens(text), cl100k: (text: string) => cl100k.countTokens(text) };

for (const family of ['o200k', 'cl100k'] as const) {
  test(`${family} profile never under-counts the real data, and over-counts little`, { skip: conversations ? false : '../shared is absent' }, () => {
    const estimator = new ConservativeTokenEstimator({ family });
    const exact = exactCounters[family];
    const overCounts: number[] = [];
    let worstMessage = { ratio: Infinity, where: '' };
    for (const conversation of conversations!) {
      let estimated = 0;
      let counted = 0;
      conversation.messages.forEach((message, index) => {
        const text = messageText(message);
        const estimate = estimator.countText(text);
        const real = exact(text);
        estimated += estimate;
        counted += real;
        if (text.length >= 200) {
          const ratio = estimate / real;
          if (ratio < worstMessage.ratio) worstMessage = { ratio, where: `${conversation.source}#${conversation.index} message ${index}` };
          assert.ok(estimate >= real, `${conversation.source}#${conversation.index} message ${index}: estimated ${estimate} < exact ${real}`);
        }
      });
      assert.ok(estimated >= counted, `${conversation.source}#${conversation.index}: estimated ${estimated} < exact ${counted}`);
      if (counted > 0) overCounts.push(estimated / counted - 1);
    }
    overCounts.sort((a, b) => a - b);
    const median = overCounts[Math.floor(overCounts.length / 2)]!;
    console.log(`# ${family}: ${overCounts.length} conversations; median over-count ${(median * 100).toFixed(1)}%; worst message ratio ${worstMessage.ratio.toFixed(3)} (${worstMessage.where}); worst conversation ratio ${(1 + overCounts[0]!).toFixed(3)}`);
    assert.ok(median <= 0.45, `median over-count ${median} exceeds 45%`);
  });
}

test('the unknown profile is at least every known profile, class by class', () => {
  for (const name of Object.keys(ESTIMATOR_PROFILES.unknown) as Array<keyof typeof ESTIMATOR_PROFILES.unknown>) {
    assert.ok(ESTIMATOR_PROFILES.unknown[name] >= ESTIMATOR_PROFILES.o200k[name], name);
    assert.ok(ESTIMATOR_PROFILES.unknown[name] >= ESTIMATOR_PROFILES.cl100k[name], name);
  }
});

test('an estimate never exceeds the UTF-8 byte count bound and is zero for empty text', () => {
  assert.equal(estimateTextTokens('', ESTIMATOR_PROFILES.unknown), 0);
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
      const estimate = estimateTextTokens(text, ESTIMATOR_PROFILES.unknown);
      assert.ok(estimate >= 0);
      assert.ok(estimate <= 4 * text.length);
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
