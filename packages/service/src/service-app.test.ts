import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunLog } from './run-log.js';
import type { RunDirectory, RunSummary } from './run-directory.js';
import type { RunRequest } from './run-workflows.js';
import { createServiceApp, type ServiceFailure, type TraceViewer } from './service-app.js';
import { BAD_RUN_IDS, PER_RUN_ROUTES } from './testing/bad-requests.js';

const TOKEN = 'test-token-7f3a';

function fixture(viewer?: TraceViewer, overrides: { runs?: Partial<RunDirectory>; runLog?: Partial<Pick<RunLog, 'events' | 'traces'>> } = {}) {
  const failures: ServiceFailure[] = [];
  const enqueued: RunRequest[] = [];
  const runs = new Map<string, RunSummary>();
  const cancelled: string[] = [];
  const directory: RunDirectory = {
    enqueue: async (request) => {
      enqueued.push(request);
      runs.set(request.runId, { id: request.runId, status: 'queued', profile: request.profile, model: request.model, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
    },
    get: async (runId) => runs.get(runId),
    list: async ({ status }) => [...runs.values()].filter((run) => status === undefined || run.status === status),
    cancel: async (runId) => void cancelled.push(runId),
    send: async () => 'sent',
    close: async () => undefined,
    ...overrides.runs,
  };
  let ids = 0;
  const app = createServiceApp({
    runs: directory,
    runLog: {
      events: async () => [{ sequence: 1, event: { type: 'text-delta', text: 'hi' } }, { sequence: 2, event: { type: 'run-finished', stopReason: 'completed' } }],
      traces: async () => [{ turn: 1, recoveryAttempt: 0, body: { turn: 1 } }],
      ...overrides.runLog,
    },
    profiles: ['steps'],
    models: ['scripted-service'],
    token: TOKEN,
    maxBodyBytes: 1_024,
    newRunId: () => `run_${(ids += 1)}`,
    viewer,
    onFailure: (failure) => void failures.push(failure),
  });
  const request = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token !== null) headers.set('authorization', `Bearer ${init.token ?? TOKEN}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    return app.request(`http://127.0.0.1${path}`, { ...init, headers });
  };
  return { app, request, enqueued, runs, cancelled, failures };
}

async function assertError(response: Response, status: number, code: string): Promise<void> {
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string } };
  assert.equal(body.error.code, code);
  assert.ok(body.error.message.length > 0);
}

test('service API: bad input is a 4xx JSON error with a code and a message, and nothing is enqueued', async () => {
  const { request, enqueued } = fixture();
  await assertError(await request('/runs', { method: 'POST', body: '{"profile": "steps", "prompt": ' }), 400, 'MALFORMED_JSON');
  await assertError(await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'x'.repeat(2_000) }) }), 413, 'BODY_TOO_LARGE');
  await assertError(await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'nobody', prompt: 'hello' }) }), 400, 'UNKNOWN_PROFILE');
  await assertError(await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'hello', model: 'gpt-0' }) }), 400, 'UNKNOWN_MODEL');
  await assertError(await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: '   ' }) }), 400, 'INVALID_REQUEST');
  await assertError(await request('/runs', { method: 'POST', body: '[1, 2]' }), 400, 'INVALID_REQUEST');
  await assertError(await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'hello' }), token: null }), 401, 'UNAUTHORIZED');
  await assertError(await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'hello' }), token: 'wrong' }), 401, 'UNAUTHORIZED');
  await assertError(await request('/runs/run_missing'), 404, 'RUN_NOT_FOUND');
  await assertError(await request('/runs/run_missing/cancel', { method: 'POST' }), 404, 'RUN_NOT_FOUND');
  await assertError(await request('/runs/run_missing/messages', { method: 'POST', body: JSON.stringify({ approved: true }) }), 404, 'RUN_NOT_FOUND');
  await assertError(await request('/runs?status=sleeping'), 400, 'INVALID_REQUEST');
  await assertError(await request('/nowhere'), 404, 'NOT_FOUND');
  assert.deepEqual(enqueued, []);
});

test('service API: a run is enqueued with its profile, model and prompt; read, listed, cancelled, its traces and events served', async () => {
  const { request, enqueued, runs, cancelled } = fixture();
  const created = await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'steps t1 2' }) });
  assert.equal(created.status, 202);
  assert.deepEqual(await created.json(), { id: 'run_1', status: 'queued' });
  assert.deepEqual(enqueued, [{ runId: 'run_1', profile: 'steps', model: 'scripted-service', prompt: 'steps t1 2' }]);
  assert.equal(((await (await request('/runs/run_1')).json()) as RunSummary).profile, 'steps');
  assert.deepEqual(((await (await request('/runs?status=queued')).json()) as { runs: RunSummary[] }).runs.map((run) => run.id), ['run_1']);
  assert.deepEqual(((await (await request('/runs?status=succeeded')).json()) as { runs: RunSummary[] }).runs, []);
  assert.deepEqual(await (await request('/runs/run_1/traces')).json(), { id: 'run_1', traces: [{ turn: 1, recoveryAttempt: 0, body: { turn: 1 } }] });
  const events = await request('/runs/run_1/events');
  assert.match(events.headers.get('content-type') ?? '', /text\/event-stream/);
  const text = await events.text();
  assert.match(text, /event: text-delta\ndata: \{"type":"text-delta","text":"hi"\}\nid: 1\n\n/);
  assert.match(text, /event: run-finished\ndata: .*\nid: 2\n\n$/);
  assert.equal((await request('/runs/run_1/cancel', { method: 'POST' })).status, 202);
  assert.deepEqual(cancelled, ['run_1']);
  runs.set('run_1', { ...runs.get('run_1')!, status: 'cancelled' });
  await assertError(await request('/runs/run_1/cancel', { method: 'POST' }), 409, 'RUN_FINISHED');
  await assertError(await request('/runs/run_1/messages', { method: 'POST', body: JSON.stringify({ approved: true }) }), 409, 'RUN_FINISHED');
});

test('service API: the bearer token is required', () => {
  assert.throws(() => createServiceApp({ runs: {} as RunDirectory, runLog: { events: async () => [], traces: async () => [] }, profiles: [], models: [], token: ' ' }), RangeError);
});

test('the trace viewer: a run page that follows the run by a key for that run only; the token is taken from the query there, never echoed', async () => {
  const pages: Array<{ traces: readonly unknown[]; followUrl: string }> = [];
  const viewer: TraceViewer = { page: async (traces, followUrl) => (pages.push({ traces, followUrl }), `<!doctype html><title>viewer</title><script>${JSON.stringify(followUrl)}</script>`), turns: (traces) => ({ turns: traces.length }) };
  const { app, request } = fixture(viewer);
  const ids: string[] = [];
  for (const prompt of ['go', 'again']) {
    const created = await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', model: 'scripted-service', prompt }) });
    ids.push(((await created.json()) as { id: string }).id);
  }
  const [id, other] = ids as [string, string];
  const page = await app.request(`http://127.0.0.1/runs/${id}/view?token=${TOKEN}`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(page.headers.get('cache-control'), 'no-store');
  const html = await page.text();
  assert.ok(!html.includes(TOKEN), 'the page never carries the token');
  const followUrl = pages.at(-1)!.followUrl;
  assert.deepEqual(pages.at(-1)!.traces, [{ turn: 1 }]);
  assert.match(followUrl, new RegExp(`^/runs/${id}/view/turns\\.json\\?key=[A-Za-z0-9_-]{43}$`));
  assert.ok(!followUrl.includes(TOKEN));
  const byHeader = await request(`/runs/${id}/view`);
  assert.equal(byHeader.status, 200);
  assert.equal(pages.at(-1)!.followUrl, followUrl, 'the same key, however the page was opened');
  const turns = await app.request(`http://127.0.0.1${followUrl}`);
  assert.equal(turns.headers.get('referrer-policy'), 'no-referrer');
  assert.deepEqual(await turns.json(), { turns: 1 });
  assert.deepEqual(await (await app.request(`http://127.0.0.1/runs/${id}/view/turns.json?token=${TOKEN}`)).json(), { turns: 1 });
  const key = new URL(followUrl, 'http://127.0.0.1').searchParams.get('key')!;
  await assertError(await app.request(`http://127.0.0.1/runs/${other}/view/turns.json?key=${key}`), 401, 'UNAUTHORIZED');
  await assertError(await app.request(`http://127.0.0.1/runs/${id}/view?key=${key}`), 401, 'UNAUTHORIZED');
  await assertError(await app.request(`http://127.0.0.1/runs/${id}/traces?key=${key}`), 401, 'UNAUTHORIZED');
  const refused = await app.request(`http://127.0.0.1/runs/${id}/view`);
  assert.equal(refused.headers.get('referrer-policy'), 'no-referrer');
  await assertError(refused, 401, 'UNAUTHORIZED');
  await assertError(await app.request(`http://127.0.0.1/runs/${id}/view?token=wrong`), 401, 'UNAUTHORIZED');
  await assertError(await app.request(`http://127.0.0.1/runs/${id}/traces?token=${TOKEN}`), 401, 'UNAUTHORIZED');
  await assertError(await request('/runs/nope/view'), 404, 'RUN_NOT_FOUND');
  await assertError(await fixture().request(`/runs/${id}/view`), 404, 'RUN_NOT_FOUND');
});

test('without a viewer the view route says so', async () => {
  const { request } = fixture();
  const created = await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', model: 'scripted-service', prompt: 'go' }) });
  const { id } = (await created.json()) as { id: string };
  await assertError(await request(`/runs/${id}/view`), 404, 'NOT_FOUND');
});


test('service API: a malformed run id on any per-run route is a 400 JSON error, never looked up', async () => {
  const looked: string[] = [];
  const { request, failures } = fixture({ page: async () => '', turns: () => ({}) }, { runs: { get: async (runId) => void looked.push(runId) } });
  for (const [method, suffix, body] of PER_RUN_ROUTES) {
    for (const id of BAD_RUN_IDS) {
      const response = await request(`/runs/${id}${suffix}`, { method, body });
      assert.equal(response.status, 400, `${method} /runs/${id}${suffix}`);
      await assertError(response, 400, 'INVALID_REQUEST');
    }
  }
  assert.deepEqual(looked, []);
  assert.deepEqual(failures, []);
  // At the limit and of the allowed characters: looked up, and not found.
  await assertError(await request(`/runs/${'r'.repeat(128)}`), 404, 'RUN_NOT_FOUND');
  await assertError(await request('/runs/Run_1.a:b-c'), 404, 'RUN_NOT_FOUND');
});

test('service API: bad bodies and headers on every route that reads them are 4xx JSON errors', async () => {
  const { request, enqueued } = fixture();
  await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'go' }) });
  const bodies = ['', 'null', '"text"', '42', '[]', '{', '{"a":1}{', '\u0000', JSON.stringify({ profile: 7, prompt: 'x' }), JSON.stringify({ profile: 'steps', prompt: ['x'] }), JSON.stringify({ profile: 'steps', prompt: 'x', model: null })];
  for (const body of bodies) assert.equal((await request('/runs', { method: 'POST', body })).status, 400, `POST /runs ${body}`);
  for (const body of ['', '[]', '{"approved":"yes"}', '{"approved":true,"text":5}', '{"text":"hi"}']) {
    await assertError(await request('/runs/run_1/messages', { method: 'POST', body }), 400, body === '' ? 'MALFORMED_JSON' : 'INVALID_REQUEST');
  }
  // Not UTF-8.
  await assertError(await request('/runs', { method: 'POST', body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }), 400, 'MALFORMED_JSON');
  for (const limit of ['0', '-1', '1.5', '1001', 'ten', '']) await assertError(await request(`/runs?limit=${limit}`), 400, 'INVALID_REQUEST');
  await assertError(await request('/runs?status=queued%00'), 400, 'INVALID_REQUEST');
  for (const lastEventId of ['x', '-1', '1e3', '9'.repeat(16)]) await assertError(await request('/runs/run_1/events', { headers: { 'last-event-id': lastEventId } }), 400, 'INVALID_REQUEST');
  assert.equal(enqueued.length, 1);
});

test('service API: the Bearer scheme is accepted in any case; any other scheme or an empty token is refused', async () => {
  const { app } = fixture();
  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    assert.equal((await app.request('http://127.0.0.1/runs', { headers: { authorization: `${scheme} ${TOKEN}` } })).status, 200, scheme);
  }
  for (const header of [`Basic ${TOKEN}`, 'Bearer ', `Bearer${TOKEN}`, `Token ${TOKEN}`, TOKEN]) {
    await assertError(await app.request('http://127.0.0.1/runs', { headers: { authorization: header } }), 401, 'UNAUTHORIZED');
  }
});

test('service API: a failure of the service is a 500 naming an incident, and reported with its cause', async () => {
  const cause = new Error('connection terminated');
  const failing = new Error('run directory: get failed', { cause });
  const { request, failures } = fixture(undefined, { runs: { get: async () => Promise.reject(failing) } });
  const response = await request('/runs/run_9?token=leak');
  assert.equal(response.status, 500);
  const body = (await response.json()) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'INTERNAL');
  assert.equal(failures.length, 1);
  const [failure] = failures;
  assert.equal(failure!.error, failing);
  assert.equal((failure!.error as Error).cause, cause);
  assert.deepEqual({ method: failure!.method, path: failure!.path }, { method: 'GET', path: '/runs/run_9' });
  assert.ok(body.error.message.includes(failure!.incident), 'the answer names the incident the log records');
});

test('service API: an event stream whose run log fails ends with an error event, and the failure is reported', async () => {
  const { request, failures } = fixture(undefined, { runLog: { events: async () => Promise.reject(new Error('run log read failed')) } });
  await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'go' }) });
  const text = await (await request('/runs/run_1/events')).text();
  assert.equal(failures.length, 1);
  assert.match(String(failures[0]!.error), /run log read failed/);
  assert.match(text, new RegExp(`event: error\ndata: .*incident ${failures[0]!.incident}`));
});

test('service API: a body over the limit is read to its end before the 413; past what is thrown away, the 413 closes the connection', async () => {
  const app = createServiceApp({ runs: {} as RunDirectory, runLog: { events: async () => [], traces: async () => [] }, profiles: ['steps'], models: ['m'], token: TOKEN, maxBodyBytes: 1_024, maxDiscardedBodyBytes: 8_192 });
  let pulled = 0;
  const body = (chunks: number) =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= chunks) return controller.close();
        pulled += 1;
        controller.enqueue(new Uint8Array(1_000));
      },
    });
  const post = (stream: ReadableStream<Uint8Array>) => app.request('http://127.0.0.1/runs', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: stream, duplex: 'half' } as RequestInit);
  const drained = await post(body(6));
  await assertError(drained, 413, 'BODY_TOO_LARGE');
  assert.equal(pulled, 6, 'read to its end');
  assert.equal(drained.headers.get('connection'), null);
  pulled = 0;
  const closed = await post(body(100));
  await assertError(closed, 413, 'BODY_TOO_LARGE');
  assert.ok(pulled < 100, `stopped reading after ${pulled} chunks`);
  assert.equal(closed.headers.get('connection'), 'close');
});
