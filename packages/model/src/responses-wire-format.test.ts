// The `openai:` path over the Responses API (`openaiApi: 'responses'`), on the
// wire, like the chat-completions tests in provider-wire-format.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanonicalHistory } from '@strata/context';
import { createLanguageModel } from './create-language-model.js';
import { createModelClient } from './create-model-client.js';
import { ContextOverflowError } from './errors/context-overflow-error.js';
import { generate } from './generate.js';
import type { ModelEvent } from './model-client.js';
import { startProviderServer, type CannedResponse } from './provider-test-server.js';

const HISTORY: CanonicalHistory = [
  { role: 'system', content: 'You are a weather assistant.' },
  { role: 'user', content: 'Weather in Oslo?' },
];
const WEATHER_TOOL = { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } };

const created = (id: string) => ['response.created', { type: 'response.created', sequence_number: 0, response: { id, object: 'response', created_at: 1_764_000_000, model: 'gpt-4.1-2025-04-14', status: 'in_progress' } }] as const;
const completed = (usage: Record<string, unknown>) => ['response.completed', { type: 'response.completed', sequence_number: 9, response: { id: 'resp', status: 'completed', incomplete_details: null, usage } }] as const;

const RESPONSES_TOOL_CALL: CannedResponse = {
  status: 200,
  events: [
    created('resp_1'),
    ['response.output_item.added', { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_oslo', name: 'get_weather', arguments: '', status: 'in_progress' } }],
    ['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', sequence_number: 2, item_id: 'fc_1', output_index: 0, delta: '{"city":' }],
    ['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', sequence_number: 3, item_id: 'fc_1', output_index: 0, delta: '"Oslo"}' }],
    ['response.output_item.done', { type: 'response.output_item.done', sequence_number: 4, output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_oslo', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' } }],
    completed({ input_tokens: 1200, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1240 }),
  ],
};

const RESPONSES_TEXT: CannedResponse = {
  status: 200,
  events: [
    created('resp_2'),
    ['response.output_item.added', { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] } }],
    ['response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Oslo 4°C.' }],
    ['response.output_item.done', { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Oslo 4°C.', annotations: [] }] } }],
    completed({ input_tokens: 1300, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1305 }),
  ],
};

/** The Responses API's overflow body (HTTP 400, `context_length_exceeded`). */
const RESPONSES_OVERFLOW: CannedResponse = {
  status: 400,
  json: { error: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } },
};

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const seen: ModelEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

test('OpenAI Responses API: a streamed tool call with cached usage, its result sent back as function_call_output, then text', async () => {
  const server = await startProviderServer([RESPONSES_TOOL_CALL, RESPONSES_TEXT]);
  try {
    const client = createModelClient({ model: createLanguageModel({ model: 'openai:gpt-4.1', openaiApi: 'responses', env: { OPENAI_API_KEY: 'sk-test-key', OPENAI_BASE_URL: server.baseURL } }) });
    const first = await collect(client.stream({ messages: HISTORY, tools: [WEATHER_TOOL] }));
    assert.deepEqual(first.flatMap((event) => (event.type === 'tool-call' ? [event.toolCall] : [])), [{ id: 'call_oslo', name: 'get_weather', input: { city: 'Oslo' } }]);
    const finish = first.at(-1);
    assert.ok(finish?.type === 'finish');
    assert.equal(finish.reason, 'tool-calls');
    assert.equal(finish.usage.inputTokens, 1200);
    assert.equal(finish.usage.cachedInputTokens, 1024);
    assert.equal(finish.usage.outputTokens, 40);

    const [request] = server.requests;
    assert.equal(request?.url, '/v1/responses');
    assert.equal(request?.headers.authorization, 'Bearer sk-test-key');
    assert.equal(request?.body.stream, true);
    assert.deepEqual(request?.body.input, [
      { role: 'system', content: 'You are a weather assistant.' },
      { role: 'user', content: [{ type: 'input_text', text: 'Weather in Oslo?' }] },
    ]);
    assert.deepEqual(request?.body.tools, [{ type: 'function', name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_TOOL.parameters }]);

    const second = await generate(client, { messages: [...HISTORY, finish.message, { role: 'tool', toolCallId: 'call_oslo', toolName: 'get_weather', content: '4°C' }], tools: [WEATHER_TOOL] });
    assert.equal(second.message.content, 'Oslo 4°C.');
    const sentBack = server.requests[1]?.body.input as Array<Record<string, unknown>>;
    assert.deepEqual(sentBack.slice(2).map((item) => [item.type, item.call_id]), [['function_call', 'call_oslo'], ['function_call_output', 'call_oslo']]);
    assert.equal(sentBack[3]?.output, '4°C');
  } finally {
    await server.close();
  }
});

test('OpenAI Responses API: the context_length_exceeded body becomes a ContextOverflowError, sent once', async () => {
  const server = await startProviderServer([RESPONSES_OVERFLOW, RESPONSES_TEXT]);
  try {
    const client = createModelClient({ model: createLanguageModel({ model: 'openai:gpt-4.1', openaiApi: 'responses', apiKey: 'sk-test', baseURL: server.baseURL }), sleep: async () => undefined });
    const events = await collect(client.stream({ messages: HISTORY }));
    const error = events.at(-1);
    assert.ok(error?.type === 'error');
    assert.ok(ContextOverflowError.isInstance(error.error), String(error.error));
    assert.equal(error.error.provider, 'openai.responses');
    assert.equal(error.error.statusCode, 400);
    assert.match(error.error.responseBody ?? '', /context_length_exceeded/);
    assert.equal(server.requests.length, 1, 'an overflow is not retried by the transport');
  } finally {
    await server.close();
  }
});
