import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateService } from './migrate-service.js';
import type { RunDirectory } from './run-directory.js';
import { createServiceApp, type ServiceFailure, type TraceViewer } from './service-app.js';
import { listen, startServiceServer, type ServiceServer } from './service-server.js';
import { BAD_RUN_IDS, PER_RUN_ROUTES } from './testing/bad-requests.js';

const TOKEN = `token-${randomBytes(8).toString('hex')}`;
const LIMIT_BYTES = 1_024;

async function errorOf(response: Response): Promise<{ status: number; code: string }> {
  assert.match(response.headers.get('content-type') ?? '', /application\/json/, `${response.status} is JSON`);
  const body = (await response.json()) as { error: { code: string; message: string } };
  assert.ok(body.error.message.length > 0);
  return { status: response.status, code: body.error.code };
}

test('a real server: 100 of 100 oversized bodies sent with fetch get the 413, by Content-Length or streamed, authorized or not', { timeout: 120_000 }, async () => {
  const directory: RunDirectory = { enqueue: async () => undefined, get: async () => undefined, list: async () => [], cancel: async () => undefined, send: async () => 'sent', close: async () => undefined };
  const app = createServiceApp({ runs: directory, runLog: { events: async () => [], traces: async () => [] }, profiles: ['steps'], models: ['m'], token: TOKEN, maxBodyBytes: LIMIT_BYTES });
  const { server, url } = await listen(app.fetch, { port: 0 });
  try {
    // Two MiB: large enough that the client is still sending when a server that does not read on answers (4 in 10 failed so).
    const body = JSON.stringify({ profile: 'steps', prompt: 'x'.repeat(2 * 1_048_576) });
    const outcomes = new Map<string, number>();
    const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    for (let attempt = 0; attempt < 100; attempt += 1) {
      try {
        const response = await fetch(`${url}/runs`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body });
        const { status, code } = await errorOf(response);
        count(`${status} ${code}`);
      } catch (error) {
        count(`thrown ${String((error as { cause?: { code?: string } }).cause?.code ?? error)}`);
      }
    }
    assert.deepEqual(Object.fromEntries(outcomes), { '413 BODY_TOO_LARGE': 100 });
    // Without a length: the limit is found as the body arrives.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let index = 0; index < 64; index += 1) controller.enqueue(new Uint8Array(32_768).fill(0x20));
          controller.close();
        },
      });
      const response = await fetch(`${url}/runs`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: chunks, duplex: 'half' } as RequestInit);
      assert.deepEqual(await errorOf(response), { status: 413, code: 'BODY_TOO_LARGE' });
    }
    // Refused for its token: the body is read to its end before the 401 too.
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await fetch(`${url}/runs`, { method: 'POST', headers: { authorization: 'Bearer wrong' }, body });
      assert.deepEqual(await errorOf(response), { status: 401, code: 'UNAUTHORIZED' });
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const url = process.env.STRATA_TEST_POSTGRES_URL;

if (url === undefined || url === '') {
  console.log('# notice: the API over PostgreSQL skipped: STRATA_TEST_POSTGRES_URL is not set (e.g. postgres://strata:strata@127.0.0.1:5432/strata_test); .ci/run sets it');
  test('the API over PostgreSQL', { skip: 'STRATA_TEST_POSTGRES_URL is not set' }, () => undefined);
} else {
  const prefix = `svc_api_${randomBytes(5).toString('hex')}`;
  const database = { url, systemSchema: `${prefix}_dbos`, storeSchema: `${prefix}_store`, serviceSchema: prefix };
  const failures: ServiceFailure[] = [];
  const pages: string[] = [];
  // A viewer that writes what it is given into its page, as the CLI's does.
  const viewer: TraceViewer = { page: async (traces, followUrl) => `<!doctype html><script>var data = ${JSON.stringify({ traces, followUrl }).replace(/</g, '\\u003c')}</script>`, turns: (traces) => ({ turns: traces.length }) };
  let server: ServiceServer;
  const pool = new pg.Pool({ connectionString: url, max: 2 });

  before(async () => {
    await migrateService({ database });
    server = await startServiceServer({ database, token: TOKEN, profiles: ['steps'], models: ['scripted-service'], port: 0, maxBodyBytes: LIMIT_BYTES, viewer, onFailure: (failure) => void failures.push(failure) });
  }, { timeout: 90_000 });
  after(async () => {
    await server?.close();
    for (const schema of [database.systemSchema, database.storeSchema, database.serviceSchema]) await pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await pool.end();
  });

  const call = (path: string, init: RequestInit = {}, scheme = 'Bearer') => fetch(`${server.url}${path}`, { ...init, headers: { authorization: `${scheme} ${TOKEN}`, 'content-type': 'application/json', ...init.headers } });

  test('over PostgreSQL: every malformed run id on each of the seven per-run routes is a 400 JSON error, and nothing is a 5xx', { timeout: 60_000 }, async () => {
    for (const [method, suffix, body] of PER_RUN_ROUTES) {
      for (const id of BAD_RUN_IDS) assert.deepEqual(await errorOf(await call(`/runs/${id}${suffix}`, { method, body })), { status: 400, code: 'INVALID_REQUEST' }, `${method} /runs/${id}${suffix}`);
      assert.deepEqual(await errorOf(await call(`/runs/run_nobody${suffix}`, { method, body })), { status: 404, code: 'RUN_NOT_FOUND' }, `${method} /runs/run_nobody${suffix}`);
    }
    for (const body of ['{', '[]', '{"profile":"steps","prompt":5}', '{"profile":"steps\\u0000","prompt":"x"}']) assert.equal((await call('/runs', { method: 'POST', body })).status, 400, body);
    assert.deepEqual(await errorOf(await call('/runs?status=queued%00')), { status: 400, code: 'INVALID_REQUEST' });
    assert.deepEqual(failures, []);
  });

  test('over PostgreSQL: the Bearer scheme in any case opens the API; a prompt with NUL is text like any other', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) assert.equal((await call('/runs', {}, scheme)).status, 200, scheme);
    const created = await call('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'steps a\u0000b 1' }) }, 'bearer');
    assert.equal(created.status, 202);
    const { id } = (await created.json()) as { id: string };
    assert.equal((await call(`/runs/${id}`, {}, 'bEaReR')).status, 200);
  });

  test('over PostgreSQL: the view routes send Referrer-Policy: no-referrer and the page never holds the token', async () => {
    const { id } = (await (await call('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'steps view 1' }) })).json()) as { id: string };
    const page = await fetch(`${server.url}/runs/${id}/view?token=${encodeURIComponent(TOKEN)}`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    const html = await page.text();
    pages.push(html);
    assert.ok(!html.includes(TOKEN) && !html.includes(encodeURIComponent(TOKEN)), 'the token is not in the page');
    const followUrl = /"followUrl":"([^"]+)"/.exec(html)![1]!;
    const turns = await fetch(`${server.url}${followUrl}`);
    assert.equal(turns.status, 200, 'the page follows the run without the token');
    assert.equal(turns.headers.get('referrer-policy'), 'no-referrer');
    assert.deepEqual(await turns.json(), { turns: 0 });
    const refused = await fetch(`${server.url}/runs/${id}/view`);
    assert.equal(refused.headers.get('referrer-policy'), 'no-referrer');
    assert.deepEqual(await errorOf(refused), { status: 401, code: 'UNAUTHORIZED' });
  });

  test('over PostgreSQL: a failure of the service is a 500 and is reported with its cause', async () => {
    const { id } = (await (await call('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'steps broken 1' }) })).json()) as { id: string };
    // The run log's table goes away under the running server.
    await pool.query(`ALTER TABLE ${pg.escapeIdentifier(database.serviceSchema)}.strata_run_traces RENAME TO strata_run_traces_gone`);
    try {
      const response = await call(`/runs/${id}/traces`);
      assert.deepEqual(await errorOf(response), { status: 500, code: 'INTERNAL' });
      assert.equal(failures.length, 1);
      assert.equal(failures[0]!.path, `/runs/${id}/traces`);
      assert.match(String((failures[0]!.error as { message?: unknown }).message), /strata_run_traces/);
      assert.equal((failures[0]!.error as { code?: unknown }).code, '42P01', 'the cause is the database error itself');
    } finally {
      await pool.query(`ALTER TABLE ${pg.escapeIdentifier(database.serviceSchema)}.strata_run_traces_gone RENAME TO strata_run_traces`);
      failures.length = 0;
    }
  });
}
