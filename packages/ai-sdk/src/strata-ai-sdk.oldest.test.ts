/**
 * The adapter's tests against the oldest AI SDK its peer range admits (6.0.0,
 * installed at the root as `ai-oldest`, with its own `@ai-sdk/provider` 3.0.0
 * and `@ai-sdk/provider-utils` 4.0.0): every import of `ai` or `ai/…` in this
 * process (the adapter's and the tests') is sent to that copy, then the test
 * files run as they run against the newest (the workspace's `ai`). Skipped
 * with a notice where it is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installedVersion, redirectPackages } from '@strata/testing/package-redirects';

const OLDEST = '6.0.0';

const oldest = installedVersion('ai-oldest');
if (oldest === undefined) {
  test('AI SDK oldest (6.0.0): not installed (`ai-oldest`), skipped', { skip: true }, () => undefined);
} else {
  redirectPackages([['ai', 'ai-oldest']]);
  test(`AI SDK oldest: the tests below run against ai ${oldest}`, async () => {
    assert.equal(oldest, OLDEST);
    const ai = (await import('ai')) as { streamText: unknown };
    const given = (await import('ai-oldest')) as { streamText: unknown };
    assert.equal(ai.streamText, given.streamText, 'the adapter and the tests load the oldest copy');
  });
  await import('./strata-ai-sdk.test.js');
  await import('./strata-ai-sdk.usage.test.js');
  await import('./strata-ai-sdk.loops.test.js');
  await import('./strata-ai-sdk.images.test.js');
  await import('./ai-sdk-history.shared-data.test.js');
}
