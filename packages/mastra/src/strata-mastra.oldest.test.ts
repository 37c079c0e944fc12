/**
 * The adapter's tests against the oldest Mastra its peer range admits:
 * `@mastra/core` 0.24.0 (`@mastra/core-oldest`, a root development
 * dependency). Every import of `@mastra/core` in this process (the
 * adapter's, the tests', and `@mastra/memory`'s) is sent to that copy, then
 * the test file runs as it runs against the newest 0.24 (the workspace's).
 * Skipped with a notice where it is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installedVersion, redirectPackages } from '@strata/testing/package-redirects';

const OLDEST = '0.24.0';

const oldest = installedVersion('@mastra/core-oldest');
if (oldest === undefined) {
  test(`Mastra oldest (${OLDEST}): not installed (\`@mastra/core-oldest\`), skipped`, { skip: true }, () => undefined);
} else {
  redirectPackages([['@mastra/core', '@mastra/core-oldest']]);
  test(`Mastra oldest: the tests below run against @mastra/core ${oldest}`, async () => {
    assert.equal(oldest, OLDEST);
    const alias = '@mastra/core-oldest/agent'; // a root development dependency, absent from this package's types
    const used = (await import('@mastra/core/agent')) as { Agent: unknown };
    const given = (await import(alias)) as { Agent: unknown };
    assert.equal(used.Agent, given.Agent, 'the adapter and the tests load the oldest core');
  });
  await import('./strata-mastra.test.js');
}
