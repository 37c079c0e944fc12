import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveContextBudget } from './context-configuration.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { chooseCounter, EXACT_COUNT_CAP_SHARE } from './counting-policy.js';
import { ExactTokenEstimator } from './exact-token-estimator.js';

const estimator = new ConservativeTokenEstimator({ family: 'o200k' });
const exactEstimator = new ExactTokenEstimator({ family: 'o200k' });

test('exact counts decide from the lower of the pressure line and the exact share of the cap', () => {
  const cases = [
    // The pressure line (90% of 10,000) is above the exact share (85%): the share decides.
    { pressureRatio: 0.9, exactCapShare: undefined, threshold: 8_500 },
    // The pressure line (50%) is below the share: the pressure line decides.
    { pressureRatio: 0.5, exactCapShare: undefined, threshold: 5_000 },
    { pressureRatio: 0.9, exactCapShare: 0.6, threshold: 6_000 },
    { pressureRatio: 0.7, exactCapShare: 0.95, threshold: 7_000 },
  ];
  for (const { pressureRatio, exactCapShare, threshold } of cases) {
    const budget = resolveContextBudget({ inputCapTokens: 10_000, pressureRatio });
    const choose = (estimatedTokens: number) => chooseCounter({ estimator, exactEstimator, budget, exactCapShare, estimatedTokens });
    assert.equal(choose(threshold - 1), estimator, `pressure ${pressureRatio}, share ${exactCapShare}: just below ${threshold}`);
    assert.equal(choose(threshold), exactEstimator, `pressure ${pressureRatio}, share ${exactCapShare}: at ${threshold}`);
  }
  assert.equal(EXACT_COUNT_CAP_SHARE, 0.85);
});

test('without an exact counter the estimate always decides', () => {
  const budget = resolveContextBudget({ inputCapTokens: 10_000 });
  assert.equal(chooseCounter({ estimator, budget, estimatedTokens: 1_000_000 }), estimator);
});
