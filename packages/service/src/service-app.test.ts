import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunDirectory, RunSummary } from './run-directory.js';
import type { RunRequest } from './run-workflows.js';
import { createServiceApp, type TraceViewer } from './service-app.js';

const TOKEN = 'test-token-7f3a';

function fixture(viewer?: TraceViewer) {
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
  };
  let ids = 0;
  const app = createServiceApp({
    runs: directory,
    runLog: {
      events: async () => [{ sequence: 1, event: { type: 'text-delta', text: 'hi' } }, { sequence: 2, event: { type: 'run-finished', stopReason: 'completed' } }],
      traces: async () => [{ turn: 1, recoveryAttempt: 0, body: { turn: 1 } }],
    },
    profiles: ['steps'],
    models: ['scripted-service'],
    token: TOKEN,
    maxBodyBytes: 1_024,
    newRunId: () => `run_${(ids += 1)}`,
    viewer,
  });
  const request = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token !== null) headers.set('authorization', `Bearer ${init.token ?? TOKEN}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    return app.request(`http://127.0.0.1${path}`, { ...init, headers });
  };
  return { app, request, enqueued, runs, cancelled };
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

test('the trace viewer: a run page that follows the run; a browser may carry the token in the query, only there', async () => {
  const pages: Array<{ traces: readonly unknown[]; followUrl: string }> = [];
  const viewer: TraceViewer = { page: async (traces, followUrl) => (pages.push({ traces, followUrl }), '<!doctype html><title>viewer</title>'), turns: (traces) => ({ turns: traces.length }) };
  const { app, request } = fixture(viewer);
  const created = await request('/runs', { method: 'POST', body: JSON.stringify({ profile: 'steps', model: 'scripted-service', prompt: 'go' }) });
  const { id } = (await created.json()) as { id: string };
  const page = await app.request(`http://127.0.0.1/runs/${id}/view?token=${TOKEN}`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  assert.deepEqual(pages.at(-1), { traces: [{ turn: 1 }], followUrl: `/runs/${id}/view/turns.json?token=${TOKEN}` });
  const byHeader = await request(`/runs/${id}/view`);
  assert.equal(byHeader.status, 200);
  assert.equal(pages.at(-1)!.followUrl, `/runs/${id}/view/turns.json`);
  const turns = await app.request(`http://127.0.0.1/runs/${id}/view/turns.json?token=${TOKEN}`);
  assert.deepEqual(await turns.json(), { turns: 1 });
  await assertError(await app.request(`http://127.0.0.1/runs/${id}/view`), 401, 'UNAUTHORIZED');
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
