import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimitError } from './errors/rate-limit-error.js';
import { TransientProviderError } from './errors/transient-provider-error.js';
import { RETRY_DEFAULTS, abortableSleep, retryDelayMs } from './retry-policy.js';

test('delays grow exponentially, follow the provider hint, and never pass the cap', () => {
  const retry = { ...RETRY_DEFAULTS, initialDelayMs: 100, backoffFactor: 2, maxDelayMs: 1000 };
  const transient = new TransientProviderError({ provider: 'p', message: 'x' });
  assert.deepEqual([1, 2, 3, 4, 5].map((attempt) => retryDelayMs({ attempt, error: transient, retry })), [100, 200, 400, 800, 1000]);
  assert.equal(retryDelayMs({ attempt: 1, error: new RateLimitError({ provider: 'p', message: 'x', retryAfterMs: 350 }), retry }), 350);
  assert.equal(retryDelayMs({ attempt: 1, error: new RateLimitError({ provider: 'p', message: 'x', retryAfterMs: 90_000 }), retry }), 1000);
  assert.equal(retryDelayMs({ attempt: 3, error: new RateLimitError({ provider: 'p', message: 'x', retryAfterMs: 0 }), retry }), 0);
});

test('the default sleep ends early with the signal reason', async () => {
  await abortableSleep(0, new AbortController().signal);
  const controller = new AbortController();
  const sleeping = abortableSleep(3_600_000, controller.signal);
  controller.abort(new Error('cancelled'));
  await assert.rejects(sleeping, /cancelled/);
  await assert.rejects(abortableSleep(10, AbortSignal.abort(new Error('already'))), /already/);
});
