import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStores } from '@strata/store';
import { createGatewayApp } from './gateway-app.js';
import type { GatewayEvent, GatewayTelemetry, GatewayTelemetryRequest } from './gateway-telemetry.js';

const big = Array.from({ length: 1_500 }, (_, index) => `row ${index}: ${'value '.repeat(8)}`).join('\n');
const history = [
  { role: 'user', content: 'Summarise the table.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'dump', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'call-1', content: big },
];

/** An upstream (as `fetch`) that reads the masked output once, then answers; or answers every call with `status`. */
function upstreamFetch(status = 200): typeof fetch {
  return (async (_url: string, init: RequestInit) => {
    const body = JSON.parse(String(init.body)) as { messages: Array<Record<string, any>> };
    if (status !== 200) return Response.json({ error: { message: 'overloaded', type: 'server_error' } }, { status });
    const masked = body.messages.find((message) => message.role === 'tool' && String(message.content).startsWith('[stored output ref="'));
    const read = body.messages.at(-1)!.tool_call_id !== 'read-1' && masked !== undefined;
    const message = read
      ? { role: 'assistant', content: null, tool_calls: [{ id: 'read-1', type: 'function', function: { name: 'read_tool_output', arguments: JSON.stringify({ ref: /ref="([^"]+)"/.exec(masked.content)![1], lines: { start: 1, end: 5 } }) } }] }
      : { role: 'assistant', content: 'Fifteen hundred rows.' };
    return Response.json({ id: `cmpl-${read ? 1 : 2}`, model: 'served-model', choices: [{ index: 0, message, finish_reason: read ? 'tool_calls' : 'length' }], usage: { prompt_tokens: 400, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 128 } } });
  }) as typeof fetch;
}

function recorder(): { telemetry: GatewayTelemetry; requests: GatewayTelemetryRequest[]; events: GatewayEvent[][]; ends: number[] } {
  const requests: GatewayTelemetryRequest[] = [];
  const events: GatewayEvent[][] = [];
  const ends: number[] = [];
  const telemetry: GatewayTelemetry = (request) => {
    requests.push(request);
    const mine: GatewayEvent[] = [];
    events.push(mine);
    const index = events.length - 1;
    return { onEvent: (event) => mine.push(event), end: () => ends.push(index) };
  };
  return { telemetry, requests, events, ends };
}

const ask = (app: ReturnType<typeof createGatewayApp>, stream = false) =>
  app.request('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-test', stream, messages: history }) });

test('telemetry: one request is started once with its context, and gets per upstream call turn-start, the assembled trace, usage, the reads, turn-end; then run-end completed', async () => {
  const stores = createMemoryStores();
  const seen = recorder();
  const app = createGatewayApp({ upstream: 'http://upstream.test/v1', windowTokens: 4_000, sessionStore: stores.sessions, outputStore: stores.toolOutputs, fetch: upstreamFetch(), telemetry: seen.telemetry });
  for (const stream of [false, true]) {
    const response = await ask(app, stream);
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Fifteen hundred rows/);
  }
  assert.equal(seen.requests.length, 2);
  assert.deepEqual(seen.requests.map((request) => [request.provider, request.model]), [['openai', 'gpt-test'], ['openai', 'gpt-test']]);
  assert.ok(seen.requests.every((request) => request.contextId.length > 0));
  assert.deepEqual(seen.ends, [0, 1]);
  for (const events of seen.events) {
    assert.deepEqual(events.map((event) => event.type), ['turn-start', 'context-assembled', 'usage', 'tool-call-start', 'tool-call-end', 'turn-end', 'turn-start', 'context-assembled', 'usage', 'turn-end', 'run-end']);
    const usages = events.filter((event) => event.type === 'usage');
    assert.deepEqual(usages.map((event) => [event.finishReason, event.response?.id, event.response?.modelId]), [['tool-calls', 'cmpl-1', 'served-model'], ['length', 'cmpl-2', 'served-model']]);
    assert.equal(usages[0]!.usage.inputTokens, 400);
    assert.equal(usages[0]!.usage.outputTokens, 7);
    const assembled = events.find((event) => event.type === 'context-assembled')!;
    assert.ok(assembled.trace.compaction.compactedOutputRefs.length > 0 || assembled.trace.compaction.reason !== null, 'the large output was masked');
    const readEnd = events.find((event) => event.type === 'tool-call-end')!;
    assert.equal(readEnd.call.name, 'read_tool_output');
    assert.match(readEnd.result.content, /row 0:/);
    assert.deepEqual(events.at(-1), { type: 'run-end', stopReason: 'completed' });
  }
});

test('telemetry: an upstream error ends the request as model-error; a telemetry that throws changes nothing', async () => {
  const stores = createMemoryStores();
  const seen = recorder();
  const failing = createGatewayApp({ upstream: 'http://upstream.test/v1', windowTokens: 4_000, sessionStore: stores.sessions, outputStore: stores.toolOutputs, fetch: upstreamFetch(529), telemetry: seen.telemetry });
  const failed = await ask(failing);
  assert.equal(failed.status, 529);
  assert.deepEqual(seen.events[0]!.at(-1), { type: 'run-end', stopReason: 'model-error' });

  const throwing = (when: 'start' | 'event' | 'end'): GatewayTelemetry => () => {
    if (when === 'start') throw new Error('exporter exploded');
    return { onEvent: () => { if (when === 'event') throw new Error('span exploded'); }, end: () => { throw new Error('end exploded'); } };
  };
  for (const when of ['start', 'event', 'end'] as const) {
    const app = createGatewayApp({ upstream: 'http://upstream.test/v1', windowTokens: 4_000, sessionStore: stores.sessions, outputStore: stores.toolOutputs, fetch: upstreamFetch(), telemetry: throwing(when) });
    for (const stream of [false, true]) {
      const response = await ask(app, stream);
      assert.equal(response.status, 200, `${when} stream=${stream}`);
      assert.match(await response.text(), /Fifteen hundred rows/);
    }
  }
});
