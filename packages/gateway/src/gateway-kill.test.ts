// kill -9 of a gateway process while its streamed answer to the client is in flight, on SQLite and on PostgreSQL:
// the store holds every output the client sent exactly once and whole, and the client's retry through a second
// process finishes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { openStores } from '@strata/store';
import { loadProviderRules } from '@strata/testing';
import { SESSION_HEADER } from './gateway-app.js';
import { answeringUpstream, gatewayProcess, listen, recordedOutputs, type Script } from './testing/gateway-fixtures.js';

const POSTGRES_URL = process.env.STRATA_TEST_POSTGRES_URL;
// Small enough that the client's outputs are masked, so the gateway reads one back before the answer it streams.
const WINDOW = 6_000;
const SESSION = 'killed-mid-stream';
const TASK = 'TASK: find why TimeDelta serialisation rounds wrongly.';
const ANSWER = 'The fix: round the microseconds instead of truncating them.';

/** Eight tool outputs of 2-9 KB: recorded ones where ../shared is present, else our own lines. */
function clientOutputs(): string[] {
  return (recordedOutputs() ?? Array.from({ length: 8 }, (_, step) => Array.from({ length: 60 + step * 20 }, (_, line) => `step ${step} line ${line}: ${'measured value '.repeat(4)}`).join('\n'))).slice(0, 8);
}

/** The client's history: the task, then each step's call and its output. */
function history(outputs: readonly string[]): Array<Record<string, unknown>> {
  return [
    { role: 'system', content: 'You are a careful maintainer.' },
    { role: 'user', content: TASK },
    ...outputs.flatMap((output, step) => [
      { role: 'assistant', content: null, tool_calls: [{ id: `call-${step}`, type: 'function', function: { name: 'run_step', arguments: JSON.stringify({ step }) } }] },
      { role: 'tool', tool_call_id: `call-${step}`, content: output },
    ]),
  ];
}

/** The model: after the client's output it reads the first masked one (a few lines), then answers. */
const script: Script = (body, index) => {
  const last = body.messages.at(-1)!;
  const masked = body.messages.find((message) => message.role === 'tool' && typeof message.content === 'string' && message.content.startsWith('[stored output ref="'));
  const read = !String(last.tool_call_id).startsWith('read-') && masked !== undefined;
  const message = read
    ? { role: 'assistant', content: null, tool_calls: [{ id: `read-${index}`, type: 'function', function: { name: 'read_tool_output', arguments: JSON.stringify({ ref: /ref="([^"]+)"/.exec(masked.content)![1], lines: { start: 1, end: 10 } }) } }] }
    : { role: 'assistant', content: ANSWER };
  return { id: `chatcmpl-${index}`, object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message, finish_reason: read ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 900, completion_tokens: 12, total_tokens: 912 } };
};

/** Every output the client sent is stored once in the session's context, whole; and the session loads. */
async function checkStore(store: string, outputs: readonly string[], when: string): Promise<void> {
  const stores = await openStores(store);
  try {
    const entries = await stores.toolOutputs.list!(SESSION);
    for (const [step, output] of outputs.entries()) {
      const stored = entries.filter((entry) => entry.toolCallId === `call-${step}`);
      assert.equal(stored.length, 1, `${when}: call-${step} stored once (${stored.length})`);
      assert.equal((await stores.toolOutputs.get(stored[0]!.refId))?.body, output, `${when}: call-${step} whole, byte-exact`);
    }
    assert.ok(await stores.sessions.load(SESSION), `${when}: the session loads`);
  } finally {
    await stores.close();
  }
}

async function killMidStream(t: TestContext, store: string): Promise<void> {
  const rules = await loadProviderRules();
  const outputs = clientOutputs();
  // The schema made before a gateway starts (two first writers would race it).
  const setup = await openStores(store);
  await setup.sessions.load('setup');
  await setup.close();
  // The answer after the first request's read (the upstream's second request) stops after its first text piece until the test releases it.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const upstream = answeringUpstream('openai', script, async (request, event) => {
    if (request === 1 && event === 2) await released;
  });
  const upstreamUrl = await listen(upstream.server);
  t.after(() => {
    release();
    upstream.server.closeAllConnections();
    upstream.server.close();
  });
  const ask = (url: string) => fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer client-key', [SESSION_HEADER]: SESSION },
    body: JSON.stringify({ model: 'gpt-test', stream: true, messages: history(outputs), tools: [{ type: 'function', function: { name: 'run_step', description: 'Runs one step.', parameters: { type: 'object', properties: { step: { type: 'integer' } } } } }] }),
  });

  const first = await gatewayProcess(upstreamUrl, store, WINDOW);
  t.after(() => void (first.child.exitCode === null && first.child.kill('SIGKILL')));
  const response = await ask(first.url);
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let received = '';
  // In flight: the client has the answer's first piece, the upstream holds the rest.
  while (!received.includes('"content":"The fix"')) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended before the answer began: ${received}`);
    received += decoder.decode(value, { stream: true });
  }
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.child.kill('SIGKILL');
  await exited;
  const ending = await (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return 'done';
        received += decoder.decode(value, { stream: true });
      }
    } catch (error) {
      return `ended: ${(error as Error).message}`;
    }
  })();
  assert.ok(ending === 'done' || ending.startsWith('ended: '), ending);
  assert.ok(!received.includes('[DONE]') && !received.includes(ANSWER), 'the client sees the stream end before the answer did');
  release();
  assert.equal(upstream.requests.length, 2, 'the read, then the answer being streamed');
  await checkStore(store, outputs, 'after kill -9');

  // The client retries through another process on the same store: the answer comes whole.
  const second = await gatewayProcess(upstreamUrl, store, WINDOW);
  t.after(() => void (second.child.exitCode === null && second.child.kill('SIGTERM')));
  const retried = await (await ask(second.url)).text();
  const chunks = retried.split('\n\n').filter((event) => event.startsWith('data: {')).map((event) => JSON.parse(event.slice('data: '.length)) as { choices: Array<{ delta?: { content?: string; tool_calls?: Array<{ function?: { name?: string } }> } }> });
  assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join(''), ANSWER);
  assert.ok(!chunks.some((chunk) => chunk.choices[0]?.delta?.tool_calls?.some((call) => call.function?.name === 'read_tool_output')), 'the client never sees read_tool_output');
  assert.ok(retried.trimEnd().endsWith('data: [DONE]'));
  assert.equal(upstream.requests.length, 4, 'the retry read again, then answered');
  await checkStore(store, outputs, 'after the retry');
  for (const [index, body] of upstream.requests.entries()) {
    assert.ok(body.messages.some((message) => message.role === 'user' && message.content === TASK), `request ${index}: the task`);
    if (rules) assert.deepEqual(rules.violations(body.messages, 'openai'), [], `request ${index}`);
  }
}

test('SQLite: a gateway killed with kill -9 while it streams its answer to the client loses no stored output and half-writes none; the retry through a second process finishes', { timeout: 60_000 }, async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-gateway-kill-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  await killMidStream(t, `sqlite:${join(directory, 'gateway.db')}`);
});

test('PostgreSQL: a gateway killed with kill -9 while it streams its answer to the client loses no stored output and half-writes none; the retry through a second process finishes', { timeout: 60_000 }, async (t) => {
  if (!POSTGRES_URL) return t.skip('STRATA_TEST_POSTGRES_URL is not set');
  const schema = `gateway_kill_${process.pid}_${Date.now()}`;
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  t.after(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  await killMidStream(t, `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`);
});
