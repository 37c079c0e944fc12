import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveContextBudget, resolveContextConfiguration } from './context-configuration.js';
import { ConfigurationError } from './errors/configuration-error.js';

test('defaults: dynamic mode, trace off, cap = max − reserve', () => {
  const configuration = resolveContextConfiguration({});
  assert.deepEqual(configuration, { mode: 'dynamic', trace: false, modelMaxTokens: 128_000, outputReserveTokens: 16_384 });
  assert.equal(resolveContextBudget(configuration).inputCapTokens, 128_000 - 16_384);
});

test('the window setting caps the input when smaller; STRATA_ forms work beside the documented names', () => {
  const configuration = resolveContextConfiguration({ STRATA_CONTEXT_MODE: 'shadow', SCIENCE_AGENT_CONTEXT_TRACE: '1', SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: '8192', MODEL_MAX_TOKENS: '200000', OUTPUT_RESERVE_TOKENS: '8000' });
  assert.equal(configuration.mode, 'shadow');
  assert.equal(configuration.trace, true);
  assert.equal(resolveContextBudget(configuration).inputCapTokens, 8192);
  assert.equal(resolveContextBudget({ ...configuration, contextWindowTokens: 500_000 }).inputCapTokens, 192_000);
});

for (const [name, value] of [['MODEL_MAX_TOKENS', '12k'], ['OUTPUT_RESERVE_TOKENS', '-5'], ['SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS', '0'], ['STRATA_CONTEXT_WINDOW_TOKENS', '1.5']] as const) {
  test(`${name}=${value} is a clear error naming the variable`, () => {
    assert.throws(
      () => resolveContextConfiguration({ [name]: value }),
      (error: unknown) => ConfigurationError.isInstance(error) && error.setting === name && error.message.includes(`${name} must be a positive integer, got "${value}"`),
    );
  });
}

test('an unknown mode is a clear error naming the variable and the choices', () => {
  assert.throws(() => resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_MODE: 'turbo' }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'SCIENCE_AGENT_CONTEXT_MODE' && /dynamic, shadow, legacy, got "turbo"/.test(error.message));
});

test('conflicting documented and STRATA_ values are an error', () => {
  assert.throws(() => resolveContextConfiguration({ MODEL_MAX_TOKENS: '1000', STRATA_MODEL_MAX_TOKENS: '2000' }), /disagree/);
});
