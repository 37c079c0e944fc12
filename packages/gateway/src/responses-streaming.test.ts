import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { fromAnthropicMessages, toAnthropicMessages, toOpenAIChat } from '@strata/context';
import { loadProviderRules, type ProviderRules } from '@strata/testing';
import { startGateway } from './gateway-server.js';
import { fromResponsesInput } from './responses-wire.js';
import { answeringUpstream, listen, recordedOutputs, responsesEvents, WINDOW, type UpstreamBody as Body } from './testing/gateway-fixtures.js';

const TASK = 'TASK: find why marshmallow serialises a TimeDelta field with a rounding error and propose the fix.';
const ANSWER = 'The fix: round the microseconds instead of truncating them.';
const directory = mkdtempSync(join(tmpdir(), 'strata-gateway-responses-'));
after(() => rmSync(directory, { recursive: true, force: true }));

const reasoning = (id: string) => ({ type: 'reasoning', id, summary: [{ type: 'summary_text', text: `Thinking (${id}).` }], encrypted_content: `gAAAA-${id}-sealed` });
const functionCall = (id: string, callId: string, name: string, args: unknown) => ({ type: 'function_call', id, call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' });
const textItem = (id: string, text: string) => ({ type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
const response = (n: number, output: unknown[], inputTokens: number) => ({
  id: `resp_${n}`, object: 'response', created_at: 1_700_000_000, status: 'completed', error: null, incomplete_details: null, model: 'gpt-test', output,
  parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage: { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + 9 },
});
/** The reference of the first masked output a request shows. */
function maskedRef(body: Body): string {
  const found = /ref=\\?"(out_[^"\\]+)/.exec(JSON.stringify(body.input));
  assert.ok(found, 'a masked output in the request');
  return found[1]!;
}

/** Every upstream request is valid model input for each provider (its input read as the canonical history), and shows the task. */
function checkRequests(rules: ProviderRules | undefined, requests: readonly Body[], providers: ReadonlyArray<'openai' | 'anthropic'>): void {
  for (const [index, body] of requests.entries()) {
    const history = fromResponsesInput(body.input!);
    const withOpening = [{ role: 'system' as const, content: String(body.instructions ?? '') }, ...history];
    for (const provider of providers) {
      const messages = provider === 'openai' ? toOpenAIChat(withOpening) : toOpenAIChat(fromAnthropicMessages(toAnthropicMessages(withOpening)));
      if (rules) assert.deepEqual(rules.violations(messages, provider), [], `request ${index} (${provider})`);
    }
    assert.equal(body.stream, true, `request ${index}: streamed upstream`);
    assert.ok(JSON.stringify(body.input).includes(TASK), `request ${index}: the task`);
  }
}

/** The client's stream as it saw it: each event's type, output index and sequence number; the final response. */
async function readResponsesStream(stream: AsyncIterable<Record<string, any>> & { finalResponse(): Promise<OpenAI.Responses.Response> }, onText?: () => void) {
  const events: Array<Record<string, any>> = [];
  for await (const event of stream) {
    events.push(event);
    if (event.type === 'response.output_text.delta') onText?.();
  }
  return { events, final: (await stream.finalResponse()) as OpenAI.Responses.Response & { strata?: Record<string, any> } };
}

const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'run_step', description: 'Runs one step.', parameters: { type: 'object', properties: { step: { type: 'integer' } } }, strict: false }];

test('responses streaming: events reach the client while the upstream still streams; the read round (its reasoning too) is held and answered; one response.created, output_index and sequence_number without gaps', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const final = response(2, [reasoning('rs_b'), textItem('msg_b', ANSWER)], 2_222);
  // The final answer's stream waits after its first text piece until the client has received it: a gateway that buffered would never finish.
  const firstText = responsesEvents(final).findIndex((event) => event.includes('"response.output_text.delta"'));
  let sawText!: () => void;
  const textSeen = new Promise<void>((resolve) => {
    sawText = resolve;
  });
  const upstream = answeringUpstream('responses', (body, index) => {
    if (index === 0) return response(1, [reasoning('rs_a'), functionCall('fc_a', 'read-0', 'read_tool_output', { ref: maskedRef(body), lines: { start: 1, end: 3 } })], 1_111);
    return final;
  }, async (request, event) => {
    if (request === 1 && event === firstText + 1) await textSeen;
  });
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: `sqlite:${join(directory, 'stream.db')}`, port: 0 });
  t.after(() => gateway.close());
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { role: 'user', content: TASK },
    { type: 'function_call', call_id: 'call-0', name: 'run_step', arguments: '{"step":0}' },
    { type: 'function_call_output', call_id: 'call-0', output: outputs[3]! },
  ];
  const { events, final: seen } = await readResponsesStream(client.responses.stream({ model: 'gpt-test', instructions: 'You are a careful maintainer.', input, tools, store: false }) as never, sawText);
  assert.equal(seen.output_text, ANSWER);
  assert.deepEqual(seen.output.map((item) => (item as { id?: string }).id), ['rs_b', 'msg_b'], 'the final answer\'s items; the read round\'s reasoning and call stay with the gateway');
  assert.ok(!JSON.stringify(events).includes('read_tool_output'), 'the client never sees the read call');
  assert.deepEqual(events.filter((event) => event.type === 'response.output_item.added').map((event) => event.output_index), [0, 1]);
  assert.deepEqual(events.map((event) => event.sequence_number), events.map((_, index) => index), 'sequence numbers from 0 without gaps');
  assert.equal(events.filter((event) => event.type === 'response.created').length, 1, 'one response across the two upstream answers');
  assert.equal(events.at(-1)!.type, 'response.completed');
  assert.equal(seen.usage?.input_tokens, 2_222, "the last upstream answer's usage");
  assert.equal(seen.strata?.readToolOutputCalls, 1);
  assert.equal(seen.strata?.upstreamCalls, 2);
  assert.equal(upstream.requests.length, 2);
  const round = upstream.requests[1]!.input!.slice(-3);
  assert.deepEqual(round.map((item) => [item.type, item.id ?? item.call_id]), [['reasoning', 'rs_a'], ['function_call', 'fc_a'], ['function_call_output', 'read-0']], 'the round goes upstream with its reasoning as received');
  assert.deepEqual(round[0], reasoning('rs_a'));
  checkRequests(rules, upstream.requests, ['openai']);
});

test('responses: an answer with a client call beside a read, streamed: the client gets its reasoning and call numbered from 0, the read is answered, and its next history goes upstream valid for both providers with the read round first', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const upstream = answeringUpstream('responses', (body, index) => {
    if (index === 0) return response(1, [reasoning('rs_a'), functionCall('fc_r', 'read-0', 'read_tool_output', { ref: maskedRef(body), lines: { start: 1, end: 2 } }), functionCall('fc_c', 'call-1', 'run_step', { step: 1 })], 1_000);
    return response(2, [textItem('msg_b', 'Enough.')], 1_500);
  });
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: `sqlite:${join(directory, 'mixed.db')}`, port: 0 });
  t.after(() => gateway.close());
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { role: 'user', content: TASK },
    { type: 'function_call', call_id: 'call-0', name: 'run_step', arguments: '{"step":0}' },
    { type: 'function_call_output', call_id: 'call-0', output: outputs[5]! },
  ];
  const { events, final: seen } = await readResponsesStream(client.responses.stream({ model: 'gpt-test', input, tools, store: false }) as never);
  assert.deepEqual(events.filter((event) => event.type === 'response.output_item.added').map((event) => [event.output_index, event.item.id]), [[0, 'rs_a'], [1, 'fc_c']]);
  assert.deepEqual(seen.output.map((item) => (item as { id?: string }).id), ['rs_a', 'fc_c']);
  assert.equal(seen.strata?.readToolOutputCalls, 1, 'the read was answered');
  input.push(...(seen.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: 'call-1', output: 'step 1: nothing found' });
  const answer = await client.responses.create({ model: 'gpt-test', input, tools, store: false, stream: true });
  let text = '';
  for await (const event of answer) if (event.type === 'response.output_text.delta') text += event.delta;
  assert.equal(text, 'Enough.');
  const tail = upstream.requests[1]!.input!.slice(-5);
  assert.deepEqual(tail.map((item) => [item.type, item.call_id ?? item.id]), [['function_call', 'read-0'], ['function_call_output', 'read-0'], ['reasoning', 'rs_a'], ['function_call', 'call-1'], ['function_call_output', 'call-1']]);
  checkRequests(rules, upstream.requests, ['openai', 'anthropic']);
});
