import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StrataError } from '@strata/context';
import { ContextOverflowError } from './context-overflow-error.js';
import { ProviderError } from './provider-error.js';
import { ProviderFailureError } from './provider-failure-error.js';
import { RateLimitError } from './rate-limit-error.js';
import { TransientProviderError } from './transient-provider-error.js';

const details = { provider: 'openai.chat', statusCode: 500, responseBody: '{"error":"x"}', message: 'failed', cause: new Error('root') };
const failures = [
  { type: ProviderError, error: new ProviderError(details) },
  { type: RateLimitError, error: new RateLimitError({ ...details, retryAfterMs: 250 }) },
  { type: TransientProviderError, error: new TransientProviderError({ ...details, retryAfterMs: 500 }) },
  { type: ContextOverflowError, error: new ContextOverflowError({ ...details, requestedTokens: 9, limitTokens: 8 }) },
] as const;

test('each provider failure matches its own isInstance and instanceof, never a sibling', () => {
  for (const { type, error } of failures) {
    for (const { type: other } of failures) {
      assert.equal(other.isInstance(error), other === type, `${other.name}.isInstance(${error.name})`);
      assert.equal(error instanceof other, other === type, `${error.name} instanceof ${other.name}`);
    }
    assert.equal(error.name, type.name);
  }
});

test('the base carries the shared fields and matches every provider failure', () => {
  for (const { error } of failures) {
    assert.ok(ProviderFailureError.isInstance(error));
    assert.ok(error instanceof ProviderFailureError);
    assert.ok(StrataError.isInstance(error));
    assert.equal(error.kind, 'provider');
    assert.equal(error.provider, 'openai.chat');
    assert.equal(error.statusCode, 500);
    assert.equal(error.responseBody, '{"error":"x"}');
    assert.equal((error.cause as Error).message, 'root');
  }
  assert.equal(ProviderFailureError.isInstance(new StrataError({ name: 'Other', kind: 'provider', message: 'x' })), false);
  assert.equal(failures[1].error.retryAfterMs, 250);
  assert.equal(failures[2].error.retryAfterMs, 500);
  assert.equal(failures[3].error.limitTokens, 8);
});
