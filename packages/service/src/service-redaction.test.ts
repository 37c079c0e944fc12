import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CREDENTIAL_SAMPLES, credentialSampleText, leakedCredentials } from '@strata/testing';
import pg from 'pg';
import { LEAK_CANARY } from './testing/scripted-catalog.js';
import { ServiceHarness } from './testing/service-harness.js';

const url = process.env.STRATA_TEST_POSTGRES_URL;

if (url === undefined || url === '') {
  console.log('# notice: service credential redaction skipped: STRATA_TEST_POSTGRES_URL is not set (e.g. postgres://strata:strata@127.0.0.1:5432/strata_test)');
  test('service credential redaction', { skip: 'STRATA_TEST_POSTGRES_URL is not set' }, () => undefined);
} else {
  const quote = (shape: string) => CREDENTIAL_SAMPLES.find((sample) => sample.shape === shape)!.secret;
  const harness = new ServiceHarness({ url, workers: 1, leaks: { text: credentialSampleText(), quotes: [quote('OpenAI key'), quote('Anthropic key'), quote('GitHub token')] } });
  before(() => harness.start(), { timeout: 90_000 });
  after(() => harness.stop());

  /** Every row of every table of every schema of the database (DBOS's system tables included), as text, by table. */
  async function dumpDatabase(): Promise<Map<string, string>> {
    const tables = await harness.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    const dump = new Map<string, string>();
    for (const { schema, name } of tables) {
      const rows = await harness.query<{ row: string }>(`SELECT t::text AS row FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)} t`);
      dump.set(`${schema}.${name}`, rows.map((row) => row.row).join('\n'));
    }
    return dump;
  }

  test('a service run whose tool outputs, tool errors, thrown errors and model output hold every credential shape keeps none of them: not in any PostgreSQL table (DBOS step outputs included), API or SSE response, or provider request', { timeout: 120_000 }, async () => {
    const runId = await harness.createRun('leaks', 'leak k1');
    await harness.waitFor(async () => ['succeeded', 'failed', 'cancelled'].includes((await harness.run(runId)).status), { timeoutMs: 90_000, what: 'the leaking run finished' });
    const run = await harness.run(runId);
    assert.equal(run.status, 'succeeded', run.error);
    assert.match(run.outcome?.text ?? '', /^done k1; the token was \[REDACTED:github-token\]$/);

    const dump = await dumpDatabase();
    const system = harness.database.systemSchema;
    assert.ok([...dump.keys()].some((table) => table === `${system}.operation_outputs`), "DBOS's step outputs were read");
    for (const [table, text] of dump) assert.deepEqual(leakedCredentials(text), [], table);
    // The search reads what was stored: the canary the tools printed beside the credentials is in DBOS's step outputs, the session and the stored outputs.
    const withCanary = [...dump].filter(([, text]) => text.includes(LEAK_CANARY)).map(([table]) => table);
    assert.ok(withCanary.includes(`${system}.operation_outputs`), `canary in ${withCanary.join(', ')}`);
    assert.ok(withCanary.some((table) => table.startsWith(harness.database.storeSchema)), `canary in ${withCanary.join(', ')}`);
    // The thrown error's step output is a StepFailureError, its stack redacted with its message.
    const thrown = (await harness.query<{ error: string | null }>(`SELECT error FROM ${pg.escapeIdentifier(system)}.operation_outputs WHERE function_name = $1`, ['tool:call_k1_throw']))[0]?.error ?? '';
    assert.match(thrown, /StepFailureError/);
    assert.match(thrown, /\[REDACTED:private-key\]/);

    for (const path of [`/runs/${runId}`, `/runs/${runId}/traces`, `/runs/${runId}/events`]) {
      const response = await harness.api(path);
      assert.equal(response.status, 200, path);
      const body = await response.text();
      assert.deepEqual(leakedCredentials(body), [], path);
      if (path.endsWith('traces')) assert.ok(body.includes(LEAK_CANARY), 'the traces hold the tool results');
    }
    const events = await (await harness.api(`/runs/${runId}/events`)).text();
    assert.match(events, /AGENT_CREDENTIALS_REDACTED/, 'a diagnostic says what was redacted');
    // Every model input the scripted provider received (its own table, dumped above too).
    const inputs = await harness.query<{ messages: unknown }>(`SELECT messages FROM ${harness.effects}.inputs WHERE key LIKE 'k1:%'`);
    assert.equal(inputs.length, 2);
    assert.ok(JSON.stringify(inputs[1]).includes(LEAK_CANARY), 'the second request carried the tool results');
    assert.deepEqual(leakedCredentials(JSON.stringify(inputs)), []);
  });
}
