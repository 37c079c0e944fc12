import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { getEncoding } from 'js-tiktoken';
import OpenAI from 'openai';
import { ConfigurationError } from '@strata/context';
import { createMemoryStores, openSqliteStores } from '@strata/store';
import { loadProviderRules } from '@strata/testing';
import { CONTEXT_HEADER, createGatewayApp, SAVED_TOKENS_HEADER, SESSION_HEADER } from './index.js';
import { startGateway } from './gateway-server.js';
import { listen, recordedOutputs, STEPS, WINDOW } from './testing/gateway-fixtures.js';
import { scriptedUpstream, type ScriptedRequest } from './testing/scripted-upstream.js';

const TASK = 'TASK: find why marshmallow serialises a TimeDelta field with a rounding error and propose the fix.';
const directory = mkdtempSync(join(tmpdir(), 'strata-gateway-'));
after(() => rmSync(directory, { recursive: true, force: true }));

const encoding = getEncoding('o200k_base');
/** An independent count of a request's input: every text it carries, by o200k. */
function inputTokens(body: ScriptedRequest['body']): number {
  let total = 0;
  for (const message of body.messages) total += encoding.encode(`${message.role} ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '')} ${JSON.stringify(message.tool_calls ?? '')}`).length + 4;
  return total + encoding.encode(JSON.stringify(body.tools ?? [])).length;
}

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'run_step', description: 'Runs one investigation step and returns its output.', parameters: { type: 'object', properties: { step: { type: 'integer' } }, required: ['step'] } } },
];

test(`openai client: a ${STEPS}-step tool loop through the gateway at a ${WINDOW}-token window stays valid, masks and reads back byte-exact, and the client never sees read_tool_output`, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const upstream = scriptedUpstream('openai-chat');
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: `sqlite:${join(directory, 'loop.db')}`, port: 0 });
  t.after(() => gateway.close());
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'client-key' });

  const history: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a careful maintainer of marshmallow.' },
    { role: 'user', content: TASK },
  ];
  const contexts = new Set<string>();
  const saved: number[] = [];
  let final: string | undefined;
  for (let round = 0; round <= STEPS + 1 && final === undefined; round += 1) {
    let message: { content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
    if (round % 2 === 0) {
      const { data, response } = await client.chat.completions.create({ model: 'gpt-test', messages: history, tools, temperature: 0 }).withResponse();
      contexts.add(response.headers.get(CONTEXT_HEADER)!);
      const strata = (data as unknown as { strata?: { contextId?: string; savedTokens?: number } }).strata;
      assert.equal(strata?.contextId, response.headers.get(CONTEXT_HEADER));
      assert.equal(String(strata?.savedTokens), response.headers.get(SAVED_TOKENS_HEADER));
      assert.equal(data.usage?.prompt_tokens, 1_000, "the upstream's usage untouched");
      saved.push(strata!.savedTokens!);
      message = data.choices[0]!.message as typeof message;
    } else {
      // Streamed: the client's own stream reader rebuilds the message from the chunks.
      const stream = await client.chat.completions.create({ model: 'gpt-test', messages: history, tools, stream: true });
      let content = '';
      const calls: Array<{ id: string; function: { name: string; arguments: string } }> = [];
      for await (const chunk of stream) {
        for (const choice of chunk.choices) {
          content += choice.delta.content ?? '';
          for (const call of choice.delta.tool_calls ?? []) {
            calls[call.index] ??= { id: '', function: { name: '', arguments: '' } };
            calls[call.index]!.id += call.id ?? '';
            calls[call.index]!.function.name += call.function?.name ?? '';
            calls[call.index]!.function.arguments += call.function?.arguments ?? '';
          }
        }
      }
      message = { content: content || null, tool_calls: calls.length > 0 ? calls : undefined };
    }
    const calls = message.tool_calls ?? [];
    assert.ok(calls.every((call) => call.function.name === 'run_step'), `round ${round}: the client saw only its own tools' calls: ${JSON.stringify(calls)}`);
    if (calls.length === 0) {
      final = message.content ?? '';
      break;
    }
    history.push({ role: 'assistant', content: message.content, tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: call.function })) });
    for (const call of calls) {
      const { step } = JSON.parse(call.function.arguments) as { step: number };
      history.push({ role: 'tool', tool_call_id: call.id, content: outputs[step]! });
    }
  }
  assert.match(final ?? '', /round the microseconds/, `requests ${upstream.requests.length}, read back ${upstream.readBack.size}, last: ${JSON.stringify(upstream.requests.at(-1)?.body.messages.slice(-2)).slice(0, 1500)}`);
  assert.equal(contexts.size, 1, 'one context for the conversation');
  // Past the window the gateway sends less than the client's whole history.
  assert.ok(saved.at(-1)! > 0, `saved by the last call: ${saved.at(-1)}`);

  // Every upstream request: provider-valid, within the window, the task present, the client's key forwarded.
  assert.ok(upstream.requests.length > STEPS + 1, 'the gateway made its own read calls too');
  for (const [index, { body, headers }] of upstream.requests.entries()) {
    if (rules) assert.deepEqual(rules.violations(body.messages, 'openai'), [], `request ${index}`);
    assert.ok(inputTokens(body) <= WINDOW, `request ${index}: ${inputTokens(body)} tokens`);
    assert.ok(body.messages.some((m: Record<string, any>) => typeof m.content === 'string' && m.content.includes(TASK)), `request ${index}: the task`);
    assert.ok(body.tools?.some((tool: Record<string, any>) => tool.function?.name === 'read_tool_output'), `request ${index}: read_tool_output offered`);
    assert.equal(headers.authorization, 'Bearer client-key');
    assert.equal(body.temperature === undefined || body.temperature === 0, true, 'unknown fields passed through');
  }
  // Masking happened and every masked output read back byte-exact.
  // Every output is stored at first sight (2 KB or more) and shown masked: each one is read back.
  assert.equal(upstream.readBack.size, STEPS, `outputs read back: ${upstream.readBack.size}`);
  t.diagnostic(`upstream requests ${upstream.requests.length}, largest ${Math.max(...upstream.requests.map(({ body }) => inputTokens(body)))} o200k tokens, outputs read back ${upstream.readBack.size}, saved by the last call ${saved.at(-1)} tokens`);
  for (const [callId, text] of upstream.readBack) assert.equal(text, outputs[Number(callId.slice('call-'.length))], callId);
});

test('sessions: the x-strata-session header names the context, two openings never share one, and contexts survive a restart on the same SQLite file', async (t) => {
  if (!recordedOutputs()) return t.skip('../shared is absent');
  const upstream = scriptedUpstream('openai-chat');
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const store = `sqlite:${join(directory, 'sessions.db')}`;
  const opening = (task: string): OpenAI.Chat.Completions.ChatCompletionMessageParam[] => [{ role: 'system', content: 'sys' }, { role: 'user', content: task }];
  let gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store, port: 0 });
  const contextOf = async (url: string, messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[], session?: string) => {
    const client = new OpenAI({ baseURL: url, apiKey: 'k', defaultHeaders: session ? { [SESSION_HEADER]: session } : {} });
    const { response } = await client.chat.completions.create({ model: 'm', messages, tools }).withResponse();
    return response.headers.get(CONTEXT_HEADER)!;
  };
  const first = await contextOf(gateway.url, opening('task one'));
  const second = await contextOf(gateway.url, opening('task two'));
  assert.notEqual(first, second);
  const continued = [...opening('task one'), { role: 'assistant' as const, content: 'ok' }, { role: 'user' as const, content: 'go on' }];
  assert.equal(await contextOf(gateway.url, continued), first, 'a history that continues the opening continues its context');
  assert.notEqual(await contextOf(gateway.url, opening('task one')), first, 'another client with the same opening gets its own context');
  assert.equal(await contextOf(gateway.url, opening('task two'), 'thread-7'), 'thread-7');
  await gateway.close();
  gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store, port: 0 });
  t.after(() => gateway.close());
  assert.equal(await contextOf(gateway.url, [...continued, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'and then' }]), first, 'after a restart');
  // The context and its state are in the SQLite file.
  const stores = await openSqliteStores({ path: join(directory, 'sessions.db') });
  t.after(() => stores.close());
  assert.ok(await stores.sessions.load(first));
});

test('an upstream error keeps its status and body; a malformed request is a 400 naming the field', async (t) => {
  const upstream = scriptedUpstream('openai-chat');
  upstream.fail = { status: 429, body: JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited' } }) };
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  await assert.rejects(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => {
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 429);
    assert.match(error.message, /slow down/);
    return true;
  });
  const bad = await fetch(`${gateway.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: 'hello' }) });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: { message: string } }).error.message, /messages/);
  const notJson = await fetch(`${gateway.url}/chat/completions`, { method: 'POST', body: '{' });
  assert.equal(notJson.status, 400);
  assert.equal((await fetch(`${gateway.url.replace(/\/v1$/, '')}/health`)).status, 200);
});

test('createGatewayApp and startGateway refuse any malformed option with a ConfigurationError naming it', async () => {
  const stores = createMemoryStores();
  const good = { upstream: 'http://127.0.0.1:1/v1', windowTokens: WINDOW, sessionStore: stores.sessions, outputStore: stores.toolOutputs };
  const named = (setting: string) => (error: unknown) => ConfigurationError.isInstance(error) && error.setting === setting;
  for (const [options, setting] of [
    [undefined, 'gateway options'],
    [{ ...good, upstream: 'not a url' }, 'upstream'],
    [{ ...good, windowTokens: '24000' }, 'windowTokens'],
    [{ ...good, windowTokens: 12.5 }, 'windowTokens'],
    [{ ...good, sessionStore: {} }, 'sessionStore'],
    [{ ...good, outputStore: null }, 'outputStore'],
    [{ ...good, upstreamApiKey: 42 }, 'upstreamApiKey'],
    [{ ...good, fetch: 'fetch' }, 'fetch'],
  ] as const) {
    assert.throws(() => createGatewayApp(options as never), named(setting), setting);
  }
  assert.ok(createGatewayApp(good));
  await assert.rejects(startGateway(null as never), named('gateway options'));
  await assert.rejects(startGateway({ upstream: good.upstream, windowTokens: WINDOW, store: 7 } as never), named('store'));
  await assert.rejects(startGateway({ upstream: good.upstream, windowTokens: WINDOW, store: 'memory:', port: -1 }), named('port'));
  await assert.rejects(startGateway({ upstream: good.upstream, windowTokens: WINDOW, store: 'ftp://x' }), named('gateway store'));
  await assert.rejects(startGateway({ upstream: 'nope', windowTokens: WINDOW, store: 'memory:' }), named('upstream'));
});
