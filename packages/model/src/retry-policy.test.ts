import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimitError } from './errors/rate-limit-error.js';
import { TransientProviderError } from './errors/transient-provider-error.js';
import { RETRY_DEFAULTS, abortableSleep, retryDelayMs, retrySettings } from './retry-policy.js';

const retry = { ...RETRY_DEFAULTS, initialDelayMs: 100, backoffFactor: 2, maxDelayMs: 1000 };
const transient = new TransientProviderError({ provider: 'p', message: 'x' });

test('backoff grows exponentially with equal jitter between half and all of it, never past the cap', () => {
  const delays = (random: () => number) => [1, 2, 3, 4, 5].map((attempt) => retryDelayMs({ attempt, error: transient, retry, random }));
  assert.deepEqual(delays(() => 0), [50, 100, 200, 400, 500]);
  assert.deepEqual(delays(() => 0.5), [75, 150, 300, 600, 750]);
  assert.deepEqual(delays(() => 0.999_999), [100, 200, 400, 800, 1000]);
});

test("the provider's retry-after is followed exactly, without jitter, up to the cap", () => {
  const random = (): number => assert.fail('no jitter on a provider hint');
  assert.equal(retryDelayMs({ attempt: 1, error: new RateLimitError({ provider: 'p', message: 'x', retryAfterMs: 350 }), retry, random }), 350);
  assert.equal(retryDelayMs({ attempt: 1, error: new RateLimitError({ provider: 'p', message: 'x', retryAfterMs: 90_000 }), retry, random }), 1000);
  assert.equal(retryDelayMs({ attempt: 3, error: new RateLimitError({ provider: 'p', message: 'x', retryAfterMs: 0 }), retry, random }), 0);
  assert.equal(retryDelayMs({ attempt: 2, error: new TransientProviderError({ provider: 'p', message: 'x', retryAfterMs: 120 }), retry, random }), 120);
});

test('the default sleep ends early with the signal reason', async () => {
  await abortableSleep(0, new AbortController().signal);
  const controller = new AbortController();
  const sleeping = abortableSleep(3_600_000, controller.signal);
  controller.abort(new Error('cancelled'));
  await assert.rejects(sleeping, /cancelled/);
  await assert.rejects(abortableSleep(10, AbortSignal.abort(new Error('already'))), /already/);
});

test('retry settings fill every default, also for a field passed as undefined', () => {
  assert.deepEqual(retrySettings(), RETRY_DEFAULTS);
  assert.deepEqual(retrySettings({ maxAttempts: undefined, initialDelayMs: 5 }), { ...RETRY_DEFAULTS, initialDelayMs: 5 });
});
