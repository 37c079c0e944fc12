import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ConservativeTokenEstimator } from '@strata/context';
import { applySegmentPolicy, formatSegmentPolicy, parseSegmentPolicy, type SegmentPolicy } from './segment-policy.js';
import { CODE_POINT_ESTIMATOR, entriesOf } from './testing/fixtures.js';

const stream = entriesOf([
  ['运行.事件流', '第1轮：林晚关上药房的灯。\n第2轮：门铃响了。'],
  ['运行.事件流', '第3轮：一个湿透的男人走进来。'],
  ['运行.事件流', '第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。'],
]);

function contents(policy: string, estimator = CODE_POINT_ESTIMATOR) {
  const parsed = parseSegmentPolicy(policy) as SegmentPolicy;
  return applySegmentPolicy(stream, { policy: parsed, estimator, subject: '运行.事件流' }).entries.map((entry) => entry.content);
}

test('policy names parse and print back', () => {
  for (const name of ['latest', 'concat', 'tail_lines_80', 'tail_tokens_2000', 'last_15_turns']) {
    assert.equal(formatSegmentPolicy(parseSegmentPolicy(name) as SegmentPolicy), name);
  }
  for (const bad of ['', 'newest', 'tail_lines_0', 'tail_lines_-1', 'tail_lines_', 'tail_tokens_1.5', 'last_0_turns', 'tail_lines_08']) {
    assert.equal(parseSegmentPolicy(bad), undefined, bad);
  }
});

test('latest keeps the newest entry of the pattern; concat keeps all, oldest first', () => {
  assert.deepEqual(contents('latest'), ['第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。']);
  assert.deepEqual(contents('concat'), [
    '第1轮：林晚关上药房的灯。\n第2轮：门铃响了。',
    '第3轮：一个湿透的男人走进来。',
    '第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。',
  ]);
  assert.deepEqual(contents('last_2_turns'), ['第3轮：一个湿透的男人走进来。', '第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。']);
});

test('tail_lines_N keeps the last N lines, cutting the oldest kept entry at a line', () => {
  assert.deepEqual(contents('tail_lines_4'), [
    '第2轮：门铃响了。',
    '第3轮：一个湿透的男人走进来。',
    '第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。',
  ]);
  assert.deepEqual(contents('tail_lines_2'), ['第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。']);
  assert.deepEqual(contents('tail_lines_1'), ['第5轮：林晚看了看钟。']);
  assert.equal(contents('tail_lines_99').length, 3);
});

test('tail_tokens_N cuts at a CJK line boundary, never inside a line', () => {
  // Code-point counts: "第5轮：林晚看了看钟。" = 11, "第4轮：他要一盒安眠药。" = 12,
  // "第3轮：一个湿透的男人走进来。" = 15.
  assert.deepEqual(contents('tail_tokens_11'), ['第5轮：林晚看了看钟。']);
  assert.deepEqual(contents('tail_tokens_22'), ['第5轮：林晚看了看钟。']);
  assert.deepEqual(contents('tail_tokens_23'), ['第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。']);
  assert.deepEqual(contents('tail_tokens_38'), ['第3轮：一个湿透的男人走进来。', '第4轮：他要一盒安眠药。\n第5轮：林晚看了看钟。']);
});

test('tail_tokens_N cuts inside the newest line only when no whole line fits, and says so', () => {
  const parsed = parseSegmentPolicy('tail_tokens_4') as SegmentPolicy;
  const result = applySegmentPolicy(stream, { policy: parsed, estimator: CODE_POINT_ESTIMATOR, subject: '运行.事件流' });
  assert.deepEqual(result.entries.map((entry) => entry.content), ['看了看钟。'.slice(-4)]);
  assert.deepEqual(result.diagnostics.map((diagnostic) => diagnostic.code), ['BLACKBOARD_POLICY_TRIMMED', 'BLACKBOARD_POLICY_LINE_CUT']);
});

test('tail_tokens_N with the conservative estimator: a line-aligned suffix within budget (property)', () => {
  const estimator = new ConservativeTokenEstimator();
  const line = fc.stringMatching(/^[一-龥a-z，。 ]{1,12}$/);
  fc.assert(
    fc.property(fc.array(fc.array(line, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 80 }), (texts, budget) => {
      const entries = entriesOf(texts.map((lines) => ['运行.事件流', lines.join('\n')] as const));
      const result = applySegmentPolicy(entries, { policy: { kind: 'tail_tokens', tokens: budget }, estimator, subject: 's' });
      const kept = result.entries.map((entry) => entry.content).join('\n');
      const all = texts.flat().join('\n');
      assert.equal(all.endsWith(kept), true);
      assert.ok(estimator.countText(kept) <= budget);
      const lineCut = result.diagnostics.some((diagnostic) => diagnostic.code === 'BLACKBOARD_POLICY_LINE_CUT');
      if (!lineCut && kept.length > 0 && kept.length < all.length) assert.equal(all[all.length - kept.length - 1], '\n');
    }),
  );
});
