import { test } from 'node:test';
import { startChatTestServer } from '@strata/testing';
import { loadServiceCatalog } from './service-catalog-loader.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { CliIo } from '../cli-io.js';
import { runCli } from '../run-cli.js';

function io(env: Record<string, string | undefined>): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) }, env, cwd: process.cwd() };
}

test('strata worker, serve and migrate refuse bad input with one line and exit code 2', async () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['worker'], { STRATA_SERVICE_DATABASE_URL: 'postgres://x@127.0.0.1:9/x' }, /--slot is required/],
    [['worker', '--slot', '0'], { STRATA_SERVICE_DATABASE_URL: 'postgres://x@127.0.0.1:9/x' }, /--slot must be a positive integer/],
    [['serve'], { STRATA_SERVICE_DATABASE_URL: 'postgres://x@127.0.0.1:9/x', STRATA_MODEL: 'openai:gpt-4.1' }, /STRATA_SERVICE_TOKEN/],
    [['migrate'], {}, /STRATA_SERVICE_DATABASE_URL/],
    [['worker', '--slot', '1'], { STRATA_SERVICE_DATABASE_URL: 'postgres://x@127.0.0.1:9/x' }, /--catalog FILE or STRATA_MODEL/],
    [['worker', '--slot', '1'], { STRATA_SERVICE_DATABASE_URL: 'postgres://x@127.0.0.1:9/x', STRATA_MODEL: 'openai:gpt-4.1' }, /OPENAI_API_KEY/],
  ];
  for (const [args, env, message] of cases) {
    const cli = io(env);
    assert.equal(await runCli(args, cli), 2, args.join(' '));
    assert.match(cli.err.join(''), message);
    assert.equal(cli.err.join('').trim().split('\n').length, 1);
  }
});

const url = process.env.STRATA_TEST_POSTGRES_URL;
if (!url) console.log('# notice: strata migrate test skipped: STRATA_TEST_POSTGRES_URL is not set; .ci/run sets it');
test('strata migrate creates the run service tables', { skip: url ? false : 'STRATA_TEST_POSTGRES_URL is not set' }, async () => {
  const prefix = `cli_${randomBytes(5).toString('hex')}`;
  const env = { STRATA_SERVICE_DATABASE_URL: url!, STRATA_SERVICE_SYSTEM_SCHEMA: `${prefix}_dbos`, STRATA_SERVICE_STORE_SCHEMA: `${prefix}_store`, STRATA_SERVICE_SCHEMA: prefix };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const cli = io(env);
    assert.equal(await runCli(['migrate'], cli), 0, cli.err.join(''));
    const tables = (await client.query<{ name: string }>(`SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_schema LIKE $1`, [`${prefix}%`])).rows.map((row) => row.name);
    for (const expected of [`${prefix}.strata_run_events`, `${prefix}.strata_run_traces`, `${prefix}_store.strata_sessions`, `${prefix}_store.strata_tool_outputs`, `${prefix}_dbos.workflow_status`]) {
      assert.ok(tables.includes(expected), `${expected} in ${tables.join(', ')}`);
    }
  } finally {
    for (const schema of [`${prefix}_dbos`, `${prefix}_store`, prefix]) await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await client.end();
  }
});

test("the worker's default catalog counts and sizes its model as strata run does: the family's estimate and the window the server says", async () => {
  const server = await startChatTestServer({ wire: 'openai', reply: () => ({ text: 'ok' }), models: [{ id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 12_288 }] });
  try {
    const written: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (text: string) => written.push(text) }, env: { STRATA_MODEL: `openai-compatible:${server.baseURL}#Qwen/Qwen3-8B`, STRATA_MODEL_MAX_TOKENS: '32000' }, cwd: process.cwd() };
    const catalog = await loadServiceCatalog(undefined, io);
    assert.equal(catalog.configuration.modelMaxTokens, 32_000, 'the environment wins');
    assert.match(written.join(''), /WINDOW_LARGER_THAN_SERVER: .*12288/, 'and the worker says the server accepts less');
    assert.equal(catalog.counting?.('x').estimator?.family, 'qwen');
    const discovered = await loadServiceCatalog(undefined, { ...io, env: { STRATA_MODEL: io.env.STRATA_MODEL } });
    assert.equal(discovered.configuration.modelMaxTokens, 12_288);
  } finally {
    await server.close();
  }
});
