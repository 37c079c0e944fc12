import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeProviderOptions, reasoningProviderOptions } from './reasoning-provider-options.js';

test('reasoning controls map to each provider its own way', () => {
  assert.deepEqual(reasoningProviderOptions('openai.chat', { effort: 'high' }), { openai: { reasoningEffort: 'high' } });
  assert.deepEqual(reasoningProviderOptions('openai.responses', { budgetTokens: 3000 }), { openai: { reasoningEffort: 'low' } });
  assert.deepEqual(reasoningProviderOptions('anthropic.messages', { effort: 'medium' }), { anthropic: { thinking: { type: 'enabled', budgetTokens: 16_384 } } });
  assert.deepEqual(reasoningProviderOptions('anthropic.messages', { budgetTokens: 2048, effort: 'high' }), { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } });
  assert.deepEqual(reasoningProviderOptions('anthropic.messages', { enabled: true }), { anthropic: { thinking: { type: 'enabled', budgetTokens: 16_384 } } });
  assert.deepEqual(reasoningProviderOptions('anthropic.messages', { enabled: false, effort: 'high' }), { anthropic: { thinking: { type: 'disabled' } } });
  assert.deepEqual(reasoningProviderOptions('openai-compatible.chat', { effort: 'minimal' }), { 'openai-compatible': { reasoningEffort: 'minimal' } });
  assert.deepEqual(reasoningProviderOptions('openai.chat', { enabled: false }), {});
  assert.deepEqual(reasoningProviderOptions('openai.chat', undefined), {});
  assert.deepEqual(reasoningProviderOptions('anthropic.messages', {}), {});
});

test('provider options merge per provider key, later layers winning field by field', () => {
  assert.deepEqual(
    mergeProviderOptions({ openai: { a: 1, b: 1 } }, undefined, { openai: { b: 2 }, anthropic: { c: 3 } }),
    { openai: { a: 1, b: 2 }, anthropic: { c: 3 } },
  );
});
