/**
 * The adapter's tests against the oldest LangChain its peer ranges admit:
 * `langchain` 1.0.6 (`langchain-oldest`) with `@langchain/core` 1.0.5, the
 * core it asks for (`@langchain/core-oldest`), and the `@langchain/langgraph`
 * and `-checkpoint` 1.0.0 of its day (`…-oldest`). Every import of those
 * packages in this process (the adapter's, the tests', @strata/testing's and
 * LangChain's own) is sent to those copies, then the test files run as they
 * run against the newest (the workspace's). Skipped with a notice where they
 * are not installed.
 *
 * The floor is 1.0.6: on langchain 1.0.1 an agent given a thread_id without a
 * checkpointer fails in LangChain itself ("No checkpointer set").
 * Without `langchain-oldest` only the message converters (langchain-history.ts)
 * run on the oldest core: the middleware needs `langchain`, and the workspace's
 * asks for a newer core in its own peer range; a check below says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { installedVersion, redirectPackages } from '@strata/testing/package-redirects';

const OLDEST_CORE = '1.0.5';
const OLDEST_LANGCHAIN = '1.0.6';

const core = installedVersion('@langchain/core-oldest');
const langchain = installedVersion('langchain-oldest');
if (core === undefined) {
  test('LangChain core oldest (1.0.5): not installed (`@langchain/core-oldest`), skipped', { skip: true }, () => undefined);
} else {
  const redirects: Array<[string, string]> = [['@langchain/core', '@langchain/core-oldest']];
  // langchain's oldest with the LangGraph releases of its day (the workspace's newer LangGraph asks for a newer core).
  if (langchain !== undefined) redirects.push(['langchain', 'langchain-oldest'], ['@langchain/langgraph', '@langchain/langgraph-oldest'], ['@langchain/langgraph-checkpoint', '@langchain/langgraph-checkpoint-oldest']);
  redirectPackages(redirects);
  test(`LangChain oldest: the tests below run against @langchain/core ${core}${langchain === undefined ? '' : ` and langchain ${langchain}`}`, async () => {
    assert.equal(core, OLDEST_CORE);
    const used = (await import('@langchain/core/messages')) as { AIMessage: unknown };
    const given = (await import('@langchain/core-oldest/messages')) as { AIMessage: unknown };
    assert.equal(used.AIMessage, given.AIMessage, 'the adapter and the tests load the oldest core');
    if (langchain !== undefined) {
      assert.equal(langchain, OLDEST_LANGCHAIN);
      const alias = 'langchain-oldest'; // a root development dependency, absent from this package's types
      assert.equal(((await import('langchain')) as { createAgent: unknown }).createAgent, ((await import(alias)) as { createAgent: unknown }).createAgent, 'and the oldest langchain');
    }
  });
  if (langchain === undefined) {
    const installed = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('langchain/package.json'), 'utf8')) as { version: string; peerDependencies?: Record<string, string> };
    test(`LangChain oldest: the middleware's tests are skipped: \`langchain-oldest\` (langchain ${OLDEST_LANGCHAIN}) is not installed, and langchain ${installed.version} asks for @langchain/core ${installed.peerDependencies?.['@langchain/core'] ?? '?'}`, { skip: true }, () => undefined);
    test('LangChain oldest: the workspace langchain does not load on the oldest core (else its middleware tests belong here)', async () => {
      await assert.rejects(import('langchain'), (error: unknown) => (error as { code?: unknown }).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED');
    });
  } else {
    await import('./strata-langchain.test.js');
    await import('./strata-langchain.usage.test.js');
  }
  await import('./langchain-history.shared-data.test.js');
}
