// Responses input items the gateway does not read (hosted tool calls and their outputs, MCP items) and item references.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toOpenAIChat } from '@strata/context';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStores, openSqliteStores, type Stores } from '@strata/store';
import { loadProviderRules } from '@strata/testing';
import { createGatewayApp, PASS_THROUGH_HEADER } from './gateway-app.js';
import { fromResponsesInput } from './responses-wire.js';

type Item = Record<string, unknown>;

/** The hosted and MCP items of a real conversation's shape, each as the API returns it (fields the gateway never reads included). */
const HOSTED: Item[] = [
  { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'marshmallow TimeDelta rounding' } },
  { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['TimeDelta'], results: null },
  { type: 'code_interpreter_call', id: 'ci_1', status: 'completed', code: 'print(1.5e-6 * 1e6)', container_id: 'cntr_1', outputs: [{ type: 'logs', logs: '1.5' }] },
  { type: 'image_generation_call', id: 'ig_1', status: 'completed', result: 'iVBORw0KGgo=' },
  { type: 'mcp_list_tools', id: 'mcpl_1', server_label: 'repo', tools: [{ name: 'grep', input_schema: { type: 'object' } }] },
  { type: 'mcp_call', id: 'mcp_1', server_label: 'repo', name: 'grep', arguments: '{"q":"TimeDelta"}', output: 'fields.py:1461' },
  { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 'repo', name: 'write', arguments: '{}' },
];

/** A conversation with hosted items between and inside its steps, a computer call and its output, a reasoning item with encrypted content. */
function conversation(): Item[] {
  return [
    { type: 'message', role: 'user', content: 'Why does TimeDelta round wrongly?' },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Search first.' }], encrypted_content: 'gAAAA-enc-1' },
    ...HOSTED.slice(0, 3),
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me look at the code.', annotations: [] }] },
    { type: 'function_call', id: 'fc_1', call_id: 'call-1', name: 'run_step', arguments: '{"step":0}' },
    { type: 'function_call_output', call_id: 'call-1', output: 'fields.py: return int(value.total_seconds() * 10**6)' },
    ...HOSTED.slice(3),
    { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false },
    { type: 'computer_call', id: 'cu_1', call_id: 'computer-1', action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' },
    { type: 'computer_call_output', call_id: 'computer-1', output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBORw0KGgo=' } },
    { type: 'message', role: 'user', content: 'And the fix?' },
  ];
}

/** A gateway over an upstream (as `fetch`) that records each request body and answers with `answer` (a Responses body, or an SSE text). */
function gatewayOver(answer: (body: Record<string, any>) => Response, stores: Stores = createMemoryStores()) {
  const bodies: Array<Record<string, any>> = [];
  const raw: string[] = [];
  const fetchUpstream = (async (_url: string, init: RequestInit) => {
    raw.push(String(init.body));
    const body = JSON.parse(String(init.body)) as Record<string, any>;
    bodies.push(body);
    return answer(body);
  }) as typeof fetch;
  const app = createGatewayApp({ upstream: 'http://upstream.test/v1', windowTokens: 24_000, sessionStore: stores.sessions, outputStore: stores.toolOutputs, fetch: fetchUpstream });
  const post = (body: unknown) => app.request('/v1/responses', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' }, body: JSON.stringify(body) });
  return { app, post, bodies, raw };
}

const answered = (n: number, text = 'Round the microseconds.'): Record<string, unknown> => ({
  id: `resp_${n}`, object: 'response', status: 'completed', model: 'gpt-test',
  output: [{ type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
  usage: { input_tokens: 100, output_tokens: 5 },
});

test('responses: hosted tool items, MCP items, a computer call and its output go upstream unchanged and in place; the history is read around them', async () => {
  const rules = await loadProviderRules();
  const { post, bodies } = gatewayOver(() => Response.json(answered(1)));
  const input = conversation();
  const response = await post({ model: 'gpt-test', input, tools: [{ type: 'web_search' }, { type: 'function', name: 'run_step', parameters: { type: 'object' } }] });
  assert.equal(response.status, 200, await response.clone().text());
  assert.deepEqual(bodies[0]!.input, input, 'every item as the client sent it, in its place');
  assert.deepEqual(bodies[0]!.tools.map((entry: Item) => entry.name ?? entry.type), ['web_search', 'run_step', 'read_tool_output']);
  // What Strata read of it: the user turns, the step with its reasoning, text and call, the call's output.
  const history = fromResponsesInput(input);
  assert.deepEqual(history.map((message) => message.role), ['user', 'assistant', 'tool', 'user']);
  if (rules) assert.deepEqual(rules.violations(toOpenAIChat(fromResponsesInput(bodies[0]!.input)), 'openai'), []);
});

test('responses: an item of a type nobody knows yet passes through in place too; an item without a type or with a malformed read item is still a 400', async () => {
  const { post, bodies } = gatewayOver(() => Response.json(answered(1)));
  const input = [{ type: 'message', role: 'user', content: 'hi' }, { type: 'future_tool_call', id: 'ft_1', payload: { deep: [1, 2] } }];
  assert.equal((await post({ model: 'gpt-test', input })).status, 200);
  assert.deepEqual(bodies[0]!.input, input);
  for (const bad of [[{ id: 'x' }], [{ type: 7 }], [{ type: 'function_call', name: 'f', arguments: '{}' }]]) {
    const refused = await post({ model: 'gpt-test', input: [{ role: 'user', content: 'hi' }, ...bad] });
    assert.equal(refused.status, 400, JSON.stringify(bad));
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /^input\[1\]/);
  }
  assert.equal(bodies.length, 1, 'nothing malformed went upstream');
});

test('responses: an item_reference to an item this gateway returned is that item, in place; one it did not return, previous_response_id and conversation pass upstream as sent (streamed too), marked', async () => {
  const stream = 'event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\nevent: response.completed\ndata: {"type":"response.completed","sequence_number":1}\n\n';
  const { post, bodies, raw } = gatewayOver((body) => (body.stream ? new Response(stream, { headers: { 'content-type': 'text/event-stream' } }) : Response.json(answered(bodies.length, 'Answered.'))));
  const first = (await (await post({ model: 'gpt-test', input: 'Why does TimeDelta round wrongly?' })).json()) as { output: Item[] };
  const shown = first.output[0]!;
  const next = [{ type: 'message', role: 'user', content: 'Why does TimeDelta round wrongly?' }, { type: 'item_reference', id: shown.id }, { type: 'message', role: 'user', content: 'And the fix?' }];
  const resolved = await post({ model: 'gpt-test', input: next });
  assert.equal(resolved.status, 200);
  assert.equal(resolved.headers.get(PASS_THROUGH_HEADER), null);
  assert.deepEqual(bodies[1]!.input, [next[0], shown, next[2]], 'the reference is the item the gateway returned, in its place');
  assert.ok(bodies[1]!.tools.some((entry: Item) => entry.name === 'read_tool_output'), 'managed by the gateway');

  for (const [body, reason] of [
    [{ model: 'gpt-test', input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'msg_elsewhere' }] }, 'item_reference'],
    [{ model: 'gpt-test', input: 'go on', previous_response_id: 'resp_upstream_9' }, 'previous_response_id'],
    [{ model: 'gpt-test', input: 'go on', conversation: 'conv_1', stream: true }, 'conversation'],
  ] as const) {
    const before = raw.length;
    const response = await post(body);
    assert.equal(response.status, 200, reason);
    assert.equal(response.headers.get(PASS_THROUGH_HEADER), reason);
    assert.equal(raw.length, before + 1);
    assert.equal(raw.at(-1), JSON.stringify(body), `${reason}: the request as it came`);
    const text = await response.text();
    if ('stream' in body) assert.equal(text, stream, 'the upstream stream as it came');
    else assert.match(text, /Answered\./);
  }
});

test('responses: an item_reference is resolved by any gateway over the same store (another process, a restart), which sends the upstream the bytes the first would', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-items-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const [storesA, storesB] = [openSqliteStores({ path: join(dir, 'strata.db') }), openSqliteStores({ path: join(dir, 'strata.db') })];
  t.after(async () => {
    await storesA.close();
    await storesB.close();
  });
  const answer = (n: number) => Response.json(answered(n, `Answer ${n}.`));
  const a = gatewayOver(() => answer(1), storesA);
  const first = (await (await a.post({ model: 'gpt-test', input: 'Why does TimeDelta round wrongly?' })).json()) as { output: Item[] };
  const next = { model: 'gpt-test', input: [{ type: 'message', role: 'user', content: 'Why does TimeDelta round wrongly?' }, { type: 'item_reference', id: first.output[0]!.id }, { type: 'message', role: 'user', content: 'And the fix?' }] };
  // Another gateway over the same file, which never returned the item, and the first one, each asked the same next request.
  const b = gatewayOver(() => answer(2), storesB);
  const fromB = await b.post(next);
  assert.equal(fromB.status, 200);
  assert.equal(fromB.headers.get(PASS_THROUGH_HEADER), null, 'resolved, not passed through');
  assert.deepEqual(b.bodies[0]!.input[1], first.output[0], 'the reference is the item the other gateway returned');
  const c = gatewayOver(() => answer(2), createMemoryStores());
  assert.equal((await c.post(next)).headers.get(PASS_THROUGH_HEADER), 'item_reference', 'a store that never held the item passes it through');
  await a.post(next);
  assert.equal(b.raw[0], a.raw[1], 'both gateways send the same bytes');
});

test('responses: the client items beside an output Strata masks stay with it, in their place (before the masking they were left out)', async () => {
  const rules = await loadProviderRules();
  const { post, bodies } = gatewayOver(() => Response.json(answered(1)));
  const body = (step: number) => Array.from({ length: 150 }, (_, line) => `step ${step} line ${line}: value=${(step * 131 + line * 17) % 1000}`).join('\n');
  const input: Item[] = [{ type: 'message', role: 'user', content: 'Audit every step.' }];
  for (let step = 1; step <= 12; step += 1) {
    input.push(
      { type: 'function_call', id: `fc_${step}`, call_id: `call-${step}`, name: 'run_step', arguments: `{"step":${step}}` },
      { type: 'function_call_output', call_id: `call-${step}`, output: body(step) },
      { type: 'web_search_call', id: `ws_${step}`, status: 'completed', action: { type: 'search', query: `step ${step}` } },
    );
  }
  input.push({ type: 'message', role: 'user', content: 'Summarize.' });
  const response = await post({ model: 'gpt-test', input, tools: [{ type: 'web_search' }, { type: 'function', name: 'run_step', parameters: { type: 'object' } }] });
  assert.equal(response.status, 200, await response.clone().text());
  const sent = bodies[0]!.input as Item[];
  const masked = sent.filter((item) => item.type === 'function_call_output' && item.output !== body(Number(String(item.call_id).slice('call-'.length))));
  assert.ok(masked.length > 0, 'the window masked some outputs');
  for (const output of sent.filter((item) => item.type === 'function_call_output')) {
    const step = String(output.call_id).slice('call-'.length);
    const at = sent.indexOf(output);
    assert.deepEqual(sent[at + 1], input.find((item) => item.id === `ws_${step}`), `step ${step}: its web search right after its output`);
  }
  if (rules) assert.deepEqual(rules.violations(toOpenAIChat(fromResponsesInput(sent)), 'openai'), []);
});
