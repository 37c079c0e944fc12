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

/** Every numeric setting beside the cap: its STRATA_ name, its alias, the configuration field, a valid value. */
const SETTINGS = [
  ['STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT', 'SCIENCE_AGENT_CONTEXT_COMPACTION_PRESSURE_PERCENT', 'compactionPressurePercent', '90'],
  ['STRATA_CONTEXT_COMPACTION_RETAIN_PERCENT', 'SCIENCE_AGENT_CONTEXT_COMPACTION_RETAIN_PERCENT', 'compactionRetainPercent', '30'],
  ['STRATA_CONTEXT_SUMMARY_RETRIES', 'SCIENCE_AGENT_CONTEXT_SUMMARY_RETRIES', 'summaryRetries', '3'],
  ['STRATA_CONTEXT_TOOL_PREVIEW_CHARS', 'SCIENCE_AGENT_CONTEXT_TOOL_PREVIEW_CHARS', 'toolPreviewChars', '600'],
  ['STRATA_CONTEXT_PROMPT_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_PROMPT_BUDGET_TOKENS', 'systemPromptTokens', '4000'],
  ['STRATA_CONTEXT_SECTION_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_SECTION_BUDGET_TOKENS', 'sectionTokens', '800'],
  ['STRATA_CONTEXT_DATA_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_DATA_BUDGET_TOKENS', 'contributedMessageTokens', '1500'],
  ['STRATA_CONTEXT_ATTACHMENT_BUDGET_TOKENS', 'SCIENCE_AGENT_CONTEXT_ATTACHMENT_BUDGET_TOKENS', 'attachmentTokens', '2500'],
  ['STRATA_CONTEXT_CONTRIBUTED_MESSAGES', 'SCIENCE_AGENT_CONTEXT_CONTRIBUTED_MESSAGES', 'contributedMessages', '6'],
  ['STRATA_CONTEXT_CONTRIBUTED_MESSAGE_TOKENS', 'SCIENCE_AGENT_CONTEXT_CONTRIBUTED_MESSAGE_TOKENS', 'contributedMessageSizeTokens', '400'],
  ['STRATA_CONTEXT_WINDOW_MESSAGES', 'SCIENCE_AGENT_CONTEXT_WINDOW_MESSAGES', 'windowMessages', '200'],
  ['STRATA_CONTEXT_WINDOW_ROUNDS', 'SCIENCE_AGENT_CONTEXT_WINDOW_ROUNDS', 'windowRounds', '40'],
] as const;

for (const [strata, alias, field, value] of SETTINGS) {
  test(`${strata} (alias ${alias}) reads a positive integer into ${field}; anything else names the variable`, () => {
    assert.equal(resolveContextConfiguration({ [strata]: value })[field], Number(value));
    assert.equal(resolveContextConfiguration({ [alias]: value })[field], Number(value));
    for (const [name, bad] of [[strata, '0'], [alias, 'ten'], [strata, '2.5']] as const) {
      assert.throws(
        () => resolveContextConfiguration({ [name]: bad }),
        (error: unknown) => ConfigurationError.isInstance(error) && error.setting === name && error.message.includes(`${name} must be a positive integer, got "${bad}"`),
      );
    }
    assert.throws(() => resolveContextConfiguration({ [strata]: value, [alias]: `${value}1` }), /disagree/);
  });
}

test('the pressure percent is at most 100; retain must be below pressure (given or default)', () => {
  assert.throws(() => resolveContextConfiguration({ STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT: '101' }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT' && /between 1 and 100, got 101/.test(error.message));
  assert.equal(resolveContextConfiguration({ STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT: '100' }).compactionPressurePercent, 100);
  assert.throws(
    () => resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_COMPACTION_PRESSURE_PERCENT: '60', SCIENCE_AGENT_CONTEXT_COMPACTION_RETAIN_PERCENT: '60' }),
    (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'SCIENCE_AGENT_CONTEXT_COMPACTION_RETAIN_PERCENT' && /must be below SCIENCE_AGENT_CONTEXT_COMPACTION_PRESSURE_PERCENT \(60\)/.test(error.message),
  );
  assert.throws(() => resolveContextConfiguration({ STRATA_CONTEXT_COMPACTION_RETAIN_PERCENT: '95' }), /must be below STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT \(default\) \(90\)/);
});

test('the reserve must be below the max, naming both', () => {
  assert.throws(
    () => resolveContextConfiguration({ STRATA_MODEL_MAX_TOKENS: '8000', STRATA_OUTPUT_RESERVE_TOKENS: '8000' }),
    (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_OUTPUT_RESERVE_TOKENS' && /STRATA_OUTPUT_RESERVE_TOKENS \(8000\) must be smaller than STRATA_MODEL_MAX_TOKENS \(8000\)/.test(error.message),
  );
});

test("the model's own context limit seeds the model max; the environment wins", () => {
  const seeded = resolveContextConfiguration({}, { modelContextTokens: 32_768 });
  assert.equal(seeded.modelMaxTokens, 32_768);
  assert.equal(resolveContextBudget(seeded).inputCapTokens, 32_768 - 8_192, 'a reserve of a quarter of a small model by default');
  assert.equal(resolveContextConfiguration({ MODEL_MAX_TOKENS: '64000' }, { modelContextTokens: 32_768 }).modelMaxTokens, 64_000);
});

test('the budget settings reach the resolved budget', () => {
  const configuration = resolveContextConfiguration({
    STRATA_CONTEXT_WINDOW_TOKENS: '10000',
    STRATA_CONTEXT_COMPACTION_PRESSURE_PERCENT: '50',
    STRATA_CONTEXT_PROMPT_BUDGET_TOKENS: '3000',
    STRATA_CONTEXT_SECTION_BUDGET_TOKENS: '500',
    STRATA_CONTEXT_DATA_BUDGET_TOKENS: '700',
    STRATA_CONTEXT_ATTACHMENT_BUDGET_TOKENS: '900',
    STRATA_CONTEXT_CONTRIBUTED_MESSAGES: '4',
    STRATA_CONTEXT_CONTRIBUTED_MESSAGE_TOKENS: '200',
  });
  assert.deepEqual(resolveContextBudget(configuration), {
    inputCapTokens: 10_000,
    systemPromptTokens: 3_000,
    attachmentTokens: 900,
    contributedMessageTokens: 700,
    pressureTokens: 5_000,
    sectionTokens: 500,
    contributedMessages: 4,
    contributedMessageSizeTokens: 200,
  });
});

test('STRATA_REDACT_TOOL_OUTPUTS turns the provider-side redaction of tool outputs off with 0; unset leaves the default; anything else names the variable', () => {
  assert.equal(resolveContextConfiguration({ STRATA_REDACT_TOOL_OUTPUTS: '0' }).redactToolOutputs, false);
  assert.equal(resolveContextConfiguration({ STRATA_REDACT_TOOL_OUTPUTS: 'on' }).redactToolOutputs, true);
  assert.equal('redactToolOutputs' in resolveContextConfiguration({}), false);
  assert.throws(() => resolveContextConfiguration({ STRATA_REDACT_TOOL_OUTPUTS: 'maybe' }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'STRATA_REDACT_TOOL_OUTPUTS');
});
