import assert from 'node:assert/strict';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { getEncoding } from 'js-tiktoken';
import { fromAnthropicMessages, toOpenAIChat } from '@strata/context';
import { loadProviderRules } from '@strata/testing';
import { MAX_CACHE_MARKERS, messageChain, withCacheMarker } from './anthropic-fidelity.js';
import { startGateway } from './gateway-server.js';
import { listen, recordedOutputs, answeringUpstream, WINDOW, type UpstreamBody } from './testing/gateway-fixtures.js';

const TASK = 'TASK: explain how marshmallow rounds TimeDelta values and where the rounding goes wrong.';
const answer = (text: string) => ({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 900, output_tokens: 5 } });
const markerPaths = (body: UpstreamBody): string[] => {
  const paths: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}[${index}]`));
    else if (typeof value === 'object' && value !== null) for (const [key, field] of Object.entries(value)) key === 'cache_control' ? paths.push(path) : walk(field, `${path}.${key}`);
  };
  walk({ system: body.system, messages: body.messages, tools: body.tools }, '');
  return paths;
};

test('anthropic fidelity: block fields Strata does not model and unknown request fields reach upstream untouched; a cache marker where the stable prefix ends, at most 4 in all, never on thinking', async (t) => {
  const rules = await loadProviderRules();
  const upstream = answeringUpstream('anthropic', () => answer('noted'));
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  const client = new Anthropic({ baseURL: gateway.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
  const system = [{ type: 'text', text: 'You are a careful maintainer of marshmallow.', cache_control: { type: 'ephemeral' } }];
  const citation = { type: 'char_location', cited_text: 'TimeDelta', document_index: 0, document_title: 'fields.py', start_char_index: 0, end_char_index: 9 };
  const thinking = { type: 'thinking', thinking: 'Look at the serialiser first.', signature: 'EqQBCkYIBxgCKkD+sig==' };
  const history: Array<Record<string, unknown>> = [
    { role: 'user', content: [{ type: 'text', text: TASK, cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    { role: 'assistant', content: [thinking, { type: 'text', text: 'TimeDelta truncates.', citations: [citation] }, { type: 'tool_use', id: 'toolu_0', name: 'run_step', input: { step: 0 } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: 'step 0: fields.py line 1500 uses int()' }] },
  ];
  const request = { model: 'claude-test', max_tokens: 256, system, messages: history, tools: [{ name: 'run_step', input_schema: { type: 'object' } }], top_k: 5, metadata: { user_id: 'u-1' }, future_field: { kept: true } };
  await client.messages.create(request as never);
  const first = upstream.requests[0]!;
  assert.equal(first.top_k, 5);
  assert.deepEqual(first.metadata, { user_id: 'u-1' });
  assert.deepEqual(first.future_field, { kept: true }, 'an unknown request field passes through');
  assert.deepEqual(first.system, system, "the client's system blocks, marker and all");
  assert.deepEqual(first.messages[0]!.content, history[0]!.content, "the client's own marker with its ttl");
  const assistant = first.messages[1]!.content as Array<Record<string, unknown>>;
  assert.deepEqual(assistant.find((block) => block.type === 'text'), { type: 'text', text: 'TimeDelta truncates.', citations: [citation] }, 'citations kept');
  assert.deepEqual(assistant.find((block) => block.type === 'thinking'), thinking, 'the signed thinking block as received');
  // No previous request: the marker on the message before the newest assistant message, i.e. the first user message: it has the client's.
  assert.deepEqual(markerPaths(first), ['.system[0]', '.messages[0].content[0]']);

  // The next turn: the stable prefix ends at the previous request's last message, which gets the marker.
  history.push({ role: 'assistant', content: [{ type: 'text', text: 'noted' }] }, { role: 'user', content: 'Go on: where is the fix?' });
  await client.messages.create({ ...request, messages: history } as never);
  const second = upstream.requests[1]!;
  const stable = first.messages.length - 1;
  assert.deepEqual(second.messages.slice(0, stable), first.messages.slice(0, stable), 'the prefix is the same bytes');
  assert.deepEqual(markerPaths(second), ['.system[0]', '.messages[0].content[0]', `.messages[${stable}].content[0]`]);
  for (const path of markerPaths(second)) assert.doesNotMatch(JSON.stringify(second.messages), /"type":"thinking"[^}]*"cache_control"/, path);

  // With four markers of the client's own the gateway adds none.
  const crowded = history.map((message, index) => (index === 2 ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: 'step 0: fields.py line 1500 uses int()', cache_control: { type: 'ephemeral' } }] } : message));
  await client.messages.create({ ...request, messages: crowded, tools: [{ name: 'run_step', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }] } as never);
  assert.equal(markerPaths(upstream.requests[2]!).length, MAX_CACHE_MARKERS);
  for (const [index, body] of upstream.requests.entries()) if (rules) assert.deepEqual(rules.violations(toOpenAIChat(fromAnthropicMessages(body)), 'anthropic'), [], `request ${index}`);
});

test('withCacheMarker: never on a thinking or empty block; on the last stable message; none without a stable one', () => {
  const messages = [
    { role: 'user', content: 'task' },
    { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'thinking', thinking: 't', signature: 's' }] },
    { role: 'user', content: [{ type: 'text', text: '' }] },
    { role: 'assistant', content: 'b' },
  ];
  // Before the newest assistant message is an empty block only: nothing to mark there.
  assert.deepEqual(withCacheMarker({ messages }, undefined).messages, messages);
  // Stable through message 1: its text block gets the marker, not the thinking block after it.
  const marked = withCacheMarker({ messages }, messageChain(messages.slice(0, 2))).messages;
  assert.deepEqual(marked[1], { role: 'assistant', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }, { type: 'thinking', thinking: 't', signature: 's' }] });
  assert.deepEqual([marked[0], ...marked.slice(2)], [messages[0], ...messages.slice(2)]);
  // A previous request that shares no message: none.
  assert.deepEqual(withCacheMarker({ messages }, messageChain([{ role: 'user', content: 'other' }])).messages, messages);
});

test('count_tokens: the window Strata would send, by our estimate: within the window for a history past it, nothing stored', async (t) => {
  const outputs = recordedOutputs();
  if (!outputs) return t.skip('../shared is absent');
  const upstream = answeringUpstream('anthropic', () => answer('unused'));
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  const client = new Anthropic({ baseURL: gateway.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: TASK }];
  for (const [step, output] of outputs.entries()) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${step}`, name: 'run_step', input: { step } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${step}`, content: output }] });
  }
  const whole = getEncoding('o200k_base').encode(JSON.stringify(messages)).length;
  const { input_tokens: counted } = await client.messages.countTokens({ model: 'claude-test', messages, tools: [{ name: 'run_step', input_schema: { type: 'object' } }] });
  assert.ok(whole > WINDOW, `the history is past the window: ${whole}`);
  assert.ok(counted > 0 && counted <= WINDOW, `counted ${counted}`);
  assert.equal(upstream.requests.length, 0, 'counted here, not upstream');
  t.diagnostic(`count_tokens: ${counted} for a history of ${whole} o200k tokens (JSON)`);
});
