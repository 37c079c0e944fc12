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
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const OLDEST = '6.0.0';

function oldestVersion(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('ai-oldest/package.json');
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

const oldest = oldestVersion();
if (oldest === undefined) {
  test('AI SDK oldest (6.0.0): not installed (`ai-oldest`), skipped', { skip: true }, () => undefined);
} else {
  const hooks = `export async function resolve(specifier, context, next) {
    if (specifier === 'ai' || specifier.startsWith('ai/')) return next('ai-oldest' + specifier.slice(2), context);
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
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
