import assert from 'node:assert/strict';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { getEncoding } from 'js-tiktoken';
import { fromAnthropicMessages, toOpenAIChat } from '@strata/context';
import { loadProviderRules } from '@strata/testing';
import { CONTEXT_HEADER } from './index.js';
import { startGateway } from './gateway-server.js';
import { listen, recordedOutputs, STEPS, WINDOW } from './testing/gateway-fixtures.js';
import { FINAL_ANSWER, scriptedUpstream } from './testing/scripted-upstream.js';

const TASK = 'TASK: explain how marshmallow rounds TimeDelta values and where the rounding goes wrong.';
const encoding = getEncoding('o200k_base');

test(`anthropic client: a ${STEPS}-step tool loop through /v1/messages at a ${WINDOW}-token window stays valid, reads back byte-exact, and the client never sees read_tool_output`, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const upstream = scriptedUpstream('anthropic');
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  // The SDK appends /v1/messages to its base URL.
  const client = new Anthropic({ baseURL: gateway.url.replace(/\/v1$/, ''), apiKey: 'client-key', maxRetries: 0 });
  const tools: Anthropic.Tool[] = [{ name: 'run_step', description: 'Runs one investigation step and returns its output.', input_schema: { type: 'object', properties: { step: { type: 'integer' } }, required: ['step'] } }];
  const history: Anthropic.MessageParam[] = [{ role: 'user', content: TASK }];
  const contexts = new Set<string>();
  let final: string | undefined;
  for (let round = 0; round <= STEPS + 1 && final === undefined; round += 1) {
    const request = { model: 'claude-test', max_tokens: 1_024, system: 'You are a careful maintainer of marshmallow.', messages: history, tools };
    let message: Anthropic.Message;
    if (round % 2 === 0) {
      const { data, response } = await client.messages.create(request).withResponse();
      contexts.add(response.headers.get(CONTEXT_HEADER)!);
      message = data;
    } else message = await client.messages.stream(request).finalMessage();
    const uses = message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    assert.ok(uses.every((use) => use.name === 'run_step'), `round ${round}: only the client's own tools: ${JSON.stringify(uses)}`);
    if (uses.length === 0) {
      final = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      break;
    }
    history.push({ role: 'assistant', content: message.content });
    history.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: outputs[(use.input as { step: number }).step]! })) });
  }
  assert.equal(final, FINAL_ANSWER);
  assert.equal(contexts.size, 1, 'one context for the conversation');
  assert.ok(upstream.requests.length > STEPS + 1, 'the gateway made its own read calls too');
  let largest = 0;
  for (const [index, { body, headers }] of upstream.requests.entries()) {
    if (rules) assert.deepEqual(rules.violations(toOpenAIChat(fromAnthropicMessages(body)), 'anthropic'), [], `request ${index}`);
    // An upper bound of the request's input: its JSON, escapes and all.
    const tokens = encoding.encode(JSON.stringify([body.system, body.messages, body.tools])).length;
    largest = Math.max(largest, tokens);
    assert.ok(tokens <= WINDOW, `request ${index}: ${tokens} tokens`);
    assert.ok(JSON.stringify(body.messages).includes(TASK), `request ${index}: the task`);
    assert.ok(body.tools?.some((tool: { name?: string }) => tool.name === 'read_tool_output'), `request ${index}: read_tool_output offered`);
    // The client's key as the client sent it (this SDK version sends it as a bearer token).
    assert.ok(headers['x-api-key'] === 'client-key' || headers.authorization === 'Bearer client-key', JSON.stringify(headers));
    assert.equal(body.max_tokens, 1_024, 'fields the gateway does not read pass through');
  }
  t.diagnostic(`upstream requests ${upstream.requests.length}, largest ${largest} o200k tokens (JSON), outputs read back ${upstream.readBack.size}`);
  // Every output is stored at first sight (2 KB or more) and shown masked: each one is read back.
  assert.equal(upstream.readBack.size, STEPS, `outputs read back: ${upstream.readBack.size}`);
  for (const [callId, text] of upstream.readBack) assert.equal(text, outputs[Number(callId.slice('call-'.length))], callId);
});
