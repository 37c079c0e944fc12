import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import pg from 'pg';
import { createPostgresStores } from '@strata/store';
import { loadProviderRules, type ProviderRules } from '@strata/testing';
import { nextArgumentsOf } from '@strata/tools';
import { CONTEXT_HEADER, SESSION_HEADER } from './gateway-app.js';
import { gatewayProcess, listen, recordedOutputs } from './testing/gateway-fixtures.js';

const POSTGRES_URL = process.env.STRATA_TEST_POSTGRES_URL;
const CONVERSATIONS = Number(process.env.STRATA_GATEWAY_CONVERSATIONS ?? 100);
const STEPS = 6;
// Small enough that each conversation's outputs are masked after a few steps, so references are made and read.
const WINDOW = 8_000;

type Message = Record<string, any>;

const marker = (conversation: number, step: number) => `conversation C${conversation} step ${step}`;

/**
 * A scripted OpenAI chat upstream shared by both gateways: each conversation (named by its task) calls `run_step` STEPS times;
 * the first masked output it sees it reads back whole through `read_tool_output`. Every request is checked for other
 * conversations' outputs and every read-back against the conversation's own marker.
 */
function fakeUpstream(rules: ProviderRules | undefined) {
  const foreign: string[] = [];
  // Each request's violations of the provider rules (the independent oracle), for both providers.
  const invalid: string[] = [];
  const readBacks = new Map<number, string>();
  const reading = new Map<number, { ref: string; text: string }>();
  let requests = 0;
  let holdNext: ((release: () => void) => void) | undefined;
  const server = createServer(async (request, response) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    requests += 1;
    const body = JSON.parse(raw) as { model: string; messages: Message[] };
    for (const provider of ['openai', 'anthropic'] as const) {
      for (const violation of rules?.violations(body.messages, provider) ?? []) invalid.push(`request ${requests} (${provider}): ${JSON.stringify(violation)}`);
    }
    const task = body.messages.find((message) => message.role === 'user' && typeof message.content === 'string' && message.content.startsWith('TASK C'));
    if (!task) {
      foreign.push(`a request without its task: ${JSON.stringify(body.messages).slice(0, 300)}`);
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no task"}}');
      return;
    }
    const conversation = Number(/^TASK C(\d+)/.exec(task.content)![1]);
    for (const match of raw.matchAll(/conversation C(\d+) step/g)) if (Number(match[1]) !== conversation) foreign.push(`C${conversation} request shows C${match[1]}`);
    const last = body.messages.at(-1)!;
    const call = (id: string, name: string, args: unknown) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
    let message: Message | undefined;
    const read = reading.get(conversation);
    if (read && last.role === 'tool' && String(last.tool_call_id).startsWith(`r${conversation}-`)) {
      const answer = String(last.content);
      read.text += answer.slice(answer.indexOf('\n') + 1);
      const next = nextArgumentsOf(answer);
      if (next) message = call(`r${conversation}-${read.text.length}`, 'read_tool_output', next);
      else readBacks.set(conversation, read.text);
    }
    if (message === undefined && !readBacks.has(conversation) && !reading.has(conversation)) {
      const masked = body.messages.find((m) => m.role === 'tool' && typeof m.content === 'string' && m.content.startsWith('[stored output ref="'));
      if (masked) {
        const ref = /ref="([^"]+)"/.exec(masked.content)![1]!;
        reading.set(conversation, { ref, text: '' });
        message = call(`r${conversation}-0`, 'read_tool_output', { ref, lines: { start: 1 } });
      }
    }
    if (message === undefined) {
      const made = body.messages.flatMap((m) => (m.tool_calls ?? []).map((c: { id: string }) => /^c\d+-s(\d+)$/.exec(c.id)?.[1])).filter((step): step is string => step !== undefined).map(Number);
      const step = made.length === 0 ? 0 : Math.max(...made) + 1;
      message = step >= STEPS ? { role: 'assistant', content: `C${conversation} done` } : call(`c${conversation}-s${step}`, 'run_step', { step });
    }
    const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `chatcmpl-${requests}`, object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message, finish_reason: message!.tool_calls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } }));
    const hold = holdNext;
    holdNext = undefined;
    if (hold) hold(answer);
    else answer();
  });
  return { server, foreign, invalid, readBacks, hold: (onHeld: (release: () => void) => void) => (holdNext = onHeld), requests: () => requests };
}

const tools = [{ type: 'function', function: { name: 'run_step', description: 'Runs one step.', parameters: { type: 'object', properties: { step: { type: 'integer' } }, required: ['step'] } } }];

test(`PostgreSQL: ${CONVERSATIONS} concurrent conversations whose requests alternate between two gateway processes share one store with 0 cross-conversation references and 0 lost or duplicated outputs; a gateway killed with kill -9 mid-request loses nothing and the retry through the other succeeds`, { timeout: 600_000 }, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!POSTGRES_URL) return t.skip('STRATA_TEST_POSTGRES_URL is not set');
  if (!outputs) return t.skip('../shared is absent');
  const schema = `gateway_${process.pid}_${Date.now()}`;
  const store = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  t.after(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  // The schema's tables made once before the gateways start (see the report: two processes' first appends raced the session table).
  const setup = createPostgresStores({ connectionString: POSTGRES_URL, schema });
  await setup.sessions.load('setup');
  await setup.toolOutputs.get('setup');
  await setup.close();
  const upstream = fakeUpstream(rules);
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateways = await Promise.all([gatewayProcess(upstreamUrl, store, WINDOW), gatewayProcess(upstreamUrl, store, WINDOW)]);
  t.after(() => gateways.forEach(({ child }) => child.exitCode === null && child.kill('SIGTERM')));

  /** What a client sent: each conversation's tool results by call id, and the context the gateway named. */
  const sent = new Map<number, Map<string, string>>();
  const contexts = new Map<number, string>();
  const ask = async (url: string, conversation: number, history: Message[]) => {
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer client-key', [SESSION_HEADER]: `conversation-${conversation}` }, body: JSON.stringify({ model: 'gpt-test', stream: true, messages: history, tools }) });
    assert.equal(response.status, 200, await response.clone().text());
    const previous = contexts.get(conversation);
    contexts.set(conversation, response.headers.get(CONTEXT_HEADER)!);
    if (previous !== undefined) assert.equal(response.headers.get(CONTEXT_HEADER), previous, 'one context per conversation, whichever gateway answers');
    // The stream's chunks, joined into the one assistant message.
    const text = await response.text();
    const message: Message = { role: 'assistant', content: null };
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: {')) continue;
      const delta = (JSON.parse(line.slice(6)) as { choices: Array<{ delta: Message }> }).choices[0]?.delta;
      if (delta?.content) message.content = (message.content ?? '') + delta.content;
      if (delta?.tool_calls) message.tool_calls = delta.tool_calls.map(({ index: _index, ...call }: Message) => call);
    }
    return message;
  };
  /** One conversation's loop, its requests alternating between the gateways (`pick` chooses each one's). */
  const converse = async (conversation: number, pick: (request: number) => string, history: Message[] = [{ role: 'system', content: 'You run steps.' }, { role: 'user', content: `TASK C${conversation}: run the steps, then say done.` }]) => {
    const results = sent.get(conversation) ?? new Map<string, string>();
    sent.set(conversation, results);
    for (let request = 0; request <= STEPS + 1; request += 1) {
      const message = await ask(pick(request), conversation, history);
      assert.ok(!(message.tool_calls ?? []).some((call: Message) => call.function.name === 'read_tool_output'), 'the client never sees read_tool_output');
      history.push(message);
      if (!message.tool_calls) return history;
      for (const call of message.tool_calls) {
        const step = Number(JSON.parse(call.function.arguments).step);
        const content = `${marker(conversation, step)}\n${outputs[(conversation + step) % outputs.length]}`;
        results.set(call.id, content);
        history.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
    throw new Error(`conversation ${conversation} did not finish in ${STEPS + 2} requests`);
  };

  // All conversations at once, each one's requests alternating between the processes (STRATA_GATEWAY_ALTERNATE=0: half the
  // conversations on each process, each kept on its own). The read rounds a process answered are in the session store
  // (the host-loop context's own messages), so the other process continues the same context and stores each output once.
  const alternate = process.env.STRATA_GATEWAY_ALTERNATE !== '0';
  const finished = await Promise.all(Array.from({ length: CONVERSATIONS }, (_, conversation) => converse(conversation, (request) => gateways[(conversation + (alternate ? request : 0)) % 2]!.url)));
  assert.equal(finished.length, CONVERSATIONS);
  assert.deepEqual(upstream.foreign, [], '0 cross-conversation references');
  assert.deepEqual(upstream.invalid, [], 'every upstream request is valid for both providers');
  assert.equal(new Set(contexts.values()).size, CONVERSATIONS, 'a context per conversation');
  assert.ok(upstream.readBacks.size >= CONVERSATIONS / 2, `masked outputs were read back (${upstream.readBacks.size} conversations)`);
  for (const [conversation, text] of upstream.readBacks) {
    assert.ok([...sent.get(conversation)!.values()].includes(text), `C${conversation}: the read-back is one of its own outputs, byte-exact`);
  }

  // kill -9 of one gateway while it waits on the upstream for a request: the client sees the response end; the retry through the other succeeds.
  const killed = CONVERSATIONS;
  const history: Message[] = [{ role: 'system', content: 'You run steps.' }, { role: 'user', content: `TASK C${killed}: run the steps, then say done.` }];
  const first = await ask(gateways[0]!.url, killed, history);
  history.push(first, { role: 'tool', tool_call_id: first.tool_calls[0].id, content: `${marker(killed, 0)}\n${outputs[0]}` });
  sent.set(killed, new Map([[first.tool_calls[0].id, `${marker(killed, 0)}\n${outputs[0]}`]]));
  const held = new Promise<() => void>((resolve) => upstream.hold(resolve));
  // Settled as soon as the connection drops: the outcome is looked at once the process is gone.
  const cut = ask(gateways[0]!.url, killed, history).then(() => 'answered', (error: unknown) => `ended: ${(error as Error).message}`);
  const release = await held;
  const exited = new Promise((resolve) => gateways[0]!.child.once('exit', resolve));
  gateways[0]!.child.kill('SIGKILL');
  await exited;
  release();
  assert.match(await cut, /^ended: /, 'the client sees the response end');
  await converse(killed, () => gateways[1]!.url, history);
  assert.deepEqual(upstream.invalid, [], 'every upstream request after the kill is valid for both providers');

  // Every output a client sent is stored exactly once, in its own conversation's context, byte-exact.
  const rows = (await pool.query<{ id: string; context_id: string; tool_call_id: string }>(`SELECT id, context_id, tool_call_id FROM "${schema}".strata_tool_outputs`)).rows;
  const byCall = new Map<string, typeof rows>();
  for (const row of rows) byCall.set(`${row.context_id} ${row.tool_call_id}`, [...(byCall.get(`${row.context_id} ${row.tool_call_id}`) ?? []), row]);
  const expected = [...sent].flatMap(([conversation, results]) => [...results.keys()].map((callId) => `${contexts.get(conversation)} ${callId}`));
  assert.deepEqual([...byCall.keys()].sort(), expected.sort(), '0 lost outputs, none in another context');
  assert.deepEqual([...byCall.values()].filter((entries) => entries.length > 1), [], '0 duplicated outputs');
  const stores = createPostgresStores({ connectionString: POSTGRES_URL, schema });
  try {
    for (const [conversation, results] of sent) {
      for (const [callId, content] of results) {
        const [row] = byCall.get(`${contexts.get(conversation)} ${callId}`)!;
        assert.equal((await stores.toolOutputs.get(row!.id))?.body, content, `C${conversation} ${callId} reads back byte-exact`);
      }
      assert.ok(await stores.sessions.load(contexts.get(conversation)!), `C${conversation}'s session loads`);
    }
  } finally {
    await stores.close();
  }
});
