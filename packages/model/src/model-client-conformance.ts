import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { CanonicalHistory } from '@strata/context';
import { createModelClient } from './create-model-client.js';
import type { ModelClientOptions } from './create-model-client.js';
import { ContextOverflowError } from './errors/context-overflow-error.js';
import { ProviderError } from './errors/provider-error.js';
import { RateLimitError } from './errors/rate-limit-error.js';
import { TransientProviderError } from './errors/transient-provider-error.js';
import { generate } from './generate.js';
import type { ModelEvent, ModelRequest } from './model-client.js';
import type { ScriptedTurn } from './scripted-language-model.js';
import { anthropicOverflowError, authenticationError, openAIOverflowError, overloadedError, rateLimitedError } from './scripted-provider-errors.js';

/** A model under test that replays `script`, with the call options it received. */
export interface ConformanceModel {
  readonly model: LanguageModelV3;
  calls(): readonly LanguageModelV3CallOptions[];
}

export interface ConformanceSubject {
  readonly name: string;
  createModel(script: readonly ScriptedTurn[], options?: { provider?: string }): ConformanceModel;
}

const USER_ONLY: CanonicalHistory = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Say hello.' },
];

async function collect(events: AsyncIterable<ModelEvent>, onEvent?: (event: ModelEvent) => void): Promise<ModelEvent[]> {
  const seen: ModelEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    onEvent?.(event);
  }
  return seen;
}

function last(events: readonly ModelEvent[]): ModelEvent {
  const event = events.at(-1);
  assert.ok(event !== undefined, 'the stream produced no event');
  return event;
}

/**
 * The adapter's contract, run against any `LanguageModelV3` that can replay a
 * script: streaming text, reasoning with signatures sent back, parallel tool
 * calls, usage, abort and timeout, and every normalized error with its retry
 * rule.
 */
export function modelClientConformance(subject: ConformanceSubject): void {
  const prefix = `${subject.name}:`;
  const client = (model: LanguageModelV3, options: Omit<ModelClientOptions, 'model'> = {}) =>
    createModelClient({ model, sleep: async () => undefined, ...options });
  const request = (messages: CanonicalHistory, extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages, ...extra });

  test(`${prefix} streams text deltas, usage and a finish with the assistant message`, async () => {
    const subjectModel = subject.createModel([{ parts: [{ type: 'text', text: 'Hello there, friend.' }], usage: { inputTokens: 12, outputTokens: 5 } }]);
    const events = await collect(client(subjectModel.model).stream(request(USER_ONLY)));
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    assert.equal(text, 'Hello there, friend.');
    assert.ok(events.filter((event) => event.type === 'text-delta').length > 1, 'text arrives as several deltas');
    assert.deepEqual(events.find((event) => event.type === 'usage'), { type: 'usage', usage: { inputTokens: 12, outputTokens: 5 } });
    const finish = last(events);
    assert.equal(finish.type, 'finish');
    assert.ok(finish.type === 'finish');
    assert.equal(finish.reason, 'stop');
    assert.deepEqual(finish.message, { role: 'assistant', content: 'Hello there, friend.' });
    const [call] = subjectModel.calls();
    assert.deepEqual(call?.prompt, [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Say hello.' }] },
    ]);
  });

  test(`${prefix} reasoning streams as thinking and its signature goes back verbatim`, async () => {
    const signature = { anthropic: { signature: 'sig-Ek8CkAYICBgCKkB' } };
    const subjectModel = subject.createModel([
      { parts: [{ type: 'reasoning', text: 'The user wants a greeting.', providerMetadata: signature }, { type: 'text', text: 'Hello.' }], usage: { inputTokens: 20, outputTokens: 30, reasoningTokens: 22 } },
      { parts: [{ type: 'text', text: 'Again.' }] },
    ]);
    const modelClient = client(subjectModel.model);
    const first = await collect(modelClient.stream(request(USER_ONLY)));
    assert.equal(first.flatMap((event) => (event.type === 'reasoning-delta' ? [event.text] : [])).join(''), 'The user wants a greeting.');
    const finish = last(first);
    assert.ok(finish.type === 'finish');
    assert.deepEqual(finish.message.reasoning, [{ text: 'The user wants a greeting.', providerMetadata: signature }]);
    assert.equal(finish.usage.reasoningTokens, 22);
    await collect(modelClient.stream(request([...USER_ONLY, finish.message, { role: 'user', content: 'Again.' }])));
    const secondPrompt = subjectModel.calls()[1]?.prompt;
    assert.deepEqual(secondPrompt?.[2], {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'The user wants a greeting.', providerOptions: signature },
        { type: 'text', text: 'Hello.' },
      ],
    });
  });

  test(`${prefix} parallel tool calls arrive in order, parsed, and their results go back as one tool message`, async () => {
    const subjectModel = subject.createModel([
      {
        parts: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool-call', id: 'call_2', name: 'get_weather', input: { city: 'Lima' } },
          { type: 'tool-call', id: 'call_3', name: 'broken', rawInput: '{"city": "Pa' },
        ],
        usage: { inputTokens: 40, outputTokens: 18 },
      },
      { parts: [{ type: 'text', text: 'Done.' }] },
    ]);
    const modelClient = client(subjectModel.model);
    const tools = [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const events = await collect(modelClient.stream(request(USER_ONLY, { tools })));
    const calls = events.flatMap((event) => (event.type === 'tool-call' ? [event.toolCall] : []));
    assert.deepEqual(calls, [
      { id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
      { id: 'call_2', name: 'get_weather', input: { city: 'Lima' } },
      { id: 'call_3', name: 'broken', input: '{"city": "Pa' },
    ]);
    const finish = last(events);
    assert.ok(finish.type === 'finish');
    assert.equal(finish.reason, 'tool-calls');
    assert.deepEqual(finish.message.toolCalls, calls);
    assert.deepEqual(subjectModel.calls()[0]?.tools, [
      { type: 'function', name: 'get_weather', description: 'Weather for a city', inputSchema: tools[0]?.parameters },
    ]);

    const history: CanonicalHistory = [
      ...USER_ONLY,
      finish.message,
      { role: 'tool', toolCallId: 'call_1', toolName: 'get_weather', content: '4°C' },
      { role: 'tool', toolCallId: 'call_2', toolName: 'get_weather', content: '19°C' },
      { role: 'tool', toolCallId: 'call_3', toolName: 'broken', content: 'arguments are not JSON', isError: true },
    ];
    await collect(modelClient.stream(request(history, { tools })));
    const prompt = subjectModel.calls()[1]?.prompt ?? [];
    assert.equal(prompt.length, 4);
    assert.deepEqual(prompt[3], {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'call_1', toolName: 'get_weather', output: { type: 'text', value: '4°C' } },
        { type: 'tool-result', toolCallId: 'call_2', toolName: 'get_weather', output: { type: 'text', value: '19°C' } },
        { type: 'tool-result', toolCallId: 'call_3', toolName: 'broken', output: { type: 'error-text', value: 'arguments are not JSON' } },
      ],
    });
    const assistant = prompt[2];
    assert.ok(assistant?.role === 'assistant');
    assert.deepEqual(
      assistant.content.map((part) => (part.type === 'tool-call' ? [part.toolCallId, part.input] : part.type)),
      ['text', ['call_1', { city: 'Oslo' }], ['call_2', { city: 'Lima' }], ['call_3', {}]],
      'a call whose input was not JSON goes back with {}',
    );
  });

  test(`${prefix} usage reports cached input and reasoning tokens`, async () => {
    const subjectModel = subject.createModel([{ parts: [{ type: 'text', text: 'ok' }], usage: { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 800, cacheWriteInputTokens: 100, reasoningTokens: 30 } }]);
    const result = await generate(client(subjectModel.model), request(USER_ONLY));
    assert.deepEqual(result.usage, { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 800, cacheWriteInputTokens: 100, reasoningTokens: 30 });
    assert.equal(result.message.content, 'ok');
  });

  test(`${prefix} request options reach the model: max tokens, reasoning mapped for the provider, provider options merged`, async () => {
    const subjectModel = subject.createModel([{ parts: [{ type: 'text', text: 'ok' }] }], { provider: 'anthropic.messages' });
    await generate(
      client(subjectModel.model, { providerOptions: { anthropic: { sendReasoning: true } } }),
      request(USER_ONLY, { maxOutputTokens: 2048, reasoning: { effort: 'low' }, providerOptions: { anthropic: { disableParallelToolUse: true } }, system: 'Lead.' }),
    );
    const [call] = subjectModel.calls();
    assert.equal(call?.maxOutputTokens, 2048);
    assert.deepEqual(call?.providerOptions, { anthropic: { sendReasoning: true, thinking: { type: 'enabled', budgetTokens: 4096 }, disableParallelToolUse: true } });
    assert.deepEqual(call?.prompt[0], { role: 'system', content: 'Lead.' });
    assert.ok(call?.abortSignal instanceof AbortSignal, 'the model receives the combined signal');
  });

  test(`${prefix} abort mid-stream ends with an aborted event carrying the partial message`, async () => {
    const subjectModel = subject.createModel([{ parts: [{ type: 'text', text: 'Hello and then more words' }, { type: 'hang' }] }]);
    const controller = new AbortController();
    const events = await collect(client(subjectModel.model).stream(request(USER_ONLY, { signal: controller.signal })), (event) => {
      if (event.type === 'text-delta') controller.abort(new Error('user cancelled'));
    });
    const end = last(events);
    assert.equal(end.type, 'aborted');
    assert.ok(end.type === 'aborted');
    assert.equal(end.timedOut, false);
    assert.equal((end.reason as Error).message, 'user cancelled');
    assert.equal(end.partial.content, 'Hello ');
    assert.equal(events.filter((event) => event.type === 'text-delta').length, 1);
    assert.equal(events.some((event) => event.type === 'finish'), false);
  });

  test(`${prefix} a stalled stream ends at the timeout, reported as timed out`, async () => {
    const subjectModel = subject.createModel([{ parts: [{ type: 'text', text: 'Partial' }, { type: 'hang' }] }]);
    const events = await collect(client(subjectModel.model, { timeoutMs: 5 }).stream(request(USER_ONLY)));
    const end = last(events);
    assert.ok(end.type === 'aborted');
    assert.equal(end.timedOut, true);
    assert.equal(end.partial.content, 'Partial');
  });

  test(`${prefix} an already aborted signal makes no call`, async () => {
    const subjectModel = subject.createModel([{ parts: [{ type: 'text', text: 'never' }] }]);
    const events = await collect(client(subjectModel.model).stream(request(USER_ONLY, { signal: AbortSignal.abort() })));
    assert.deepEqual(events.map((event) => event.type), ['aborted']);
    assert.equal(subjectModel.calls().length, 0);
  });

  for (const [label, error, figures] of [
    ['OpenAI', openAIOverflowError(), { limitTokens: 128_000, requestedTokens: 130_000 }],
    ['Anthropic', anthropicOverflowError(), { limitTokens: 200_000, requestedTokens: 210_000 }],
  ] as const) {
    test(`${prefix} a ${label} context overflow is a ContextOverflowError and is never retried`, async () => {
      const subjectModel = subject.createModel([{ throws: error }, { parts: [{ type: 'text', text: 'unreachable' }] }]);
      const events = await collect(client(subjectModel.model, { retry: { maxAttempts: 5 } }).stream(request(USER_ONLY)));
      const end = last(events);
      assert.ok(end.type === 'error');
      assert.ok(ContextOverflowError.isInstance(end.error), `got ${end.error.name}`);
      assert.equal(end.error.kind, 'provider');
      assert.equal(end.error.statusCode, 400);
      assert.equal(end.error.limitTokens, figures.limitTokens);
      assert.equal(end.error.requestedTokens, figures.requestedTokens);
      assert.equal(subjectModel.calls().length, 1);
      await assert.rejects(generate(client(subject.createModel([{ throws: error }]).model), request(USER_ONLY)), (thrown: unknown) => ContextOverflowError.isInstance(thrown));
    });
  }

  test(`${prefix} a rate limit is retried after the provider's retry-after`, async () => {
    const subjectModel = subject.createModel([{ throws: rateLimitedError({ retryAfterSeconds: 2 }) }, { parts: [{ type: 'text', text: 'after the wait' }] }]);
    const waits: number[] = [];
    const events = await collect(
      client(subjectModel.model, { sleep: async (delayMs) => void waits.push(delayMs) }).stream(request(USER_ONLY)),
    );
    const retry = events.find((event) => event.type === 'retry');
    assert.ok(retry?.type === 'retry');
    assert.ok(RateLimitError.isInstance(retry.error));
    assert.equal(retry.error.retryAfterMs, 2000);
    assert.deepEqual(waits, [2000]);
    const end = last(events);
    assert.ok(end.type === 'finish');
    assert.equal(end.message.content, 'after the wait');
    assert.equal(subjectModel.calls().length, 2);
  });

  test(`${prefix} transient failures back off exponentially with jitter and stop at maxAttempts`, async () => {
    const subjectModel = subject.createModel([{ throws: overloadedError() }, { throws: overloadedError({ statusCode: 503 }) }, { throws: overloadedError() }, { parts: [{ type: 'text', text: 'unreachable' }] }]);
    const waits: number[] = [];
    const events = await collect(
      client(subjectModel.model, { retry: { maxAttempts: 3, initialDelayMs: 10, backoffFactor: 3 }, random: () => 0, sleep: async (delayMs) => void waits.push(delayMs) }).stream(request(USER_ONLY)),
    );
    // Equal jitter at its lower bound: half of 10 and of 30.
    assert.deepEqual(waits, [5, 15]);
    const end = last(events);
    assert.ok(end.type === 'error');
    assert.ok(TransientProviderError.isInstance(end.error));
    assert.equal(end.error.statusCode, 529);
    assert.equal(subjectModel.calls().length, 3);
  });

  test(`${prefix} an error part before any output is retried; after output it ends the turn`, async () => {
    const overloaded = { type: 'overloaded_error', message: 'Overloaded' };
    const early = subject.createModel([{ parts: [{ type: 'error', error: overloaded }] }, { parts: [{ type: 'text', text: 'recovered' }] }]);
    const recovered = await generate(client(early.model), request(USER_ONLY));
    assert.equal(recovered.message.content, 'recovered');
    assert.equal(early.calls().length, 2);

    const late = subject.createModel([{ parts: [{ type: 'text', text: 'Half an' }, { type: 'error', error: overloaded }] }, { parts: [{ type: 'text', text: 'unreachable' }] }]);
    const events = await collect(client(late.model).stream(request(USER_ONLY)));
    const end = last(events);
    assert.ok(end.type === 'error');
    assert.ok(TransientProviderError.isInstance(end.error));
    assert.equal(end.partial.content, 'Half an');
    assert.equal(late.calls().length, 1, 'no retry once deltas were emitted');
  });

  test(`${prefix} other provider failures are a ProviderError, not retried`, async () => {
    const subjectModel = subject.createModel([{ throws: authenticationError() }, { parts: [] }]);
    const events = await collect(client(subjectModel.model).stream(request(USER_ONLY)));
    const end = last(events);
    assert.ok(end.type === 'error');
    assert.ok(ProviderError.isInstance(end.error));
    assert.equal(end.error.statusCode, 401);
    assert.equal(subjectModel.calls().length, 1);
  });
}
