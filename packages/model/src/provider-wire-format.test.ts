import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanonicalHistory } from '@strata/context';
import { createLanguageModel } from './create-language-model.js';
import { createModelClient } from './create-model-client.js';
import { ContextOverflowError } from './errors/context-overflow-error.js';
import { RateLimitError } from './errors/rate-limit-error.js';
import { TransientProviderError } from './errors/transient-provider-error.js';
import { generate } from './generate.js';
import type { ModelEvent } from './model-client.js';
import { startProviderServer } from './provider-test-server.js';
import type { CannedResponse } from './provider-test-server.js';

const HISTORY: CanonicalHistory = [
  { role: 'system', content: 'You are a weather assistant.' },
  { role: 'user', content: 'Weather in Oslo and Lima?' },
];

const WEATHER_TOOL = { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } };

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const seen: ModelEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

// --- OpenAI chat completions -------------------------------------------------

function openAIChunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return { id: 'chatcmpl-9x', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'gpt-4.1-2025-04-14', system_fingerprint: 'fp_1', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
}

function openAIUsage(usage: Record<string, unknown>) {
  return { id: 'chatcmpl-9x', object: 'chat.completion.chunk', created: 1_764_000_000, model: 'gpt-4.1-2025-04-14', choices: [], usage };
}

const OPENAI_TOOL_CALLS: CannedResponse = {
  status: 200,
  events: [
    [undefined, openAIChunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_oslo', type: 'function', function: { name: 'get_weather', arguments: '' } }] })],
    [undefined, openAIChunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })],
    [undefined, openAIChunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] })],
    [undefined, openAIChunk({ tool_calls: [{ index: 1, id: 'call_lima', type: 'function', function: { name: 'get_weather', arguments: '' } }] })],
    [undefined, openAIChunk({ tool_calls: [{ index: 1, function: { arguments: '{"city":"Lima"}' } }] })],
    [undefined, openAIChunk({}, 'tool_calls')],
    [undefined, openAIUsage({ prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 0 } })],
    [undefined, '[DONE]'],
  ],
};

const OPENAI_TEXT: CannedResponse = {
  status: 200,
  events: [
    [undefined, openAIChunk({ role: 'assistant', content: '' })],
    [undefined, openAIChunk({ content: 'Oslo 4°C, ' })],
    [undefined, openAIChunk({ content: 'Lima 19°C.' })],
    [undefined, openAIChunk({}, 'stop')],
    [undefined, openAIUsage({ prompt_tokens: 1300, completion_tokens: 9, total_tokens: 1309 })],
    [undefined, '[DONE]'],
  ],
};

const OPENAI_OVERFLOW: CannedResponse = {
  status: 400,
  json: {
    error: {
      message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  },
};

test('OpenAI chat completions: parallel tool calls, cached usage, tool results sent back, then text', async () => {
  const server = await startProviderServer([OPENAI_TOOL_CALLS, OPENAI_TEXT]);
  try {
    const model = createLanguageModel({ model: 'openai:gpt-4.1', env: { OPENAI_API_KEY: 'sk-test-key', OPENAI_BASE_URL: server.baseURL } });
    const client = createModelClient({ model });
    assert.equal(client.provider, 'openai.chat');
    const first = await collect(client.stream({ messages: HISTORY, tools: [WEATHER_TOOL] }));
    assert.deepEqual(
      first.flatMap((event) => (event.type === 'tool-call' ? [event.toolCall] : [])),
      [
        { id: 'call_oslo', name: 'get_weather', input: { city: 'Oslo' } },
        { id: 'call_lima', name: 'get_weather', input: { city: 'Lima' } },
      ],
    );
    const finish = first.at(-1);
    assert.ok(finish?.type === 'finish');
    assert.equal(finish.reason, 'tool-calls');
    assert.equal(finish.rawReason, 'tool_calls');
    assert.equal(finish.usage.inputTokens, 1200);
    assert.equal(finish.usage.cachedInputTokens, 1024);
    assert.equal(finish.usage.outputTokens, 40);

    const [request] = server.requests;
    assert.equal(request?.url, '/v1/chat/completions');
    assert.equal(request?.headers.authorization, 'Bearer sk-test-key');
    assert.equal(request?.body.stream, true);
    assert.deepEqual(request?.body.messages, [
      { role: 'system', content: 'You are a weather assistant.' },
      { role: 'user', content: 'Weather in Oslo and Lima?' },
    ]);
    assert.deepEqual(request?.body.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_TOOL.parameters } }]);

    const second = await generate(client, {
      messages: [
        ...HISTORY,
        finish.message,
        { role: 'tool', toolCallId: 'call_oslo', toolName: 'get_weather', content: '4°C' },
        { role: 'tool', toolCallId: 'call_lima', toolName: 'get_weather', content: '19°C' },
      ],
      tools: [WEATHER_TOOL],
    });
    assert.equal(second.message.content, 'Oslo 4°C, Lima 19°C.');
    assert.equal(second.reason, 'stop');
    const sentBack = server.requests[1]?.body.messages as Array<Record<string, unknown>>;
    assert.deepEqual(sentBack.slice(2), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_oslo', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_lima', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lima"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_oslo', content: '4°C' },
      { role: 'tool', tool_call_id: 'call_lima', content: '19°C' },
    ]);
  } finally {
    await server.close();
  }
});

test('OpenAI chat completions: the context_length_exceeded body becomes a ContextOverflowError, sent once', async () => {
  const server = await startProviderServer([OPENAI_OVERFLOW, OPENAI_TEXT]);
  try {
    const client = createModelClient({ model: createLanguageModel({ model: 'openai:gpt-4.1', apiKey: 'sk-test', baseURL: server.baseURL }), sleep: async () => undefined });
    const events = await collect(client.stream({ messages: HISTORY }));
    const end = events.at(-1);
    assert.ok(end?.type === 'error');
    assert.ok(ContextOverflowError.isInstance(end.error));
    assert.equal(end.error.provider, 'openai.chat');
    assert.equal(end.error.statusCode, 400);
    assert.equal(end.error.limitTokens, 128_000);
    assert.equal(end.error.requestedTokens, 131_072);
    assert.match(end.error.responseBody ?? '', /context_length_exceeded/);
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test('OpenAI chat completions: a 429 with retry-after is retried and then answered', async () => {
  const rateLimited: CannedResponse = {
    status: 429,
    headers: { 'retry-after': '3' },
    json: { error: { message: 'Rate limit reached for gpt-4.1 on requests per min (RPM): Limit 3, Used 3, Requested 1.', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
  };
  const server = await startProviderServer([rateLimited, OPENAI_TEXT]);
  try {
    const waits: number[] = [];
    const client = createModelClient({ model: createLanguageModel({ model: 'openai:gpt-4.1', apiKey: 'sk-test', baseURL: server.baseURL }), sleep: async (delayMs) => void waits.push(delayMs) });
    const events = await collect(client.stream({ messages: HISTORY }));
    const retry = events.find((event) => event.type === 'retry');
    assert.ok(retry?.type === 'retry' && RateLimitError.isInstance(retry.error));
    assert.deepEqual(waits, [3000]);
    const end = events.at(-1);
    assert.ok(end?.type === 'finish');
    assert.equal(end.message.content, 'Oslo 4°C, Lima 19°C.');
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

test('OpenAI chat completions: an abort mid-stream ends the turn and closes the connection', async () => {
  const stalled: CannedResponse = { status: 200, hold: true, events: [[undefined, openAIChunk({ role: 'assistant', content: 'Partial ' })]] };
  const server = await startProviderServer([stalled]);
  try {
    const client = createModelClient({ model: createLanguageModel({ model: 'openai:gpt-4.1', apiKey: 'sk-test', baseURL: server.baseURL }) });
    const controller = new AbortController();
    const events: ModelEvent[] = [];
    for await (const event of client.stream({ messages: HISTORY, signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort(new Error('user cancelled'));
    }
    const end = events.at(-1);
    assert.ok(end?.type === 'aborted');
    assert.equal(end.timedOut, false);
    assert.equal(end.partial.content, 'Partial ');
    await server.hangUp();
    assert.deepEqual(server.hungUp, [0]);
  } finally {
    await server.close();
  }
});

// --- Anthropic messages -----------------------------------------------------

const SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds';

const ANTHROPIC_THINKING_TOOL_USE: CannedResponse = {
  status: 200,
  events: [
    ['message_start', { type: 'message_start', message: { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 472, cache_creation_input_tokens: 0, cache_read_input_tokens: 2048, output_tokens: 2 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Two cities, ' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'two calls.' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Checking both.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_oslo', name: 'get_weather', input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city": "Os' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 'lo"}' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 2 }],
    ['content_block_start', { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_lima', name: 'get_weather', input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"city": "Lima"}' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 3 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 96 } }],
    ['message_stop', { type: 'message_stop' }],
  ],
};

const ANTHROPIC_TEXT: CannedResponse = {
  status: 200,
  events: [
    ['message_start', { type: 'message_start', message: { id: 'msg_02', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 610, output_tokens: 1 } } }],
    ['ping', { type: 'ping' }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Oslo 4°C, Lima 19°C.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } }],
    ['message_stop', { type: 'message_stop' }],
  ],
};

const ANTHROPIC_OVERFLOW: CannedResponse = {
  status: 400,
  json: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
};

test('Anthropic messages: thinking with its signature, parallel tool use, cache reads; the signature and results go back', async () => {
  const server = await startProviderServer([ANTHROPIC_THINKING_TOOL_USE, ANTHROPIC_TEXT]);
  try {
    const model = createLanguageModel({ model: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.baseURL } });
    const client = createModelClient({ model, maxOutputTokens: 4096 });
    assert.equal(client.provider, 'anthropic.messages');
    const first = await collect(client.stream({ messages: HISTORY, tools: [WEATHER_TOOL], reasoning: { budgetTokens: 2048 } }));
    assert.equal(first.flatMap((event) => (event.type === 'reasoning-delta' ? [event.text] : [])).join(''), 'Two cities, two calls.');
    const finish = first.at(-1);
    assert.ok(finish?.type === 'finish');
    assert.equal(finish.reason, 'tool-calls');
    assert.equal(finish.rawReason, 'tool_use');
    assert.deepEqual(finish.message.reasoning, [{ text: 'Two cities, two calls.', providerMetadata: { anthropic: { signature: SIGNATURE } } }]);
    assert.equal(finish.message.content, 'Checking both.');
    assert.deepEqual(finish.message.toolCalls, [
      { id: 'toolu_oslo', name: 'get_weather', input: { city: 'Oslo' } },
      { id: 'toolu_lima', name: 'get_weather', input: { city: 'Lima' } },
    ]);
    assert.equal(finish.usage.cachedInputTokens, 2048);
    assert.equal(finish.usage.outputTokens, 96);

    const [request] = server.requests;
    assert.equal(request?.url, '/v1/messages');
    assert.equal(request?.headers['x-api-key'], 'sk-ant-test');
    assert.deepEqual(request?.body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.deepEqual(request?.body.system, [{ type: 'text', text: 'You are a weather assistant.' }]);

    const second = await generate(client, {
      messages: [
        ...HISTORY,
        finish.message,
        { role: 'tool', toolCallId: 'toolu_oslo', toolName: 'get_weather', content: '4°C' },
        { role: 'tool', toolCallId: 'toolu_lima', toolName: 'get_weather', content: 'station offline', isError: true },
      ],
      tools: [WEATHER_TOOL],
      reasoning: { budgetTokens: 2048 },
    });
    assert.equal(second.message.content, 'Oslo 4°C, Lima 19°C.');
    const sentBack = server.requests[1]?.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    assert.deepEqual(sentBack[1], {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Two cities, two calls.', signature: SIGNATURE },
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_use', id: 'toolu_oslo', name: 'get_weather', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'toolu_lima', name: 'get_weather', input: { city: 'Lima' } },
      ],
    });
    assert.deepEqual(sentBack[2], {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_oslo', content: '4°C' },
        { type: 'tool_result', tool_use_id: 'toolu_lima', content: 'station offline', is_error: true },
      ],
    });
  } finally {
    await server.close();
  }
});

test('Anthropic messages: "prompt is too long" becomes a ContextOverflowError, sent once', async () => {
  const server = await startProviderServer([ANTHROPIC_OVERFLOW, ANTHROPIC_TEXT]);
  try {
    const client = createModelClient({ model: createLanguageModel({ model: 'anthropic:claude-sonnet-4-5', apiKey: 'sk-ant-test', baseURL: server.baseURL }), sleep: async () => undefined });
    await assert.rejects(generate(client, { messages: HISTORY }), (error: unknown) => {
      assert.ok(ContextOverflowError.isInstance(error));
      assert.equal(error.provider, 'anthropic.messages');
      assert.equal(error.requestedTokens, 210_000);
      assert.equal(error.limitTokens, 200_000);
      return true;
    });
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test('Anthropic messages: an overloaded error event inside the stream is transient and retried', async () => {
  const overloadedStream: CannedResponse = {
    status: 200,
    events: [
      ['message_start', { type: 'message_start', message: { id: 'msg_03', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }],
      ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
    ],
  };
  const server = await startProviderServer([overloadedStream, ANTHROPIC_TEXT]);
  try {
    const client = createModelClient({ model: createLanguageModel({ model: 'anthropic:claude-sonnet-4-5', apiKey: 'sk-ant-test', baseURL: server.baseURL }), sleep: async () => undefined });
    const events = await collect(client.stream({ messages: HISTORY }));
    const retry = events.find((event) => event.type === 'retry');
    assert.ok(retry?.type === 'retry' && TransientProviderError.isInstance(retry.error));
    assert.equal(events.at(-1)?.type, 'finish');
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

// --- OpenAI-compatible servers ----------------------------------------------

for (const [server, body] of [
  ['vLLM', { object: 'error', message: "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.", type: 'BadRequestError', param: null, code: 400 }],
  ['llama.cpp', { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5120, n_ctx: 4096 } }],
  ['LM Studio', { error: 'Trying to keep the first 5120 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input' }],
] as const) {
  test(`OpenAI-compatible (${server}): the overflow body becomes a ContextOverflowError`, async () => {
    const provider = await startProviderServer([{ status: 400, json: body }]);
    try {
      const client = createModelClient({ model: createLanguageModel({ model: `openai-compatible:${provider.baseURL}#qwen2.5-7b-instruct`, env: {} }) });
      assert.equal(client.provider, 'openai-compatible.chat');
      const events = await collect(client.stream({ messages: HISTORY }));
      const end = events.at(-1);
      assert.ok(end?.type === 'error');
      assert.ok(ContextOverflowError.isInstance(end.error), `${server}: got ${end.error.name}: ${end.error.message}`);
      assert.equal(provider.requests[0]?.url, '/v1/chat/completions');
      assert.equal(provider.requests[0]?.headers.authorization, undefined, 'no key is sent when none is configured');
    } finally {
      await provider.close();
    }
  });
}

test('OpenAI-compatible: streams text with reasoning_content and asks for usage', async () => {
  const stream: CannedResponse = {
    status: 200,
    events: [
      [undefined, openAIChunk({ role: 'assistant', reasoning_content: 'Short answer.' })],
      [undefined, openAIChunk({ content: 'Hi.' })],
      [undefined, openAIChunk({}, 'stop')],
      [undefined, openAIUsage({ prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 })],
      [undefined, '[DONE]'],
    ],
  };
  const provider = await startProviderServer([stream]);
  try {
    const model = createLanguageModel({ model: `openai-compatible:${provider.baseURL}#deepseek-r1`, env: { OPENAI_COMPATIBLE_API_KEY: 'local-key' } });
    const result = await generate(createModelClient({ model }), { messages: HISTORY, reasoning: { effort: 'high' } });
    assert.equal(result.message.content, 'Hi.');
    assert.deepEqual(result.message.reasoning, [{ text: 'Short answer.' }]);
    // The openai-compatible provider reports absent details as zero.
    assert.deepEqual(result.usage, { inputTokens: 30, outputTokens: 6, cachedInputTokens: 0, reasoningTokens: 0 });
    const [request] = provider.requests;
    assert.equal(request?.headers.authorization, 'Bearer local-key');
    assert.deepEqual(request?.body.stream_options, { include_usage: true });
    assert.equal(request?.body.reasoning_effort, 'high');
  } finally {
    await provider.close();
  }
});
