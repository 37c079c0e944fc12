// --provider: the chat front end over an Anthropic upstream and the messages front end over an OpenAI chat upstream,
// driven by the real openai and @anthropic-ai/sdk clients through a STEPS-step tool loop with recorded outputs.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import fc from 'fast-check';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { toOpenAIChat } from '@strata/context';
import { loadProviderRules } from '@strata/testing';
import { ConfigurationError } from '@strata/context';
import { createMemoryStores } from '@strata/store';
import { createGatewayApp } from './gateway-app.js';
import { startGateway } from './gateway-server.js';
import { ANTHROPIC_VERSION, DEFAULT_ANTHROPIC_MAX_TOKENS, DROPPED_FIELDS_HEADER, UPSTREAM_ERROR_FIELD, translatedModel, translatedModelList, translatedWire, upstreamFields } from './provider-wire.js';
import { listen, recordedOutputs, STEPS, WINDOW } from './testing/gateway-fixtures.js';
import { FINAL_ANSWER, MODEL_IDS, scriptedUpstream, type ScriptedUpstream, type UpstreamDialect } from './testing/scripted-upstream.js';
import { ANTHROPIC_WIRE, OPENAI_WIRE } from './wires.js';

const TASK = 'TASK: find why marshmallow serialises a TimeDelta field with a rounding error and propose the fix.';
const SYSTEM = 'You are a careful maintainer of marshmallow.';
const STEP_PARAMETERS = { type: 'object' as const, properties: { step: { type: 'integer' as const } }, required: ['step'] };
const STEP_DESCRIPTION = 'Runs one investigation step and returns its output.';

async function gatewayOver(t: TestContext, dialect: UpstreamDialect, provider: 'openai' | 'anthropic' | undefined): Promise<{ upstream: ScriptedUpstream; url: string }> {
  const upstream = scriptedUpstream(dialect);
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0, provider });
  t.after(() => gateway.close());
  return { upstream, url: gateway.url };
}

/** The loop's read-backs: every output read whole, byte-exact; the gateway made its own read calls. */
function checkReadBack(upstream: ScriptedUpstream, outputs: readonly string[]): void {
  assert.ok(upstream.requests.length > STEPS + 1, `the gateway made its own read calls too: ${upstream.requests.length}`);
  assert.equal(upstream.readBack.size, STEPS, `outputs read back: ${upstream.readBack.size}`);
  for (const [callId, text] of upstream.readBack) assert.equal(text, outputs[Number(callId.slice('call-'.length))], callId);
}

/** The largest upstream request's JSON, in characters: what the window kept it to. */
const largestRequest = (upstream: ScriptedUpstream): number => Math.max(...upstream.requests.map(({ body }) => JSON.stringify(body).length));

test(`openai chat client over an Anthropic upstream (--provider anthropic), streamed and not: a ${STEPS}-step tool loop in Anthropic's API upstream`, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const { upstream, url } = await gatewayOver(t, 'anthropic', 'anthropic');
  const client = new OpenAI({ baseURL: url, apiKey: 'client-key', maxRetries: 0 });
  const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: 'function', function: { name: 'run_step', description: STEP_DESCRIPTION, parameters: STEP_PARAMETERS } }];
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: TASK }];
  const seen: string[] = [];
  let final = '';
  for (let round = 0; round <= STEPS + 1 && final === ''; round += 1) {
    // `seed` and `logprobs` have no meaning in Anthropic's API.
    const request = { model: 'claude-test', messages, tools, seed: 7, logprobs: false };
    let completion: OpenAI.Chat.ChatCompletion;
    if (round % 2 === 0) {
      const { data, response } = await client.chat.completions.create(request).withResponse();
      assert.equal(response.headers.get(DROPPED_FIELDS_HEADER), 'logprobs, seed');
      assert.deepEqual([data.usage?.prompt_tokens, data.usage?.completion_tokens, data.usage?.total_tokens], [1_000, 20, 1_020], "the upstream's usage, mapped");
      completion = data;
    } else completion = await client.chat.completions.stream(request).finalChatCompletion();
    const choice = completion.choices[0]!;
    const calls = (choice.message.tool_calls ?? []).filter((call) => call.type === 'function');
    seen.push(...calls.map((call) => call.function.name));
    assert.equal(choice.finish_reason, calls.length > 0 ? 'tool_calls' : 'stop', `round ${round}`);
    if (calls.length === 0) {
      final = choice.message.content ?? '';
      break;
    }
    messages.push({ role: 'assistant', content: choice.message.content, tool_calls: calls });
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: outputs[(JSON.parse(call.function.arguments) as { step: number }).step]! });
  }
  assert.equal(final, FINAL_ANSWER);
  assert.equal(seen.filter((name) => name === 'run_step').length, STEPS, 'the client ran every step');
  assert.deepEqual(seen.filter((name) => name !== 'run_step'), [], 'the client never sees read_tool_output');
  checkReadBack(upstream, outputs);
  t.diagnostic(`chat over anthropic: upstream requests ${upstream.requests.length}, largest ${largestRequest(upstream)} JSON characters, outputs read back ${upstream.readBack.size}`);
  for (const [index, { body, history, headers }] of upstream.requests.entries()) {
    if (rules) assert.deepEqual(rules.violations(toOpenAIChat(history), 'anthropic'), [], `request ${index}`);
    assert.equal(body.max_tokens, DEFAULT_ANTHROPIC_MAX_TOKENS, `request ${index}: the default max_tokens`);
    assert.match(JSON.stringify(body.system), /careful maintainer/, `request ${index}: the system prompt in system`);
    assert.ok((body.messages as Array<{ role: string }>).every((message) => message.role === 'user' || message.role === 'assistant'), `request ${index}: Anthropic roles only`);
    assert.equal(body.seed, undefined);
    assert.equal(body.logprobs, undefined);
    assert.equal(body.stream, undefined, 'called unstreamed');
    assert.deepEqual((body.tools as Array<{ name: string; input_schema: unknown }>).map((tool) => [tool.name, typeof tool.input_schema]), [['run_step', 'object'], ['read_tool_output', 'object']]);
    assert.equal(headers['x-api-key'], 'client-key', "the client's Bearer key as Anthropic's header");
    assert.equal(headers.authorization, undefined);
    assert.equal(headers['anthropic-version'], ANTHROPIC_VERSION);
  }
});

test(`anthropic messages client over an OpenAI chat upstream (--provider openai), streamed and not: a ${STEPS}-step tool loop in the chat API upstream`, async (t) => {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) return t.skip('../shared is absent');
  const { upstream, url } = await gatewayOver(t, 'openai-chat', 'openai');
  const client = new Anthropic({ baseURL: url.replace(/\/v1$/, ''), apiKey: 'client-key', maxRetries: 0 });
  const tools: Anthropic.Tool[] = [{ name: 'run_step', description: STEP_DESCRIPTION, input_schema: STEP_PARAMETERS }];
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: TASK }];
  const seen: string[] = [];
  let final = '';
  for (let round = 0; round <= STEPS + 1 && final === ''; round += 1) {
    // `top_k` has no meaning in the chat API.
    const request = { model: 'gpt-test', max_tokens: 1_024, system: SYSTEM, messages, tools, top_k: 5 };
    let message: Anthropic.Message;
    if (round % 2 === 0) {
      const { data, response } = await client.messages.create(request).withResponse();
      assert.equal(response.headers.get(DROPPED_FIELDS_HEADER), 'top_k');
      assert.deepEqual([data.usage.input_tokens, data.usage.output_tokens], [1_000, 20], "the upstream's usage, mapped");
      message = data;
    } else message = await client.messages.stream(request).finalMessage();
    const uses = message.content.filter((block) => block.type === 'tool_use');
    seen.push(...uses.map((block) => block.name));
    assert.equal(message.stop_reason, uses.length > 0 ? 'tool_use' : 'end_turn', `round ${round}`);
    if (uses.length === 0) {
      final = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      break;
    }
    messages.push({ role: 'assistant', content: message.content });
    messages.push({ role: 'user', content: uses.map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: outputs[(block.input as { step: number }).step]! })) });
  }
  assert.equal(final, FINAL_ANSWER);
  assert.equal(seen.filter((name) => name === 'run_step').length, STEPS, 'the client ran every step');
  assert.deepEqual(seen.filter((name) => name !== 'run_step'), [], 'the client never sees read_tool_output');
  checkReadBack(upstream, outputs);
  t.diagnostic(`messages over openai: upstream requests ${upstream.requests.length}, largest ${largestRequest(upstream)} JSON characters, outputs read back ${upstream.readBack.size}`);
  for (const [index, { body, headers }] of upstream.requests.entries()) {
    if (rules) assert.deepEqual(rules.violations(body.messages, 'openai'), [], `request ${index}`);
    assert.deepEqual(body.messages[0], { role: 'system', content: SYSTEM }, `request ${index}: the system prompt as the first message`);
    assert.equal(body.max_completion_tokens, 1_024);
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.top_k, undefined);
    assert.equal(body.system, undefined);
    assert.deepEqual((body.tools as Array<{ type: string; function: { name: string } }>).map((tool) => [tool.type, tool.function.name]), [['function', 'run_step'], ['function', 'read_tool_output']]);
    assert.equal(headers.authorization, 'Bearer client-key', "the client's x-api-key as a Bearer key");
  }
});

test('an upstream error of the other API keeps its status, in the client\'s error shape, its own body in upstream_error', async (t) => {
  const overAnthropic = await gatewayOver(t, 'anthropic', 'anthropic');
  const anthropicError = { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } };
  overAnthropic.upstream.fail = { status: 429, body: JSON.stringify(anthropicError) };
  const openai = new OpenAI({ baseURL: overAnthropic.url, apiKey: 'k', maxRetries: 0 });
  await assert.rejects(openai.chat.completions.create({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => {
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 429);
    assert.equal(error.type, 'rate_limit_error');
    assert.match(error.message, /slow down/);
    return true;
  });
  const raw = await fetch(`${overAnthropic.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], seed: 1 }) });
  assert.equal(raw.status, 429);
  assert.equal(raw.headers.get(DROPPED_FIELDS_HEADER), 'seed');
  assert.deepEqual(((await raw.json()) as Record<string, unknown>)[UPSTREAM_ERROR_FIELD], anthropicError);

  const overOpenAI = await gatewayOver(t, 'openai-chat', 'openai');
  const openAIError = { error: { message: 'too long', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } };
  overOpenAI.upstream.fail = { status: 400, body: JSON.stringify(openAIError) };
  const anthropic = new Anthropic({ baseURL: overOpenAI.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
  await assert.rejects(anthropic.messages.create({ model: 'gpt-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => {
    assert.ok(error instanceof Anthropic.APIError);
    assert.equal(error.status, 400);
    assert.match(error.message, /too long/);
    const body = error.error as Record<string, any>;
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.deepEqual(body[UPSTREAM_ERROR_FIELD], openAIError);
    return true;
  });
});

test('--provider anthropic refuses /v1/responses with a 400 naming --provider; count_tokens over an OpenAI upstream is our own count, nothing sent upstream', async (t) => {
  const overAnthropic = await gatewayOver(t, 'anthropic', 'anthropic');
  const refused = await fetch(`${overAnthropic.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', input: 'hi' }) });
  assert.equal(refused.status, 400);
  assert.match(((await refused.json()) as { error: { message: string } }).error.message, /--provider anthropic/);
  assert.equal(overAnthropic.upstream.requests.length, 0);

  const overOpenAI = await gatewayOver(t, 'openai-chat', 'openai');
  const anthropic = new Anthropic({ baseURL: overOpenAI.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
  const short = await anthropic.messages.countTokens({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
  const long = await anthropic.messages.countTokens({ model: 'gpt-test', system: SYSTEM, messages: [{ role: 'user', content: TASK.repeat(20) }] });
  assert.ok(short.input_tokens > 0 && long.input_tokens > short.input_tokens + 200, `${short.input_tokens} < ${long.input_tokens}`);
  assert.equal(overOpenAI.upstream.requests.length, 0, 'never forwarded');
});

test('the model list and a model, in the client\'s API with the client\'s key: an OpenAI client over Anthropic reads every page; an Anthropic client over OpenAI gets one page; without --provider each passes through', async (t) => {
  const created = 1_700_000_000;
  const overAnthropic = await gatewayOver(t, 'anthropic', 'anthropic');
  const openai = new OpenAI({ baseURL: overAnthropic.url, apiKey: 'k', maxRetries: 0 });
  const listed: OpenAI.Models.Model[] = [];
  for await (const model of openai.models.list()) listed.push(model);
  assert.deepEqual(listed, MODEL_IDS.map((id) => ({ id, object: 'model', created, owned_by: 'anthropic' })));
  assert.deepEqual(overAnthropic.upstream.modelRequests.map(({ url }) => url), ['/v1/models?limit=1000', '/v1/models?limit=1000&after_id=org%2Fmodel-b'], 'every page read');
  for (const { headers } of overAnthropic.upstream.modelRequests) {
    assert.equal(headers['x-api-key'], 'k');
    assert.equal(headers['anthropic-version'], ANTHROPIC_VERSION);
    assert.equal(headers.authorization, undefined);
  }
  assert.deepEqual(await openai.models.retrieve('org/model-b'), { id: 'org/model-b', object: 'model', created, owned_by: 'anthropic' });
  await assert.rejects(openai.models.retrieve('nope'), (error: unknown) => error instanceof OpenAI.NotFoundError && /no such model/.test(error.message));
  overAnthropic.upstream.fail = { status: 401, body: JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }) };
  await assert.rejects(openai.models.list(), (error: unknown) => error instanceof OpenAI.AuthenticationError && /invalid x-api-key/.test(error.message));

  const overOpenAI = await gatewayOver(t, 'openai-chat', 'openai');
  const anthropic = new Anthropic({ baseURL: overOpenAI.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
  const models: Anthropic.ModelInfo[] = [];
  for await (const model of anthropic.models.list()) models.push(model);
  const createdAt = new Date(created * 1000).toISOString();
  assert.deepEqual(models, MODEL_IDS.map((id) => ({ type: 'model', id, display_name: id, created_at: createdAt })));
  assert.deepEqual(await anthropic.models.retrieve('org/model-b'), { type: 'model', id: 'org/model-b', display_name: 'org/model-b', created_at: createdAt });
  for (const { headers } of overOpenAI.upstream.modelRequests) {
    assert.equal(headers.authorization, 'Bearer k');
    assert.equal(headers['x-api-key'], undefined);
  }

  const anthropicAsItIs = await gatewayOver(t, 'anthropic', undefined);
  const direct = new Anthropic({ baseURL: anthropicAsItIs.url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 });
  const relayed: Anthropic.ModelInfo[] = [];
  for await (const model of direct.models.list()) relayed.push(model);
  assert.deepEqual(relayed.map(({ id, display_name }) => [id, display_name]), MODEL_IDS.map((id) => [id, id.toUpperCase()]), 'Anthropic\'s own list, page by page');
  assert.equal(anthropicAsItIs.upstream.modelRequests.length, 2);
  assert.match(anthropicAsItIs.upstream.modelRequests[1]!.url, /after_id=/, 'the client\'s query passed on');
  // The client's key (this SDK sends it as a bearer token, curl users as x-api-key) and its API version go upstream.
  const byKey = await fetch(`${anthropicAsItIs.url}/models/model-a`, { headers: { 'x-api-key': 'key-2', 'anthropic-version': ANTHROPIC_VERSION } });
  assert.equal(((await byKey.json()) as { display_name: string }).display_name, 'MODEL-A');
  const [first, , third] = anthropicAsItIs.upstream.modelRequests;
  assert.equal(first!.headers.authorization, 'Bearer k');
  assert.ok(first!.headers['anthropic-version'], 'the client\'s anthropic-version goes upstream');
  assert.equal(third!.headers['x-api-key'], 'key-2');
  assert.equal(third!.headers['anthropic-version'], ANTHROPIC_VERSION);
});

test('any upstream model answer translates to a list or model of the client\'s API: entries with no string id are left out, never thrown on', async () => {
  const entry = fc.oneof(fc.jsonValue(), fc.record({ id: fc.oneof(fc.string(), fc.jsonValue()), created: fc.jsonValue(), created_at: fc.oneof(fc.string(), fc.date({ noInvalidDate: false }).map(String), fc.jsonValue()) }, { requiredKeys: [] }));
  const body = fc.oneof(fc.jsonValue(), fc.record({ data: fc.oneof(fc.array(entry), fc.jsonValue()), has_more: fc.constant(false) }, { requiredKeys: [] }));
  await fc.assert(fc.asyncProperty(fc.constantFrom('openai' as const, 'anthropic' as const), body, async (client, answered) => {
    const list = (await (await translatedModelList(client, async () => Response.json(answered))).json()) as { data: Array<Record<string, unknown>> };
    const sent = typeof answered === 'object' && answered !== null && !Array.isArray(answered) && Array.isArray(answered.data) ? answered.data : [];
    const ids = sent.flatMap((model) => (typeof model === 'object' && model !== null && !Array.isArray(model) && typeof model.id === 'string' ? [model.id] : []));
    assert.deepEqual(list.data.map(({ id }) => id), ids);
    for (const model of list.data) {
      if (client === 'openai') assert.ok(Number.isInteger(model.created) && model.object === 'model', JSON.stringify(model));
      else assert.ok(typeof model.created_at === 'string' && !Number.isNaN(Date.parse(model.created_at)), JSON.stringify(model));
    }
    const one = await translatedModel(client, Response.json(answered));
    assert.ok(one.status === 200 || one.status === 404, `status ${one.status}`);
  }), { numRuns: 300 });
});

test('the client\'s fields in the other API: limits, stops, temperature, tool choice; tools the other API cannot declare are dropped and listed', () => {
  assert.deepEqual(upstreamFields('openai', { model: 'm', max_tokens: 50, max_completion_tokens: 70, stop: 'END', temperature: 1.6, tool_choice: { type: 'function', function: { name: 'run_step' } }, parallel_tool_calls: false, user: 'u-1', n: 2 }), {
    fields: { model: 'm', max_tokens: 70, stop_sequences: ['END'], temperature: 1, metadata: { user_id: 'u-1' }, tool_choice: { type: 'tool', name: 'run_step', disable_parallel_tool_use: true } },
    dropped: ['n'],
  });
  assert.deepEqual(upstreamFields('openai', { tool_choice: 'required' }).fields.tool_choice, { type: 'any' });
  assert.deepEqual(upstreamFields('anthropic', { model: 'm', max_tokens: 9, stop_sequences: ['END'], tool_choice: { type: 'any', disable_parallel_tool_use: true }, metadata: { user_id: 'u-2' }, thinking: { type: 'enabled' }, top_k: 3 }), {
    fields: { model: 'm', max_completion_tokens: 9, stop: ['END'], tool_choice: 'required', parallel_tool_calls: false, user: 'u-2' },
    dropped: ['thinking', 'top_k'],
  });
  const wire = translatedWire(ANTHROPIC_WIRE, OPENAI_WIRE);
  const tools = [{ name: 'run_step', description: 'd', input_schema: STEP_PARAMETERS }, { type: 'web_search_20250305', name: 'web_search' }];
  const read = { name: 'read_tool_output', description: 'r', parameters: { type: 'object' } };
  assert.deepEqual(wire.upstreamTools(tools, read), [
    { type: 'function', function: { name: 'run_step', description: 'd', parameters: STEP_PARAMETERS } },
    { type: 'function', function: { name: 'read_tool_output', description: 'r', parameters: { type: 'object' } } },
  ]);
  assert.deepEqual(wire.dropped!({ model: 'm', messages: [], tools }), ['tools[1]']);
});

test('a wire in its client\'s own API sends the client\'s tool entries as they came, less one with the gateway\'s name, then read', () => {
  const read = { name: 'read_tool_output', description: 'r', parameters: { type: 'object' } };
  const chat = [{ type: 'function', function: { name: 'run_step', parameters: STEP_PARAMETERS }, extra: 1 }, { type: 'function', function: { name: 'read_tool_output', parameters: {} } }];
  assert.deepEqual(OPENAI_WIRE.upstreamTools(chat, read), [chat[0], { type: 'function', function: { name: 'read_tool_output', description: 'r', parameters: { type: 'object' } } }]);
  const messages = [{ type: 'web_search_20250305', name: 'web_search' }, { name: 'read_tool_output', input_schema: {} }];
  assert.deepEqual(ANTHROPIC_WIRE.upstreamTools(messages, read), [messages[0], { name: 'read_tool_output', description: 'r', input_schema: { type: 'object' } }]);
});

test('an upstream answer in the client\'s API: a length stop, cache reads in the usage, text beside a tool call', () => {
  const chat = translatedWire(OPENAI_WIRE, ANTHROPIC_WIRE).answer!({ id: 'msg_1', model: 'claude-test', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'cut' }], stop_reason: 'max_tokens', usage: { input_tokens: 10, cache_read_input_tokens: 900, cache_creation_input_tokens: 90, output_tokens: 4 } });
  assert.deepEqual(chat.choices, [{ index: 0, message: { role: 'assistant', content: 'cut' }, finish_reason: 'length' }]);
  assert.deepEqual(chat.usage, { prompt_tokens: 1_000, completion_tokens: 4, total_tokens: 1_004, prompt_tokens_details: { cached_tokens: 900 } });
  const message = translatedWire(ANTHROPIC_WIRE, OPENAI_WIRE).answer!({ id: 'chatcmpl-1', model: 'gpt-test', choices: [{ index: 0, message: { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run_step', arguments: '{"step":2}' } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 1_000, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 600 } } });
  assert.deepEqual(message.content, [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'call_1', name: 'run_step', input: { step: 2 } }]);
  assert.equal(message.stop_reason, 'tool_use');
  assert.deepEqual(message.usage, { input_tokens: 400, output_tokens: 7, cache_read_input_tokens: 600, cache_creation_input_tokens: 0 });
  const cut = translatedWire(ANTHROPIC_WIRE, OPENAI_WIRE).answer!({ choices: [{ index: 0, message: { role: 'assistant', content: 'cu' }, finish_reason: 'length' }] });
  assert.equal(cut.stop_reason, 'max_tokens');
});

test('a provider that is neither openai nor anthropic is a configuration error naming the setting', () => {
  const stores = createMemoryStores();
  assert.throws(() => createGatewayApp({ upstream: 'http://127.0.0.1:1/v1', windowTokens: WINDOW, sessionStore: stores.sessions, outputStore: stores.toolOutputs, provider: 'gemini' as never }), (error: unknown) => ConfigurationError.isInstance(error) && /options\.provider/.test((error as Error).message));
});
