// Real clients pointed at the gateway, each running a STEPS-step tool loop with recorded 2-9 KB outputs at a WINDOW-token
// window against a scripted upstream fake of its API: the official openai client (responses), the AI SDK's OpenAI
// (chat and responses) and Anthropic providers, LangChain's ChatOpenAI and ChatAnthropic.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { getEncoding } from 'js-tiktoken';
import OpenAI from 'openai';
import { toOpenAIChat } from '@strata/context';
import { loadProviderRules, type ProviderRules } from '@strata/testing';
import { CONTEXT_HEADER, SESSION_HEADER } from './gateway-app.js';
import { startGateway } from './gateway-server.js';
import { listen, recordedOutputs, STEPS, WINDOW } from './testing/gateway-fixtures.js';
import { FINAL_ANSWER, scriptedUpstream, type ScriptedUpstream, type UpstreamDialect } from './testing/scripted-upstream.js';

const TASK = 'TASK: find why marshmallow serialises a TimeDelta field with a rounding error and propose the fix.';
const SYSTEM = 'You are a careful maintainer of marshmallow.';
const STEP_PARAMETERS = { type: 'object' as const, properties: { step: { type: 'integer' as const } }, required: ['step'], additionalProperties: false };
const STEP_DESCRIPTION = 'Runs one investigation step and returns its output.';
const encoding = getEncoding('o200k_base');

/** What a client's loop reports: its final text and the name of every tool call it was shown. */
interface LoopOutcome {
  readonly final: string;
  readonly seen: readonly string[];
}

/**
 * Runs `loop` against a gateway over a scripted upstream of `dialect`, then
 * checks every upstream request (provider rules, the window, the task,
 * read_tool_output offered) and the read-backs (every output, byte-exact).
 */
async function throughGateway(t: TestContext, dialect: UpstreamDialect, loop: (urls: { v1: string; root: string }, outputs: readonly string[]) => Promise<LoopOutcome>, options: { reasoning?: boolean } = {}): Promise<ScriptedUpstream | undefined> {
  const outputs = recordedOutputs();
  const rules = await loadProviderRules();
  if (!outputs) {
    t.skip('../shared is absent');
    return undefined;
  }
  const upstream = scriptedUpstream(dialect, options);
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  const { final, seen } = await loop({ v1: gateway.url, root: gateway.url.replace(/\/v1$/, '') }, outputs);
  assert.match(final, /round the microseconds/, `requests ${upstream.requests.length}, read back ${upstream.readBack.size}`);
  assert.equal(seen.filter((name) => name === 'run_step').length, STEPS, 'the client ran every step');
  assert.deepEqual(seen.filter((name) => name !== 'run_step'), [], 'the client never sees read_tool_output');
  checkRequests(upstream, dialect, rules);
  assert.equal(upstream.readBack.size, STEPS, `outputs read back: ${upstream.readBack.size}`);
  for (const [callId, text] of upstream.readBack) assert.equal(text, outputs[Number(callId.slice('call-'.length))], callId);
  const largest = Math.max(...upstream.requests.map(({ body }) => requestTokens(body)));
  t.diagnostic(`${dialect}: upstream requests ${upstream.requests.length}, largest ${largest} o200k tokens (JSON), outputs read back ${upstream.readBack.size}`);
  return upstream;
}

/** An upper bound of a request's input: its system text, messages and tools as JSON, escapes and all, by o200k. */
function requestTokens(body: Record<string, any>): number {
  return encoding.encode(JSON.stringify([body.instructions ?? body.system ?? null, body.messages ?? body.input, body.tools ?? []])).length;
}

function checkRequests(upstream: ScriptedUpstream, dialect: UpstreamDialect, rules: ProviderRules | undefined): void {
  assert.ok(upstream.requests.length > STEPS + 1, 'the gateway made its own read calls too');
  for (const [index, { body, history }] of upstream.requests.entries()) {
    if (rules) {
      const messages = dialect === 'openai-chat' ? body.messages : toOpenAIChat(history);
      assert.deepEqual(rules.violations(messages, dialect === 'anthropic' ? 'anthropic' : 'openai'), [], `request ${index}`);
    }
    const tokens = requestTokens(body);
    assert.ok(tokens <= WINDOW, `request ${index}: ${tokens} tokens`);
    assert.ok(history.some((message) => message.role === 'user' && message.content.includes(TASK)), `request ${index}: the task`);
    const toolNames = (body.tools as Array<Record<string, any>> | undefined)?.map((entry) => entry.function?.name ?? entry.name);
    assert.ok(toolNames?.includes('read_tool_output') && toolNames.includes('run_step'), `request ${index}: tools ${JSON.stringify(toolNames)}`);
  }
}

/** The AI SDK's loop: the SDK runs the tool and calls the model again, up to STEPS + 5 steps. */
async function aiSdkLoop(model: LanguageModel, outputs: readonly string[], streamed: boolean, providerOptions?: Record<string, Record<string, string | boolean | string[]>>): Promise<LoopOutcome> {
  const tools = { run_step: tool({ description: STEP_DESCRIPTION, inputSchema: jsonSchema<{ step: number }>(STEP_PARAMETERS), execute: async ({ step }) => outputs[step]! }) };
  const request = { model, system: SYSTEM, prompt: TASK, tools, stopWhen: stepCountIs(STEPS + 5), maxRetries: 0, maxOutputTokens: 1_024, ...(providerOptions ? { providerOptions } : {}) };
  if (streamed) {
    const result = streamText(request);
    const final = await result.text;
    return { final, seen: (await result.steps).flatMap((step) => step.toolCalls.map((call) => call.toolName)) };
  }
  const result = await generateText(request);
  return { final: result.text, seen: result.steps.flatMap((step) => step.toolCalls.map((call) => call.toolName)) };
}

/** LangChain's loop, written by the host: invoke and stream by turns, tool messages appended. */
async function langChainLoop(model: ChatOpenAI | ChatAnthropic, toolEntry: Record<string, unknown>, outputs: readonly string[]): Promise<LoopOutcome> {
  const bound = model.bindTools([toolEntry as never]);
  const history: BaseMessage[] = [new SystemMessage(SYSTEM), new HumanMessage(TASK)];
  const seen: string[] = [];
  for (let round = 0; round <= STEPS + 1; round += 1) {
    let message: AIMessage;
    if (round % 2 === 0) message = await bound.invoke(history);
    else {
      let whole: AIMessageChunk | undefined;
      for await (const chunk of await bound.stream(history)) whole = whole ? whole.concat(chunk) : chunk;
      message = new AIMessage({ content: whole!.content, tool_calls: whole!.tool_calls ?? [], id: whole!.id, response_metadata: whole!.response_metadata });
    }
    const calls = message.tool_calls ?? [];
    seen.push(...calls.map((call) => call.name));
    if (calls.length === 0) return { final: typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? String(part.text) : '')).join(''), seen };
    history.push(message);
    for (const call of calls) history.push(new ToolMessage({ tool_call_id: call.id!, content: outputs[(call.args as { step: number }).step]! }));
  }
  return { final: '', seen };
}

test(`openai client, responses (streamed and not): a ${STEPS}-step tool loop at a ${WINDOW}-token window; reasoning items go back as received`, async (t) => {
  const contexts = new Set<string>();
  const upstream = await throughGateway(t, 'responses', async ({ v1 }, outputs) => {
    const client = new OpenAI({ baseURL: v1, apiKey: 'client-key', maxRetries: 0 });
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'run_step', description: STEP_DESCRIPTION, parameters: { ...STEP_PARAMETERS }, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: TASK }];
    const seen: string[] = [];
    for (let round = 0; round <= STEPS + 1; round += 1) {
      const request = { model: 'gpt-test', instructions: SYSTEM, input, tools, store: false, include: ['reasoning.encrypted_content' as const] };
      // Streamed by turns: the client's own stream reader rebuilds the response from the events.
      let response: OpenAI.Responses.Response;
      if (round % 2 === 0) {
        const { data, response: raw } = await client.responses.create(request).withResponse();
        contexts.add(raw.headers.get(CONTEXT_HEADER)!);
        assert.equal((data as unknown as { strata?: { contextId?: string } }).strata?.contextId, raw.headers.get(CONTEXT_HEADER), 'the extension field names the context');
        response = data;
      } else response = await client.responses.stream(request).finalResponse();
      assert.equal(response.usage?.input_tokens, 1_000, "the upstream's usage untouched");
      const calls = response.output.filter((item) => item.type === 'function_call') as unknown as Array<{ call_id: string; name: string; arguments: string }>;
      seen.push(...calls.map((call) => call.name));
      if (calls.length === 0) return { final: response.output_text, seen };
      input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
      for (const call of calls) input.push({ type: 'function_call_output', call_id: call.call_id, output: outputs[(JSON.parse(call.arguments) as { step: number }).step]! });
    }
    return { final: '', seen };
  }, { reasoning: true });
  if (!upstream) return;
  assert.equal(contexts.size, 1, 'one context for the conversation, keyed by its opening');
  // Every reasoning item upstream is one the model sent, as it sent it (encrypted content and all).
  let carried = 0;
  for (const { body } of upstream.requests) {
    assert.equal(body.instructions, SYSTEM, 'instructions go upstream as the client sent them');
    for (const item of body.input as Array<Record<string, unknown>>) {
      if (item.type !== 'reasoning') continue;
      carried += 1;
      assert.deepEqual(item, upstream.reasoning.get(String(item.id)), String(item.id));
    }
  }
  assert.ok(carried > STEPS, `reasoning items carried upstream: ${carried}`);
});

test(`AI SDK @ai-sdk/openai chat model, generateText: a ${STEPS}-step tool loop through the gateway`, async (t) => {
  await throughGateway(t, 'openai-chat', ({ v1 }, outputs) => aiSdkLoop(createOpenAI({ baseURL: v1, apiKey: 'client-key' }).chat('gpt-test'), outputs, false));
});

test(`AI SDK @ai-sdk/openai responses model, streamText: a ${STEPS}-step tool loop through the gateway; the encrypted reasoning goes back as the model sent it`, async (t) => {
  const providerOptions = { openai: { store: false, include: ['reasoning.encrypted_content'] } };
  const upstream = await throughGateway(t, 'responses', ({ v1 }, outputs) => aiSdkLoop(createOpenAI({ baseURL: v1, apiKey: 'client-key' }).responses('gpt-test'), outputs, true, providerOptions), { reasoning: true });
  if (!upstream) return;
  let carried = 0;
  for (const { body } of upstream.requests) {
    for (const item of body.input as Array<Record<string, unknown>>) {
      if (item.type !== 'reasoning') continue;
      carried += 1;
      assert.equal(item.encrypted_content, upstream.reasoning.get(String(item.id))?.encrypted_content, String(item.id));
    }
  }
  assert.ok(carried > STEPS, `reasoning items carried upstream: ${carried}`);
});

test(`AI SDK @ai-sdk/openai responses model without store: false: its item_references to what the gateway returned are resolved in place, and the ${STEPS}-step loop runs as with store: false`, async (t) => {
  let references = 0;
  // The client's own requests, as the SDK sends them (store: true by default: earlier items go back as item_reference).
  const counting: typeof fetch = async (url, init) => {
    const body = JSON.parse(String(init?.body ?? '{}')) as { input?: Array<{ type?: string }> };
    references += (body.input ?? []).filter((item) => item.type === 'item_reference').length;
    return fetch(url, init);
  };
  for (const streamed of [false, true]) {
    references = 0;
    const upstream = await throughGateway(t, 'responses', ({ v1 }, outputs) => aiSdkLoop(createOpenAI({ baseURL: v1, apiKey: 'client-key', fetch: counting }).responses('gpt-test'), outputs, streamed), { reasoning: true });
    if (!upstream) return;
    assert.ok(references > STEPS, `the client sent item_references: ${references}`);
    for (const [index, { body }] of upstream.requests.entries()) {
      assert.ok(!(body.input as Array<{ type?: string }>).some((item) => item.type === 'item_reference'), `request ${index}: every reference resolved`);
      assert.equal(body.store, undefined, 'the client\'s own fields, untouched');
    }
  }
});

test(`AI SDK @ai-sdk/anthropic, streamText: a ${STEPS}-step tool loop through the gateway`, async (t) => {
  await throughGateway(t, 'anthropic', ({ v1 }, outputs) => aiSdkLoop(createAnthropic({ baseURL: v1, apiKey: 'client-key' })('claude-test'), outputs, true));
});

test(`LangChain ChatOpenAI (invoke and stream): a ${STEPS}-step tool loop through the gateway`, async (t) => {
  await throughGateway(t, 'openai-chat', ({ v1 }, outputs) => langChainLoop(new ChatOpenAI({ model: 'gpt-test', apiKey: 'client-key', maxRetries: 0, configuration: { baseURL: v1 } }), { type: 'function', function: { name: 'run_step', description: STEP_DESCRIPTION, parameters: STEP_PARAMETERS } }, outputs));
});

test(`LangChain ChatAnthropic (invoke and stream): a ${STEPS}-step tool loop through the gateway`, async (t) => {
  await throughGateway(t, 'anthropic', ({ root }, outputs) => langChainLoop(new ChatAnthropic({ model: 'claude-test', apiKey: 'client-key', maxRetries: 0, anthropicApiUrl: root }), { name: 'run_step', description: STEP_DESCRIPTION, input_schema: STEP_PARAMETERS }, outputs));
});

test('responses: a malformed input is a 400 naming the field; a string input, unknown fields, the session header and an upstream error go through as on the other front ends', async (t) => {
  const upstream = scriptedUpstream('responses');
  const upstreamUrl = await listen(upstream.server);
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstreamUrl, windowTokens: WINDOW, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  const post = async (body: unknown) => {
    const response = await fetch(`${gateway.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: response.status, message: ((await response.json()) as { error: { message: string } }).error?.message };
  };
  for (const [body, pattern] of [
    [{ model: 'm', input: 7 }, /input: a string or an array/],
    [{ model: 'm', input: [{ type: 'message', role: 'user', content: 5 }] }, /input\[0\]\.content/],
    [{ model: 'm', input: 'hi', instructions: 3 }, /instructions/],
    ['{', /not JSON/],
  ] as const) {
    const { status, message } = await post(body);
    assert.equal(status, 400, JSON.stringify(body));
    assert.match(message ?? '', pattern, JSON.stringify(body));
  }
  assert.equal(upstream.requests.length, 0, 'nothing malformed went upstream');
  // A string input is one user message; fields the gateway does not read go upstream untouched.
  const client = new OpenAI({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0 });
  const response = await client.responses.create({ model: 'm', input: 'hello', temperature: 0.25, metadata: { run: 'x' } });
  assert.ok(response.output.some((item) => item.type === 'function_call' && item.name === 'run_step'));
  assert.deepEqual(upstream.requests[0]!.body.input, [{ type: 'message', role: 'user', content: 'hello' }]);
  assert.equal(upstream.requests[0]!.body.temperature, 0.25);
  assert.deepEqual(upstream.requests[0]!.body.metadata, { run: 'x' });
  assert.equal(upstream.requests[0]!.body.stream, undefined);
  assert.ok(FINAL_ANSWER.includes('round the microseconds'));
  // The x-strata-session header names the context here as on the other front ends.
  const named = await new OpenAI({ baseURL: gateway.url, apiKey: 'k', maxRetries: 0, defaultHeaders: { [SESSION_HEADER]: 'thread-9' } }).responses.create({ model: 'm', input: 'hello' }).withResponse();
  assert.equal(named.response.headers.get(CONTEXT_HEADER), 'thread-9');
  // An upstream error keeps its status and body.
  upstream.fail = { status: 429, body: JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited' } }) };
  await assert.rejects(client.responses.create({ model: 'm', input: 'hello again' }), (error: unknown) => {
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 429);
    assert.match(error.message, /slow down/);
    return true;
  });
});
