/**
 * The adapter's tests against the oldest LangChain core its peer range admits
 * (1.0.0, installed at the root as `@langchain/core-oldest`): every import of
 * `@langchain/core/…` in this process (the adapter's, the tests' and
 * `langchain`'s own) is sent to that copy, then the test files that can run
 * on it run as they run against the newest (the workspace's
 * `@langchain/core`). Skipped with a notice where it is not installed.
 *
 * The message converters (langchain-history.ts) run here. The middleware's
 * files do not: they need the `langchain` package, and the installed one asks
 * for a newer core than 1.0.0 in its own peer range (it imports
 * `@langchain/core/utils/context`, absent from 1.0.0), as the tests'
 * `fakeModel` does (`@langchain/core/testing`). Running them on the oldest
 * needs the oldest `langchain` 1.x installed beside it; until then they are
 * skipped with that notice, and the check below fails the day the installed
 * `langchain` accepts this core (so they are added here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const OLDEST = '1.0.0';

function oldestVersion(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve('@langchain/core-oldest/package.json');
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

const oldest = oldestVersion();
if (oldest === undefined) {
  test('LangChain core oldest (1.0.0): not installed (`@langchain/core-oldest`), skipped', { skip: true }, () => undefined);
} else {
  const hooks = `export async function resolve(specifier, context, next) {
    if (specifier === '@langchain/core' || specifier.startsWith('@langchain/core/')) return next('@langchain/core-oldest' + specifier.slice('@langchain/core'.length), context);
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
  test(`LangChain core oldest: the tests below run against @langchain/core ${oldest}`, async () => {
    assert.equal(oldest, OLDEST);
    const core = (await import('@langchain/core/messages')) as { AIMessage: unknown };
    const given = (await import('@langchain/core-oldest/messages')) as { AIMessage: unknown };
    assert.equal(core.AIMessage, given.AIMessage, 'the adapter and the tests load the oldest copy');
  });
  const langchain = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('langchain/package.json'), 'utf8')) as { version: string; peerDependencies?: Record<string, string> };
  const wanted = langchain.peerDependencies?.['@langchain/core'] ?? '';
  test(`LangChain core oldest: the middleware's tests are skipped, langchain ${langchain.version} (installed) asks for @langchain/core ${wanted}`, { skip: true }, () => undefined);
  test('LangChain core oldest: the installed langchain does not load on it (else its middleware tests belong here)', async () => {
    await assert.rejects(import('langchain'), (error: unknown) => (error as { code?: unknown }).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED');
  });
  await import('./langchain-history.shared-data.test.js');
}
