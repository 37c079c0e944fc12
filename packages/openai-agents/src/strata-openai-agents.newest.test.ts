/**
 * The adapter's tests against the newest OpenAI Agents SDK that runs on
 * Node 20 (0.20, installed at the root as `@openai/agents-newest` with its
 * own `@openai/agents-core`): every import of `@openai/agents-core` in this
 * process (the adapter's and the tests') resolves to that copy, then the
 * test files run as they run against the oldest supported (0.14, the
 * workspace's `@openai/agents-core`). Skipped with a notice where it is not
 * installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const NEWEST = '0.20.0';

function newestCore(): { parentURL: string; version: string } | undefined {
  try {
    const entry = createRequire(import.meta.url).resolve('@openai/agents-newest');
    const core = createRequire(entry).resolve('@openai/agents-core');
    let directory = dirname(core);
    while (!directory.endsWith(join('@openai', 'agents-core'))) directory = dirname(directory);
    const { version } = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string };
    return { parentURL: pathToFileURL(entry).href, version };
  } catch {
    return undefined;
  }
}

const newest = newestCore();
if (newest === undefined) {
  test('OpenAI Agents SDK newest (0.20): not installed (`@openai/agents-newest`), skipped', { skip: true }, () => undefined);
} else {
  const hooks = `export async function resolve(specifier, context, next) {
    if (specifier === '@openai/agents-core' || specifier.startsWith('@openai/agents-core/')) return next(specifier, { ...context, parentURL: ${JSON.stringify(newest.parentURL)} });
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
  test(`OpenAI Agents SDK newest: the tests below run against @openai/agents-core ${newest.version}`, async () => {
    assert.equal(newest.version, NEWEST);
    const core = (await import('@openai/agents-core')) as { Agent: unknown };
    const given = (await import(pathToFileURL(createRequire(newest.parentURL).resolve('@openai/agents-core').replace(/index\.js$/, 'index.mjs')).href)) as { Agent: unknown };
    assert.equal(core.Agent, given.Agent, 'the adapter and the tests load the newest copy');
  });
  await import('./strata-openai-agents.test.js');
  await import('./strata-openai-agents.usage.test.js');
  await import('./strata-openai-agents.passthrough.test.js');
  await import('./agents-history.shared-data.test.js');
}
